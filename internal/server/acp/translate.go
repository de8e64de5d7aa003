package acp

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/openseek/openseek/internal/render"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// translator turns one session's protocol events into ACP session
// updates. It remembers the tool calls it announced, so a result becomes
// an update of its call (with a diff for edits, rebuilt from the call's
// arguments) and an approval names the call that waits for it. It is used
// by one goroutine at a time.
type translator struct {
	workspace string
	calls     map[string]*call // by tool call id
	order     []string         // announced calls not finished yet, oldest first
	streamed  bool             // assistant text came as deltas since the last message
	thought   bool             // reasoning came as deltas since the last message
	checks    int              // build checks shown, for their call ids
	check     string           // the call id of the running build check
	warned    map[string]bool  // warnings already shown: each shows once

	compactions int    // compactions shown, for their call ids
	compaction  string // the call id of the running compaction
}

// call is a tool call the client was told about; parent is the call
// that made it on its own (a script's), "" for the model's.
type call struct {
	id, name, args, parent string
}

func newTranslator(workspace string) *translator {
	return &translator{workspace: workspace, calls: map[string]*call{}, warned: map[string]bool{}}
}

// translate maps one event to the updates the client gets (often none).
func (t *translator) translate(ev protocol.Event) []sdk.SessionUpdate {
	switch e := ev.(type) {
	case protocol.AssistantDelta:
		if e.Content == "" {
			return nil
		}
		t.streamed = true
		return []sdk.SessionUpdate{sdk.UpdateAgentMessageText(e.Content)}
	case protocol.ReasoningDelta:
		if e.Content == "" {
			return nil
		}
		t.thought = true
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(e.Content)}
	case protocol.AssistantMessage:
		// The whole message after its deltas; sent only when it was not
		// streamed.
		streamed := t.streamed
		t.streamed = false
		if streamed || e.Content == "" {
			return nil
		}
		return []sdk.SessionUpdate{sdk.UpdateAgentMessageText(e.Content)}
	case protocol.ReasoningMessage:
		thought := t.thought
		t.thought = false
		if thought || e.Content == "" {
			return nil
		}
		return []sdk.SessionUpdate{sdk.UpdateAgentThoughtText(e.Content)}
	case protocol.ToolStarted:
		return t.started(e.ToolCallID, e.ToolName, e.Arguments, e.Parent, sdk.ToolCallStatusInProgress)
	case protocol.ToolResult:
		return t.result(e.ToolCallID, e.ToolName, e.Content, e.IsError, e.Diff, "", "")
	case protocol.VerifyStarted:
		return t.verifyStarted(e)
	case protocol.VerifyResult:
		return t.verifyResult(e)
	case protocol.ContextHealth:
		return []sdk.SessionUpdate{usage(e)}
	case protocol.CompactionStarted:
		return t.compactionStarted(e.FromSequence, e.ToSequence)
	case protocol.AutoCompactionStarted:
		return t.compactionStarted(e.FromSequence, e.ToSequence)
	case protocol.CompactionReport:
		return t.compactionReport(e)
	case protocol.CompactionFailed:
		return t.compactionFailed(e.Error)
	case protocol.AutoCompactionFailed:
		return t.compactionFailed(e.Error)
	case protocol.StreamReset:
		return []sdk.SessionUpdate{notice(fmt.Sprintf("%d events of this session were not shown (%s); reload the session to see them.", e.Resume-e.Since-1, e.Reason))}
	}
	if w, ok := protocol.Warning(ev); ok {
		// A claim is about its turn and a network notice about one
		// connection: each shows every time; other warnings once.
		if once(ev) && t.warned[w] {
			return nil
		}
		t.warned[w] = true
		return []sdk.SessionUpdate{notice(w)}
	}
	return nil
}

// once reports whether a warning is about the session (shown once)
// rather than about one turn or one connection (shown each time).
func once(ev protocol.Event) bool {
	switch e := ev.(type) {
	case protocol.UnverifiedClaim:
		return false
	case protocol.BackgroundNotice:
		return !session.IsNetworkMarker(e.Content)
	}
	return true
}

