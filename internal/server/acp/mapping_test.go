package acp

import (
	"encoding/base64"
	"strings"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

func TestDescribe(t *testing.T) {
	ws := "/ws"
	tests := []struct {
		name, args string
		title      string
		kind       sdk.ToolKind
		loc        string
	}{
		{"read", `{"path":"src/a.go","start_line":10}`, "Read src/a.go", sdk.ToolKindRead, "/ws/src/a.go"},
		{"edit", `{"path":"/ws/b.go","old_string":"x","new_string":"y"}`, "Edit /ws/b.go", sdk.ToolKindEdit, "/ws/b.go"},
		{"write", `{"path":"new.md","content":"hi"}`, "Write new.md", sdk.ToolKindEdit, "/ws/new.md"},
		{"multi_edit", `{"edits":[{"file":"a","old_string":"1","new_string":"2"},{"file":"b","old_string":"1","new_string":"2"}]}`, "Edit 2 files", sdk.ToolKindEdit, "/ws/a"},
		{"remove", `{"path":"tmp.txt","reason":"scratch"}`, "Remove tmp.txt", sdk.ToolKindDelete, "/ws/tmp.txt"},
		{"shell", `{"cmd":"go test ./...","description":"run the tests"}`, "run the tests: go test ./...", sdk.ToolKindExecute, ""},
		{"shell", `{"cmd":"ls\nrm x"}`, "ls …", sdk.ToolKindExecute, ""},
		{"job_output", `{"job_id":"bg-3"}`, "Output of bg-3", sdk.ToolKindRead, ""},
		{"plan", `{"steps":[]}`, "Update the plan", sdk.ToolKindThink, ""},
		{"mcp__web__fetch_page", `{"url":"https://x"}`, "web: fetch_page", sdk.ToolKindFetch, ""},
		{"mcp__code__search", `{"query":"x"}`, "code: search", sdk.ToolKindSearch, ""},
		{"mcp__db__query", `not json`, "db: query", sdk.ToolKindOther, ""},
	}
	for _, tc := range tests {
		title, kind, locs := describe(tc.name, tc.args, ws)
		loc := ""
		if len(locs) > 0 {
			loc = locs[0].Path
		}
		if title != tc.title || kind != tc.kind || loc != tc.loc {
			t.Errorf("%s %s: got %q %q %q, want %q %q %q", tc.name, tc.args, title, kind, loc, tc.title, tc.kind, tc.loc)
		}
	}
}

func TestResultContent(t *testing.T) {
	unified := "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"
	tests := []struct {
		name, tool, args string
		isError          bool
		diff             *string
		want             string // kinds and details of the blocks
	}{
		{"edit", "edit", `{"path":"x","old_string":"a","new_string":"b"}`, false, nil, "diff:/ws/x:a>b text"},
		{"failed edit", "edit", `{"path":"x","old_string":"a","new_string":"b"}`, true, nil, "text"},
		{"write", "write", `{"path":"n","content":"new"}`, false, nil, "diff:/ws/n:<nil>>new text"},
		{"multi", "multi_edit", `{"edits":[{"file":"p","old_string":"1","new_string":"2"},{"file":"q","old_string":"3","new_string":"4"}]}`, false, nil, "diff:/ws/p:1>2 diff:/ws/q:3>4 text"},
		{"unified only", "mcp__x__patch", `{}`, false, &unified, "text:```diff text"},
		{"shell", "shell", `{"cmd":"ls"}`, false, nil, "text"},
	}
	for _, tc := range tests {
		var got []string
		for _, c := range resultContent(tc.tool, tc.args, "result text", tc.isError, tc.diff, "/ws") {
			switch {
			case c.Diff != nil:
				old := "<nil>"
				if c.Diff.OldText != nil {
					old = *c.Diff.OldText
				}
				got = append(got, "diff:"+c.Diff.Path+":"+old+">"+c.Diff.NewText)
			case c.Content != nil && strings.HasPrefix(c.Content.Content.Text.Text, "```diff"):
				got = append(got, "text:```diff")
			case c.Content != nil:
				got = append(got, "text")
			}
		}
		if strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, strings.Join(got, " "), tc.want)
		}
	}
}

