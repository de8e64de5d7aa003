package importer

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openseek/openseek/protocol"
)

// claudeEntry is the part of a Claude Code transcript line the import
// reads: user and assistant entries carry an Anthropic Messages API
// message; the other types (summary, attachment, queue-operation,
// file-history-snapshot, system, last-prompt) are the CLI's bookkeeping.
type claudeEntry struct {
	Type        string `json:"type"`
	SessionID   string `json:"sessionId"`
	Cwd         string `json:"cwd"`
	IsSidechain bool   `json:"isSidechain"`
	IsMeta      bool   `json:"isMeta"`
	UUID        string `json:"uuid"`
	ParentUUID  string `json:"parentUuid"`
	Message     *struct {
		ID      string          `json:"id"`
		Role    string          `json:"role"`
		Model   string          `json:"model"`
		Content json.RawMessage `json:"content"`
		Usage   *struct {
			Input       int `json:"input_tokens"`
			CacheCreate int `json:"cache_creation_input_tokens"`
			CacheRead   int `json:"cache_read_input_tokens"`
			Output      int `json:"output_tokens"`
		} `json:"usage"`
	} `json:"message"`
}

// claudeBlock is one content block of a message.
type claudeBlock struct {
	Type      string          `json:"type"`
	Text      string          `json:"text"`
	Thinking  string          `json:"thinking"`
	Signature string          `json:"signature"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	ToolUseID string          `json:"tool_use_id"`
	Content   json.RawMessage `json:"content"`
	IsError   bool            `json:"is_error"`
}

// claudeLocal marks user entries the CLI writes for its own slash
// commands (their name, arguments and printed output).
var claudeLocal = []string{"<command-name>", "<command-message>", "<local-command-stdout>", "<local-command-stderr>", "<local-command-caveat>"}

// claudeMessage is a user or assistant entry, read and checked.
type claudeMessage struct {
	claudeEntry
	blocks []claudeBlock
}

// claudeLine reads one transcript line; the messages are taken in at the
// end (claudeFinish), when it is known which branch is the conversation.
func (b *builder) claudeLine(raw json.RawMessage) error {
	var e claudeEntry
	if err := json.Unmarshal(raw, &e); err != nil {
		return fmt.Errorf("not a Claude Code transcript line: %w", err)
	}
	if e.Type == "" {
		return fmt.Errorf("not a Claude Code transcript line (it has no type)")
	}
	if e.SessionID != "" && b.t.SourceID == "" {
		b.t.SourceID = e.SessionID
	}
	if e.UUID != "" {
		b.parents[e.UUID] = e.ParentUUID
	}
	if (e.Type != "user" && e.Type != "assistant") || e.IsSidechain || e.IsMeta {
		return nil
	}
	if e.Message == nil {
		return fmt.Errorf("%s entry without a message", e.Type)
	}
	var blocks []claudeBlock
	var s string
	switch {
	case json.Unmarshal(e.Message.Content, &s) == nil:
		blocks = []claudeBlock{{Type: "text", Text: s}}
	case json.Unmarshal(e.Message.Content, &blocks) == nil:
	default:
		return fmt.Errorf("%s message content is neither text nor a list of blocks", e.Type)
	}
	b.claude = append(b.claude, claudeMessage{e, blocks})
	return nil
}

// claudeFinish takes in the messages on the branch that ends with the
// last one: Claude Code keeps a conversation rewound to an earlier point
// in the same file, each entry naming its parent (parentUuid), so an
// abandoned branch is left out. A compaction starts a new root, and
// with it the history the model saw afterwards.
func (b *builder) claudeFinish() {
	onBranch := map[string]bool{}
	if n := len(b.claude); n > 0 && b.claude[n-1].UUID != "" {
		for id := b.claude[n-1].UUID; id != "" && !onBranch[id]; id = b.parents[id] {
			onBranch[id] = true
		}
	}
	for i := range b.claude {
		m := &b.claude[i]
		if len(onBranch) > 0 && !onBranch[m.UUID] {
			continue
		}
		b.claudeMessage(m)
	}
}

// claudeMessage takes in one user or assistant message.
func (b *builder) claudeMessage(e *claudeMessage) {
	if e.Cwd != "" {
		b.t.Cwd = e.Cwd
	}
	m := e.Message
	if e.Type == "user" {
		for _, bl := range e.blocks {
			switch bl.Type {
			case "tool_result":
				b.result(bl.ToolUseID, textOf(bl.Content), bl.IsError)
			case "text":
				if !hasAnyPrefix(bl.Text, claudeLocal) {
					b.user(bl.Text)
				}
			}
		}
		return
	}
	// An assistant message is written one content block per line, each
	// line repeating the message's id and usage: count the usage once.
	newMessage := m.ID == "" || m.ID != b.lastMessage
	b.lastMessage = m.ID
	for _, bl := range e.blocks {
		switch bl.Type {
		case "text":
			b.text(bl.Text)
		case "thinking":
			b.reasoning(bl.Thinking, bl.Signature)
		case "tool_use":
			b.call(bl.ID, claudeTool(bl.Name, bl.Input, b.t.Cwd))
		}
	}
	if u := m.Usage; u != nil && newMessage {
		prompt := u.Input + u.CacheCreate + u.CacheRead
		b.usage(protocol.Usage{
			PromptTokens: prompt, CompletionTokens: u.Output, TotalTokens: prompt + u.Output,
			PromptCacheHitTokens: u.CacheRead, PromptCacheMissTokens: u.Input + u.CacheCreate,
		}, claudeModelName(m.Model))
	}
}

func claudeModelName(m string) string {
	if m == "" {
		return ""
	}
	return "anthropic/" + m
}

func hasAnyPrefix(s string, prefixes []string) bool {
	s = strings.TrimSpace(s)
	for _, p := range prefixes {
		if strings.HasPrefix(s, p) {
			return true
		}
	}
	return false
}

// claudeTool maps a Claude Code tool call onto ours.
func claudeTool(name string, input json.RawMessage, cwd string) mapped {
	var a struct {
		Command     string `json:"command"`
		Description string `json:"description"`
		Timeout     int    `json:"timeout"`
		FilePath    string `json:"file_path"`
		Offset      int    `json:"offset"`
		Limit       int    `json:"limit"`
		OldString   string `json:"old_string"`
		NewString   string `json:"new_string"`
		ReplaceAll  bool   `json:"replace_all"`
		Content     string `json:"content"`
	}
	if json.Unmarshal(input, &a) != nil {
		return foreign(name, string(input))
	}
	switch name {
	case "Bash":
		if a.Command != "" {
			return shellWith(shellCall{Cmd: a.Command, TimeoutMs: a.Timeout, Description: a.Description})
		}
	case "Read":
		if a.FilePath != "" {
			return mapped{"read", encode(struct {
				Path      string `json:"path"`
				StartLine int    `json:"start_line,omitempty"`
				MaxLines  int    `json:"max_lines,omitempty"`
			}{relPath(a.FilePath, cwd), a.Offset, a.Limit})}
		}
	case "Edit":
		if a.FilePath != "" {
			return mapped{"edit", encode(struct {
				Path       string `json:"path"`
				OldString  string `json:"old_string"`
				NewString  string `json:"new_string"`
				ReplaceAll bool   `json:"replace_all,omitempty"`
			}{relPath(a.FilePath, cwd), a.OldString, a.NewString, a.ReplaceAll})}
		}
	case "Write":
		if a.FilePath != "" {
			return mapped{"write", encode(struct {
				Path    string `json:"path"`
				Content string `json:"content"`
			}{relPath(a.FilePath, cwd), a.Content})}
		}
	}
	return foreign(name, string(input))
}
