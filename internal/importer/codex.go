package importer

import (
	"encoding/json"
	"fmt"

	"github.com/openseek/openseek/protocol"
)

// A Codex rollout line (codex-rs/protocol RolloutLine): a timestamp, the
// item's type and its payload. Rollouts written before the payload
// wrapper (spring 2025) hold a first line of session metadata with no
// type, then each ResponseItem as it is, and {"record_type":"state"}
// lines.
type codexLine struct {
	Type       string          `json:"type"`
	Payload    json.RawMessage `json:"payload"`
	RecordType string          `json:"record_type"`
	ID         string          `json:"id"`
}

// codexResponseItems are the ResponseItem types, which a legacy rollout
// line carries at its top level.
var codexResponseItems = map[string]bool{"message": true, "reasoning": true, "function_call": true, "function_call_output": true,
	"custom_tool_call": true, "custom_tool_call_output": true, "local_shell_call": true, "web_search_call": true, "other": true}

// codexItem is the part of a ResponseItem (and of session_meta,
// turn_context and event_msg payloads) the import reads.
type codexItem struct {
	Type      string          `json:"type"`
	Role      string          `json:"role"`
	Content   json.RawMessage `json:"content"`
	Summary   json.RawMessage `json:"summary"`
	Name      string          `json:"name"`
	Arguments string          `json:"arguments"`
	Input     string          `json:"input"`
	CallID    string          `json:"call_id"`
	Output    json.RawMessage `json:"output"`
	Action    struct {
		Command          []string `json:"command"`
		WorkingDirectory string   `json:"working_directory"`
	} `json:"action"`
	// session_meta, turn_context
	ID    string `json:"id"`
	Cwd   string `json:"cwd"`
	Model string `json:"model"`
	// compacted
	Message string `json:"message"`
	// event_msg token_count
	Info *struct {
		Last *struct {
			Input        int `json:"input_tokens"`
			CachedInput  int `json:"cached_input_tokens"`
			Output       int `json:"output_tokens"`
			Total        int `json:"total_tokens"`
			CacheWritten int `json:"cache_write_input_tokens"`
		} `json:"last_token_usage"`
	} `json:"info"`
}

// codexContext marks the user-role messages Codex writes itself (the
// environment, AGENTS.md and permission instructions): context of that
// run, not something the user said.
var codexContext = []string{"<environment_context>", "<user_instructions>", "# AGENTS.md instructions", "<permissions instructions>", "<skills_instructions>", "<user_shell_command>", "<turn_aborted>"}

// codexLine takes in one rollout line.
func (b *builder) codexLine(raw json.RawMessage) error {
	var l codexLine
	if err := json.Unmarshal(raw, &l); err != nil {
		return fmt.Errorf("not a Codex rollout line: %w", err)
	}
	if len(l.Payload) == 0 { // the legacy layout
		switch {
		case l.RecordType != "":
			return nil
		case l.Type == "" && l.ID != "":
			b.t.SourceID = l.ID
			return nil
		case codexResponseItems[l.Type]:
			l.Payload, l.Type = raw, "response_item"
		default:
			return fmt.Errorf("not a Codex rollout line (it has no payload, and %q is no response item type)", l.Type)
		}
	}
	var it codexItem
	if err := json.Unmarshal(l.Payload, &it); err != nil {
		return fmt.Errorf("%s payload: %w", l.Type, err)
	}
	switch l.Type {
	case "session_meta":
		b.t.SourceID, b.t.Cwd = it.ID, it.Cwd
	case "turn_context":
		b.model = it.Model
		if it.Cwd != "" && b.t.Cwd == "" {
			b.t.Cwd = it.Cwd
		}
	case "event_msg":
		if it.Type == "token_count" && it.Info != nil && it.Info.Last != nil {
			u := it.Info.Last
			b.usage(protocol.Usage{
				PromptTokens: u.Input, CompletionTokens: u.Output, TotalTokens: u.Total,
				PromptCacheHitTokens: u.CachedInput, PromptCacheMissTokens: u.Input - u.CachedInput,
			}, codexModelName(b.model))
		}
	case "response_item":
		b.codexItem(&it)
	case "compacted":
		// Codex replaced the history so far by this summary.
		b.summary(it.Message)
	}
	return nil
}

func codexModelName(m string) string {
	if m == "" {
		return ""
	}
	return "codex/" + m
}

func (b *builder) codexItem(it *codexItem) {
	cwd := b.t.Cwd
	switch it.Type {
	case "message":
		text := textOf(it.Content)
		switch it.Role {
		case "user":
			if !hasAnyPrefix(text, codexContext) {
				b.user(text)
			}
		case "assistant":
			b.text(text)
		}
	case "reasoning":
		b.reasoning(textOf(it.Summary), "")
	case "function_call":
		b.call(it.CallID, codexTool(it.Name, it.Arguments, cwd))
	case "custom_tool_call":
		if it.Name == "apply_patch" {
			b.call(it.CallID, applyPatch(it.Input))
		} else {
			b.call(it.CallID, foreign(it.Name, encode(struct {
				Input string `json:"input"`
			}{it.Input})))
		}
	case "local_shell_call":
		b.call(it.CallID, shell(argv(it.Action.Command), it.Action.WorkingDirectory, cwd))
	case "function_call_output", "custom_tool_call_output":
		var out struct {
			Success *bool `json:"success"`
		}
		json.Unmarshal(it.Output, &out)
		b.result(it.CallID, textOf(it.Output), out.Success != nil && !*out.Success)
	}
}

// codexTool maps a Codex function call onto ours.
func codexTool(name, args, cwd string) mapped {
	var a struct {
		Cmd     string          `json:"cmd"`
		Command json.RawMessage `json:"command"`
		Workdir string          `json:"workdir"`
		Input   string          `json:"input"`
	}
	if json.Unmarshal([]byte(args), &a) != nil {
		return foreign(name, args)
	}
	switch name {
	case "exec_command":
		if a.Cmd != "" {
			return shell(a.Cmd, a.Workdir, cwd)
		}
	case "shell", "container.exec", "shell_command":
		var words []string
		var line string
		switch {
		case json.Unmarshal(a.Command, &words) == nil && len(words) > 0:
			if words[0] == "apply_patch" && len(words) == 2 {
				return applyPatch(words[1])
			}
			return shell(argv(words), a.Workdir, cwd)
		case json.Unmarshal(a.Command, &line) == nil && line != "":
			return shell(line, a.Workdir, cwd)
		}
	case "apply_patch":
		if a.Input != "" {
			return applyPatch(a.Input)
		}
	}
	return foreign(name, args)
}