// A shell result's footer is for the model: the editor gets the output,
// and a failed exit code and what was cut in words.
func TestResultContentFooter(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"hello\n<system>exit=0</system>", "hello"},
		{"FAIL\n<system>exit=2</system>", "FAIL\n\n(exit code 2)"},
		{"a\n[… 9 characters omitted …]\nb\n<system>exit=0 truncated=true shown_chars=10 total_chars=19</system>", "a\n[… 9 characters omitted …]\nb\n\n(output cut: 10 of 19 characters shown)"},
		{"<system>exit=1</system>", "(exit code 1)"},
		{"no footer <system>x</system> here", "no footer <system>x</system> here"},
	} {
		blocks := resultContent("shell", `{"cmd":"make"}`, c.in, false, nil, "/ws")
		if len(blocks) != 1 || blocks[0].Content == nil || blocks[0].Content.Content.Text.Text != c.want {
			t.Errorf("%q: %+v, want %q", c.in, blocks, c.want)
		}
	}
	if blocks := resultContent("shell", `{"cmd":"true"}`, "<system>exit=0</system>", false, nil, "/ws"); len(blocks) != 0 {
		t.Errorf("a quiet success shows %+v", blocks)
	}
}

func TestStopReason(t *testing.T) {
	tests := []struct {
		kind   session.TerminalKind
		reason sdk.StopReason
		failed bool
	}{
		{session.Finished, sdk.StopReasonEndTurn, false},
		{session.Aborted, sdk.StopReasonCancelled, false},
		{session.Interrupted, sdk.StopReasonCancelled, false},
		{session.MaxStepsExhausted, sdk.StopReasonMaxTurnRequests, false},
		{session.ContextYield, sdk.StopReasonMaxTokens, false},
		{session.Failed, "", true},
	}
	for _, tc := range tests {
		if r, f := StopReason(tc.kind); r != tc.reason || f != tc.failed {
			t.Errorf("%s: %q %v, want %q %v", tc.kind, r, f, tc.reason, tc.failed)
		}
	}
}

