package web

import (
	"regexp"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

// The page's context meter follows the engine's context_health, and a
// compaction's report is a notice in the conversation, in the words the
// other faces use (render.ContextLine, render.CompactionText).
func TestBrowserContextMeterAndCompaction(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"seq 1 600"}`}),
		llmtest.Reply{Summary: true, Text: "The user asked for numbers; seq 1 600 printed them. Next: report the count."},
		llmtest.Text("There were 600 numbers."),
	)
	// The window fits the first request under the soft ceiling, and not
	// the command's output too: the turn compacts and continues.
	h := newHost(t, srv, func(o *engine.Options) { o.Window = 4500 })
	url, ctx := browse(t, h, Options{})
	startSession(t, ctx, url)
	if hidden, _ := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#context-meter").hidden`)); !hidden {
		t.Error("the meter shows before the engine reported the context")
	}
	do(t, ctx, "a turn", chromedp.SendKeys("#prompt", "count to 600"), enter(), chromedp.WaitVisible(".msg.compaction-report"),
		chromedp.Poll[chromedp.Void](`document.querySelector("#context-meter").textContent.includes("1 compaction")`))
	if got := textOf(t, ctx, ".msg.compaction-report"); !regexp.MustCompile(`^compacted events 1\.\.\d+ \(auto, 1 turn\): context \d+k? → \d+k? tokens$`).MatchString(got) {
		t.Errorf("compaction notice %q", got)
	}
	if got := textOf(t, ctx, "#context-meter"); !regexp.MustCompile(`^context \d+k?/5k · 1 compaction$`).MatchString(strings.TrimSpace(got)) {
		t.Errorf("meter %q", got)
	}
	// The viewer's timeline has the compaction's note as its own row.
	ids, _ := h.SessionInfos()
	vctx := browsers.Tab(t)
	do(t, vctx, "open the viewer", chromedp.Navigate(serve(t, h, Options{ReadOnly: true})+"/sessions/"+ids[0].ID+"#token="+testToken), chromedp.WaitVisible("#timeline"))
	if tl := textOf(t, vctx, "#timeline"); !strings.Contains(tl, "compaction") || !strings.Contains(tl, "auto: summarised events 1..") {
		t.Errorf("the timeline lacks the compaction note:\n%s", tl)
	}
}
