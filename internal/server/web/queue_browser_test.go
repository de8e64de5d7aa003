package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

// Tab while a turn runs queues the message for after it, as in the
// terminal UI: it shows as queued and removable (× or Backspace in the
// empty box), the first runs as the next prompt when the turn ends and
// the rest wait for the turn it starts; after an interrupt the queue goes
// back into the input instead. Screenshots of the queued state at a
// desktop's and a phone's width are kept (-screenshots DIR).
func TestBrowserQueue(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "q1", Name: "shell", Args: `{"cmd":"touch one"}`}),
		llmtest.Text("first done"),
		llmtest.Text("second done"),
		llmtest.Text("third done"),
		llmtest.Calls(llmtest.Call{ID: "q2", Name: "shell", Args: `{"cmd":"touch two"}`}),
		llmtest.Text("never reached"),
	)
	// Prompts are sent with the button: chromedp's Enter also types a
	// line break after the handler cleared the box, which Tab would queue.
	// Approval "ask" holds each turn at its command until the test
	// answers, so the queue is filled while the turn runs.
	h := newHost(t, srv, func(o *engine.Options) { o.Approval = "ask" })
	url, ctx := browse(t, h, Options{})
	startSession(t, ctx, url)
	if !evalBool(t, ctx, `document.querySelector("#enqueue").hidden`) {
		t.Error("the Queue button shows with no turn running")
	}
	do(t, ctx, "a turn that waits", chromedp.SendKeys("#prompt", "touch one"), chromedp.Click("#send"), chromedp.WaitVisible(".card.approval button.approve"))
	do(t, ctx, "queue three", chromedp.SendKeys("#prompt", "then two"+kb.Tab), chromedp.SendKeys("#prompt", "and three"+kb.Tab),
		chromedp.SendKeys("#prompt", "drop me"), chromedp.Click("#enqueue"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#queue li").length === 3`))
	if got := evalString(t, ctx, `[...document.querySelectorAll("#queue li")].map(li => li.textContent).join("|")`); got != "queuedthen two×|queuedand three×|queueddrop me×" {
		t.Errorf("queue %q", got)
	}
	if v := evalString(t, ctx, `document.querySelector("#prompt").value`); v != "" {
		t.Errorf("the input keeps %q after queueing", v)
	}
	for _, size := range pageSizes {
		do(t, ctx, "resize", chromedp.EmulateViewport(size.w, size.h), chromedp.WaitVisible("#queue"))
		if wide, _ := chromedp.Run(ctx, chromedp.Evaluate[int](`document.scrollingElement.scrollWidth`)); int64(wide) > size.w {
			t.Errorf("%s: the page is %dpx wide", size.name, wide)
		}
		viewportShot(t, ctx, "queue-"+size.name+".png")
	}
	do(t, ctx, "remove the last", chromedp.Click("#queue li:last-child button.remove"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#queue li").length === 2`))
	// Backspace in the empty box takes the last one back to edit.
	do(t, ctx, "take one back", chromedp.Focus("#prompt"), chromedp.KeyEvent(kb.Backspace),
		chromedp.Poll[chromedp.Void](`document.querySelector("#prompt").value === "and three" && document.querySelectorAll("#queue li").length === 1`))
	do(t, ctx, "queue it again", chromedp.KeyEvent(kb.Tab), chromedp.Poll[chromedp.Void](`document.querySelectorAll("#queue li").length === 2`))

	// The turn ends: the queue runs, one turn each, in order.
	do(t, ctx, "approve", chromedp.Click(".card.approval button.approve"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll(".msg.turn-summary").length === 3 && document.querySelector("#chat").dataset.busy === "false"`))
	if got := evalString(t, ctx, `[...document.querySelectorAll(".msg.user .text")].map(e => e.textContent).join("|")`); got != "touch one|then two|and three" {
		t.Errorf("prompts sent %q", got)
	}
	if chat := textOf(t, ctx, "#log"); !strings.Contains(chat, "second done") || !strings.Contains(chat, "third done") || strings.Contains(chat, "drop me") {
		t.Errorf("the conversation after the queue ran:\n%s", chat)
	}
	if !evalBool(t, ctx, `document.querySelector("#queue").hidden && document.querySelector("#enqueue").hidden`) {
		t.Error("the queue or its button shows after it ran")
	}

	// Interrupted: nothing is sent unasked; the queue is back in the input.
	do(t, ctx, "another turn that waits", chromedp.SendKeys("#prompt", "touch two"), chromedp.Click("#send"), chromedp.WaitVisible(".card.approval:not(.resolved) button.approve"))
	do(t, ctx, "queue and interrupt", chromedp.SendKeys("#prompt", "later"+kb.Tab), chromedp.SendKeys("#prompt", "draft"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll("#queue li").length === 1`),
		chromedp.KeyEvent(kb.Escape),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll(".msg.turn-summary").length === 4`),
		chromedp.Poll[chromedp.Void](`document.querySelector("#prompt").value === "later\n\ndraft"`))
	if !evalBool(t, ctx, `document.querySelector("#queue").hidden`) {
		t.Error("the queue still shows after the interrupt")
	}
	if got := evalString(t, ctx, `[...document.querySelectorAll(".msg.user .text")].map(e => e.textContent).join("|")`); strings.Contains(got, "later") {
		t.Errorf("a queued message was sent after the interrupt: %q", got)
	}
	if !strings.Contains(textOf(t, ctx, "#log"), "the queued messages are back in the input") {
		t.Error("the page does not say where the queue went")
	}
}