func TestPromptContent(t *testing.T) {
	png := []byte{0x89, 'P', 'N', 'G'}
	mime := "image/png"
	tests := []struct {
		name    string
		blocks  []sdk.ContentBlock
		want    string // parts as type:text
		wantErr string
	}{
		{"text", []sdk.ContentBlock{sdk.TextBlock("hi")}, "text:hi", ""},
		{"texts merge", []sdk.ContentBlock{sdk.TextBlock("a"), sdk.TextBlock("b")}, "text:a\nb", ""},
		{"image", []sdk.ContentBlock{sdk.TextBlock("see"), sdk.ImageBlock(base64.StdEncoding.EncodeToString(png), "image/png")}, "text:see image:image/png", ""},
		{"embedded file", []sdk.ContentBlock{sdk.ResourceBlock(sdk.EmbeddedResourceResource{TextResourceContents: &sdk.TextResourceContents{Uri: "file:///ws/a.go", Text: "package a"}})},
			"text:<context uri=\"file:///ws/a.go\">\npackage a\n</context>", ""},
		{"embedded image", []sdk.ContentBlock{sdk.ResourceBlock(sdk.EmbeddedResourceResource{BlobResourceContents: &sdk.BlobResourceContents{Uri: "file:///i.png", Blob: base64.StdEncoding.EncodeToString(png), MimeType: &mime}})}, "image:image/png", ""},
		{"link", []sdk.ContentBlock{sdk.ResourceLinkBlock("a.go", "file:///ws/a.go")}, `text:<resource name="a.go" uri="file:///ws/a.go"/>`, ""},
		{"audio", []sdk.ContentBlock{sdk.AudioBlock("AAAA", "audio/wav")}, "", "audio"},
		{"bad image", []sdk.ContentBlock{sdk.ImageBlock("%%%", "image/png")}, "", "base64"},
		{"empty", nil, "", "empty"},
	}
	for _, tc := range tests {
		c, err := PromptContent(tc.blocks)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("%s: error %v, want %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		var got []string
		for _, p := range c {
			if p.Type == "image" {
				got = append(got, "image:"+p.MediaType)
				if string(p.Data) != string(png) {
					t.Errorf("%s: image bytes %v", tc.name, p.Data)
				}
				continue
			}
			got = append(got, "text:"+p.Text)
		}
		if err != nil || strings.Join(got, " ") != tc.want {
			t.Errorf("%s: %q %v, want %q", tc.name, strings.Join(got, " "), err, tc.want)
		}
	}
}

// Deltas stream; the whole message after them is not sent twice, but a
// message that came without deltas is; warnings show as thoughts; a
// result for a call never announced announces it first.
func TestTranslate(t *testing.T) {
	tr := newTranslator("/ws")
	var got []string
	for _, ev := range []protocol.Event{
		protocol.AssistantDelta{Content: "he"}, protocol.AssistantDelta{Content: "llo"}, protocol.AssistantMessage{Content: "hello"},
		protocol.AssistantMessage{Content: "whole"},
		protocol.ReasoningMessage{Content: "why"},
		protocol.StreamRetry{Attempt: 1, MaxAttempts: 3, Reason: "HTTP 503"},
		protocol.StreamRetry{Attempt: 1, MaxAttempts: 3, Reason: "HTTP 503"}, // the same warning shows once
		protocol.ToolResult{ToolCallID: "x", ToolName: "nope", IsError: true, Content: "error: there is no tool named \"nope\""},
		protocol.UsageEvent{},
	} {
		for _, u := range tr.translate(ev) {
			switch {
			case u.AgentMessageChunk != nil:
				got = append(got, "message:"+u.AgentMessageChunk.Content.Text.Text)
			case u.AgentThoughtChunk != nil:
				got = append(got, "thought")
			case u.ToolCall != nil:
				got = append(got, "tool_call:"+string(u.ToolCall.ToolCallId))
			case u.ToolCallUpdate != nil:
				got = append(got, "update:"+string(*u.ToolCallUpdate.Status))
			}
		}
	}
	want := "message:he message:llo message:whole thought message:\n\n> model request failed (HTTP 503); retry 1 of 2\n\n tool_call:x update:failed"
	if strings.Join(got, " ") != want {
		t.Errorf("got  %s\nwant %s", strings.Join(got, " "), want)
	}
}

// An approval names the running call of its tool.
func TestPermissionNamesTheCall(t *testing.T) {
	tr := newTranslator("/ws")
	tr.translate(protocol.ToolStarted{ToolCallID: "c1", ToolName: "shell", Arguments: `{"cmd":"make"}`})
	body := "make"
	req := tr.permission(protocol.ApprovalRequested{ID: "ap-1", ToolName: "shell", Detail: "run make", Body: &body})
	if req.ToolCall.ToolCallId != "c1" || *req.ToolCall.Title != "run make" || *req.ToolCall.Kind != sdk.ToolKindExecute || len(req.ToolCall.Content) != 1 {
		t.Errorf("request %+v", req.ToolCall)
	}
	kinds := []sdk.PermissionOptionKind{}
	for _, o := range req.Options {
		kinds = append(kinds, o.Kind)
	}
	if len(kinds) != 3 || kinds[0] != sdk.PermissionOptionKindAllowOnce || kinds[1] != sdk.PermissionOptionKindAllowAlways || kinds[2] != sdk.PermissionOptionKindRejectOnce {
		t.Errorf("options %v", kinds)
	}
	other := tr.permission(protocol.ApprovalRequested{ID: "ap-2", ToolName: "write", Detail: "write .env"})
	if other.ToolCall.ToolCallId != "approval-ap-2" {
		t.Errorf("an approval with no running call named %q", other.ToolCall.ToolCallId)
	}
}