// notice is a warning for the person at the editor. ACP has no notice
// update, and a thought is the model's reasoning (editors fold it away):
// it is a paragraph of the agent's message, quoted.
func notice(w string) sdk.SessionUpdate {
	return sdk.UpdateAgentMessageText("\n\n> " + strings.ReplaceAll(strings.TrimSpace(w), "\n", "\n> ") + "\n\n")
}

// started announces a tool call (and a plan, for the plan tool). ACP
// has no nesting of tool calls: a call a script made (parent) is shown
// under it by its title, "↳ …", and says which call it belongs to in
// _meta.openseek.parentToolCallId, for an editor that nests them.
func (t *translator) started(id, name, args, parent string, status sdk.ToolCallStatus) []sdk.SessionUpdate {
	c := &call{id: id, name: name, args: args, parent: parent}
	if _, known := t.calls[id]; !known {
		t.order = append(t.order, id)
	}
	t.calls[id] = c
	title, kind, locs := describe(name, args, t.workspace)
	if parent != "" {
		title = "↳ " + title
	}
	opts := []sdk.ToolCallStartOpt{sdk.WithStartKind(kind), sdk.WithStartStatus(status)}
	if len(locs) > 0 {
		opts = append(opts, sdk.WithStartLocations(locs))
	}
	if in := rawJSON(args); in != nil {
		opts = append(opts, sdk.WithStartRawInput(in))
	}
	if parent != "" {
		opts = append(opts, func(tc *sdk.SessionUpdateToolCall) {
			tc.Meta = map[string]any{"openseek": map[string]any{"parentToolCallId": parent}}
		})
	}
	ups := []sdk.SessionUpdate{sdk.StartToolCall(sdk.ToolCallId(id), title, opts...)}
	if name == "plan" {
		if p, ok := planUpdate(args); ok {
			ups = append(ups, p)
		}
	}
	return ups
}

// result completes a tool call; a call never announced (a hook blocked
// it, the tool does not exist; in a replay, a script's call, whose
// arguments and parent only its result records) is announced first.
func (t *translator) result(id, name, content string, isError bool, diff *string, args, parent string) []sdk.SessionUpdate {
	var ups []sdk.SessionUpdate
	c, ok := t.calls[id]
	if !ok {
		ups = t.started(id, name, args, parent, sdk.ToolCallStatusInProgress)
		c = t.calls[id]
	}
	delete(t.calls, id)
	for i, o := range t.order {
		if o == id {
			t.order = append(t.order[:i], t.order[i+1:]...)
			break
		}
	}
	status := sdk.ToolCallStatusCompleted
	if isError {
		status = sdk.ToolCallStatusFailed
	}
	return append(ups, sdk.UpdateToolCall(sdk.ToolCallId(id), sdk.WithUpdateStatus(status),
		sdk.WithUpdateContent(resultContent(c.name, c.args, content, isError, diff, t.workspace))))
}

// permission is the session/request_permission question for an approval:
// it names the running call of that tool (the newest one), else the
// approval itself.
func (t *translator) permission(ap protocol.ApprovalRequested) sdk.RequestPermissionRequest {
	id, kind := "approval-"+ap.ID, sdk.ToolKindOther
	var locs []sdk.ToolCallLocation
	var raw any
	for i := len(t.order) - 1; i >= 0; i-- {
		if c := t.calls[t.order[i]]; c != nil && c.name == ap.ToolName {
			id = c.id
			_, kind, locs = describe(c.name, c.args, t.workspace)
			raw = rawJSON(c.args)
			break
		}
	}
	tc := sdk.ToolCallUpdate{
		ToolCallId: sdk.ToolCallId(id),
		Title:      sdk.Ptr(ap.Detail),
		Kind:       sdk.Ptr(kind),
		Status:     sdk.Ptr(sdk.ToolCallStatusPending),
		Locations:  locs,
		RawInput:   raw,
	}
	if ap.Body != nil && *ap.Body != "" {
		tc.Content = []sdk.ToolCallContent{sdk.ToolContent(sdk.TextBlock("```\n" + *ap.Body + "\n```"))}
	}
	return sdk.RequestPermissionRequest{
		ToolCall: tc,
		Options: []sdk.PermissionOption{
			{Kind: sdk.PermissionOptionKindAllowOnce, Name: "Allow once", OptionId: optAllowOnce},
			{Kind: sdk.PermissionOptionKindAllowAlways, Name: sessionOption(ap), OptionId: optAllowAlways},
			{Kind: sdk.PermissionOptionKindRejectOnce, Name: "Reject", OptionId: optReject},
		},
	}
}

