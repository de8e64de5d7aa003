package export

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

func TestMarkdown(t *testing.T) {
	cost := 0.0125
	reasoning := "think"
	long := strings.Repeat("line\n", 100)
	s := &session.Session{ID: "x", Events: []session.Event{
		{Sequence: 1, TS: 1700000000000, Item: &session.User{Content: protocol.Text("fix it\nplease")}},
		{Sequence: 2, Item: &session.Assistant{Reasoning: &reasoning, ToolCalls: []chat.ToolCall{
			{ID: "a", Name: "write", Arguments: `{"path":"a.md","content":"has ` + "```" + ` fences\nand lines\n"}`},
			{ID: "b", Name: "shell", Arguments: `{"cmd":"a \u0026\u0026 b","timeout":5}`},
			{ID: "c", Name: "odd", Arguments: `not json`},
		}, Usage: &protocol.Usage{PromptTokens: 100, CompletionTokens: 10}, CostUSD: &cost}},
		{Sequence: 3, Item: &session.ToolResult{ToolCallID: "b", ToolName: "shell", Content: protocol.Text(long + "<system>exit=2</system>"), IsError: true}},
		{Sequence: 4, Item: &session.Notice{Content: session.SnapshotMarker("abc")}},
		{Sequence: 5, Item: &session.Assistant{Content: "done", IsReplay: false}},
		{Sequence: 6, Item: &session.Assistant{Content: "done", IsReplay: true}},
		{Sequence: 7, Item: &session.Terminal{Kind: session.Failed, Message: "the model\nfailed"}},
	}}
	var b strings.Builder
	if err := Markdown(&b, s); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"**Prompt** · 2023-11-14 22:13:20 UTC\n\n> fix it\n> please",
		"<details><summary>reasoning</summary>\n\nthink",
		"  ````\n  has ``` fences\n  and lines\n  ````", // a longer fence than the content's
		"- `cmd`: `a && b`\n- `timeout`: `5`",
		"**Tool call** `odd`\n\n```json\nnot json\n```",
		"Error of `shell`:",
		"(exit 2)",
		"… (60 more lines",
		"_Turn ended: failed: the model failed._",
		"tokens: 100 in (0% cache hits), 10 out · cost $0.0125",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("missing %q", want)
		}
	}
	if n := strings.Count(md, "**Answer**"); n != 1 {
		t.Errorf("%d answers, want 1 (the checkpoint copy is not an answer)", n)
	}
	if strings.Contains(md, "snapshot") {
		t.Error("the snapshot marker is shown")
	}
	if t.Failed() {
		fmt.Println(md)
	}
}
