package web

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

func standaloneSession() *session.Session {
	return &session.Session{ID: "shared", Events: []session.Event{
		{Sequence: 1, TS: 1700000000000, Item: &session.User{Content: protocol.Text("list the <files>")}},
		{Sequence: 2, Item: &session.Assistant{ToolCalls: []chat.ToolCall{{ID: "c1", Name: "shell", Arguments: `{"cmd":"ls"}`}}, Usage: &protocol.Usage{PromptTokens: 10}}},
		{Sequence: 3, Item: &session.ToolResult{ToolCallID: "c1", ToolName: "shell", Content: protocol.Text("a.go\n<system>exit=0</system>")}},
		{Sequence: 4, Item: &session.Assistant{Content: "There is **one** file."}},
		{Sequence: 5, Item: &session.Terminal{Kind: session.Finished, Message: "There is **one** file."}},
	}}
}

func TestStandalonePageIsSelfContained(t *testing.T) {
	var b strings.Builder
	if err := Standalone(&b, standaloneSession()); err != nil {
		t.Fatal(err)
	}
	page := b.String()
	for _, want := range []string{"<style>", ".card {", "<script>", "list the &lt;files&gt;", "There is <strong>one</strong> file.", `id="tool-c1"`, `id="timeline"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %q", want)
		}
	}
	for _, external := range []string{"/static/", "<link", " src=", "http://", "https://"} {
		if strings.Contains(page, external) {
			t.Errorf("the page refers to %q", external)
		}
	}
}

// TestStandalonePageInBrowser opens the exported page from a file: it
// shows the session, styled, and fetches nothing.
func TestStandalonePageInBrowser(t *testing.T) {
	ctx := browser(t)
	file := filepath.Join(t.TempDir(), "shared.html")
	var b strings.Builder
	if err := Standalone(&b, standaloneSession()); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(file, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	do(t, ctx, "open the file", chromedp.Navigate("file://"+file), chromedp.WaitVisible("#tool-c1"))
	if got := textOf(t, ctx, ".msg.assistant .answer"); !strings.Contains(got, "There is one file.") {
		t.Errorf("answer %q", got)
	}
	state, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[getComputedStyle(document.querySelector("header.top")).display, performance.getEntriesByType("resource").length].join(" ")`))
	if err != nil || state != "flex 0" {
		t.Errorf("style and requests: %q %v; want the inline style applied and no resource fetched", state, err)
	}
}