// sessionOption names what allowing for the session covers, in plain
// words: "Don't ask again for `git push` in this session".
func sessionOption(ap protocol.ApprovalRequested) string {
	if len(ap.Prefixes) == 0 {
		return "Allow for this session"
	}
	return "Don't ask again for " + ap.Covers() + " in this session"
}

// toolArgs are the argument keys the built-in tools share.
type toolArgs struct {
	Path        string          `json:"path"`
	Cmd         string          `json:"cmd"`
	Description string          `json:"description"`
	Content     *string         `json:"content"`
	OldString   *string         `json:"old_string"`
	NewString   *string         `json:"new_string"`
	StartLine   int             `json:"start_line"`
	JobID       string          `json:"job_id"`
	Name        string          `json:"name"`
	Edits       []multiEditItem `json:"edits"`
	Pattern     string          `json:"pattern"`
	Query       string          `json:"query"`
	URL         string          `json:"url"`
}

type multiEditItem struct {
	File      string `json:"file"`
	OldString string `json:"old_string"`
	NewString string `json:"new_string"`
}

func parseArgs(args string) toolArgs {
	var a toolArgs
	_ = json.Unmarshal([]byte(args), &a) // unreadable arguments: no details
	return a
}

// rawJSON is the arguments as a JSON value for rawInput (nil when they
// do not parse).
func rawJSON(args string) any {
	if strings.TrimSpace(args) == "" {
		return nil
	}
	var v any
	if json.Unmarshal([]byte(args), &v) != nil {
		return nil
	}
	return v
}

// describe gives a tool call's title, kind and the files it touches.
func describe(name, args, workspace string) (string, sdk.ToolKind, []sdk.ToolCallLocation) {
	a := parseArgs(args)
	loc := func(p string) []sdk.ToolCallLocation {
		if p == "" {
			return nil
		}
		l := sdk.ToolCallLocation{Path: absPath(p, workspace)}
		if a.StartLine > 0 {
			l.Line = sdk.Ptr(a.StartLine)
		}
		return []sdk.ToolCallLocation{l}
	}
	switch name {
	case "read":
		return "Read " + orDefault(a.Path, "a file"), sdk.ToolKindRead, loc(a.Path)
	case "write":
		return "Write " + orDefault(a.Path, "a file"), sdk.ToolKindEdit, loc(a.Path)
	case "edit":
		return "Edit " + orDefault(a.Path, "a file"), sdk.ToolKindEdit, loc(a.Path)
	case "multi_edit":
		var locs []sdk.ToolCallLocation
		seen := map[string]bool{}
		for _, e := range a.Edits {
			if e.File != "" && !seen[e.File] {
				seen[e.File] = true
				locs = append(locs, sdk.ToolCallLocation{Path: absPath(e.File, workspace)})
			}
		}
		if len(locs) == 1 {
			return "Edit " + a.Edits[0].File, sdk.ToolKindEdit, locs
		}
		return fmt.Sprintf("Edit %d files", len(locs)), sdk.ToolKindEdit, locs
	case "remove":
		return "Remove " + orDefault(a.Path, "a file"), sdk.ToolKindDelete, loc(a.Path)
	case "shell":
		title := orDefault(a.Description, a.Cmd)
		if a.Description != "" && a.Cmd != "" {
			title = a.Description + ": " + a.Cmd
		}
		return orDefault(firstLine(title), "Run a command"), sdk.ToolKindExecute, nil
	case "job_output":
		return "Output of " + orDefault(a.JobID, "a job"), sdk.ToolKindRead, nil
	case "job_stop":
		return "Stop " + orDefault(a.JobID, "a job"), sdk.ToolKindExecute, nil
	case "plan":
		return "Update the plan", sdk.ToolKindThink, nil
	case "goal":
		return "Goal", sdk.ToolKindThink, nil
	case "finish":
		return "Finish", sdk.ToolKindOther, nil
	case "skill":
		return "Skill " + a.Name, sdk.ToolKindRead, nil
	case "agent":
		return "Sub-agent: " + orDefault(firstLine(a.Description), "task"), sdk.ToolKindOther, nil
	}
	title := name
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if server, tool, ok := strings.Cut(rest, "__"); ok {
			title = server + ": " + tool
		}
	}
	lower := strings.ToLower(name)
	switch {
	case strings.Contains(lower, "search") || strings.Contains(lower, "grep") || strings.Contains(lower, "find"):
		return title, sdk.ToolKindSearch, loc(a.Path)
	case strings.Contains(lower, "fetch") || strings.Contains(lower, "http") || a.URL != "":
		return title, sdk.ToolKindFetch, nil
	case strings.Contains(lower, "read"):
		return title, sdk.ToolKindRead, loc(a.Path)
	}
	return title, sdk.ToolKindOther, loc(a.Path)
}

// resultContent is what a finished call shows: diffs of edits rebuilt
// from the arguments (ACP wants the path and the old and new text), then
// the tool's text; a unified diff the tool reported, when there is no
// rebuilt one.
func resultContent(name, args, content string, isError bool, diff *string, workspace string) []sdk.ToolCallContent {
	var out []sdk.ToolCallContent
	if !isError {
		a := parseArgs(args)
		switch name {
		case "edit":
			if a.Path != "" && a.NewString != nil {
				out = append(out, sdk.ToolDiffContent(absPath(a.Path, workspace), *a.NewString, deref(a.OldString)))
			}
		case "write":
			if a.Path != "" && a.Content != nil {
				out = append(out, sdk.ToolDiffContent(absPath(a.Path, workspace), *a.Content))
			}
		case "multi_edit":
			for _, e := range a.Edits {
				if e.File != "" {
					out = append(out, sdk.ToolDiffContent(absPath(e.File, workspace), e.NewString, e.OldString))
				}
			}
		}
	}
	if len(out) == 0 && diff != nil && *diff != "" {
		out = append(out, sdk.ToolContent(sdk.TextBlock("```diff\n"+strings.TrimSuffix(*diff, "\n")+"\n```")))
	}
	// The footer is for the model; the call's status says failed, and a
	// non-zero exit code and what was cut are said in words.
	if body, f, ok := render.SplitFooter(content); ok {
		var words []string
		if f.Exit != "" && f.Exit != "0" {
			words = append(words, "exit code "+f.Exit)
		}
		words = append(words, f.Notes...)
		content = body
		if len(words) > 0 {
			content = strings.TrimLeft(body+"\n\n("+strings.Join(words, "; ")+")", "\n")
		}
	}
	if content != "" {
		out = append(out, sdk.ToolContent(sdk.TextBlock(content)))
	}
	return out
}

// planUpdate is the plan tool's checklist as an ACP plan.
func planUpdate(args string) (sdk.SessionUpdate, bool) {
	var p struct {
		Steps []struct {
			Step   string `json:"step"`
			Status string `json:"status"`
		} `json:"steps"`
	}
	if json.Unmarshal([]byte(args), &p) != nil {
		return sdk.SessionUpdate{}, false
	}
	entries := make([]sdk.PlanEntry, 0, len(p.Steps))
	for _, s := range p.Steps {
		status := sdk.PlanEntryStatusPending
		switch s.Status {
		case "in_progress":
			status = sdk.PlanEntryStatusInProgress
		case "completed":
			status = sdk.PlanEntryStatusCompleted
		}
		entries = append(entries, sdk.PlanEntry{Content: s.Step, Priority: sdk.PlanEntryPriorityMedium, Status: status})
	}
	return sdk.UpdatePlan(entries...), true
}

// absPath is p (as the model wrote it) made absolute under the workspace.
func absPath(p, workspace string) string {
	if filepath.IsAbs(p) {
		return filepath.Clean(p)
	}
	return filepath.Join(workspace, p)
}

func orDefault(s, def string) string {
	if strings.TrimSpace(s) == "" {
		return def
	}
	return s
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i] + " …"
	}
	return s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
