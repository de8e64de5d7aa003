package web

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// The answer to a prompt's POST and the turn it starts travel on two
// connections: on a busy machine the page may read the whole turn, to
// its summary, before the POST's answer. The page then is idle (not
// "working…" for ever, with Cancel showing and the queue stuck), each
// prompt shows above its answer, and a queued message still runs after
// the turn before it. The test server holds each prompt's answer until
// its turn has ended, so the late answer comes every time.
func TestBrowserPromptAnsweredLate(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Text("quick answer"),
		llmtest.Calls(llmtest.Call{ID: "l1", Name: "shell", Args: `{"cmd":"touch one"}`}),
		llmtest.Text("first done"),
		llmtest.Text("second done"),
	)
	h := newHost(t, srv, func(o *engine.Options) { o.Approval = "ask" })
	var hold atomic.Bool
	ts := httptest.NewServer(lateAnswers(h, apiServer(h, Options{}), &hold))
	t.Cleanup(ts.Close)
	ctx := browser(t)
	startSession(t, ctx, ts.URL)
	idle := `document.querySelector("#chat").dataset.busy === "false" && document.querySelector("#state").textContent === "idle" && document.querySelector("#cancel").hidden`
	// answered: no prompt or steer of the page waits for its POST's answer.
	answered := `document.querySelector("#chat").dataset.sending === "0"`

	hold.Store(true)
	do(t, ctx, "a prompt answered after its turn", chromedp.SendKeys("#prompt", "be quick"), chromedp.Click("#send"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll(".msg.turn-summary").length === 1 && `+answered))
	if !evalBool(t, ctx, idle) {
		t.Errorf("the page is busy after its turn ended: %s", browserState(t, ctx))
	}
	if got := evalString(t, ctx, `[...document.querySelectorAll("#log > .msg")].map(m => m.classList[1]).join(" ")`); got != "user assistant turn-summary" {
		t.Errorf("the log's order %q, want the prompt above its answer", got)
	}

	// A queued message whose POST is answered after its turn.
	hold.Store(false)
	do(t, ctx, "a turn that waits", chromedp.SendKeys("#prompt", "touch one"), chromedp.Click("#send"),
		chromedp.WaitVisible(".card.approval:not(.resolved) button.approve"), chromedp.Poll[chromedp.Void](answered))
	do(t, ctx, "queue one", chromedp.SendKeys("#prompt", "then two"+kb.Tab), chromedp.Poll[chromedp.Void](`document.querySelectorAll("#queue li").length === 1`))
	hold.Store(true)
	do(t, ctx, "approve", chromedp.Click(".card.approval:not(.resolved) button.approve"),
		chromedp.Poll[chromedp.Void](`document.querySelectorAll(".msg.turn-summary").length === 3 && document.querySelector("#queue").hidden && `+answered))
	if !evalBool(t, ctx, idle) {
		t.Errorf("the page is busy after the queued turn ended: %s", browserState(t, ctx))
	}
	if got := evalString(t, ctx, `[...document.querySelectorAll(".msg.user .text")].map(e => e.textContent).join("|")`); got != "be quick|touch one|then two" {
		t.Errorf("prompts shown %q", got)
	}
	if got := evalString(t, ctx, `[...document.querySelectorAll("#log > .msg")].map(m => m.classList[1]).join(" ")`); !strings.HasSuffix(got, "turn-summary user assistant turn-summary") {
		t.Errorf("the log's order %q, want the queued prompt above its answer", got)
	}
}

// A prompt the server refuses leaves the page as it was: its message
// (shown while it was sent) is gone, the page is idle and the text is
// still in the box, and a banner says why.
func TestBrowserPromptRefused(t *testing.T) {
	h := newHost(t, llmtest.NewServer(t), nil)
	url, ctx := browse(t, h, Options{})
	startSession(t, ctx, url)
	h.Close()
	do(t, ctx, "a prompt to a closed host", chromedp.SendKeys("#prompt", "too late"), chromedp.Click("#send"),
		chromedp.WaitVisible(".banner.error"), chromedp.Poll[chromedp.Void](`document.querySelector("#chat").dataset.sending === "0"`))
	if got := textOf(t, ctx, ".banner.error .banner-text"); !strings.Contains(got, "Your prompt was not sent") {
		t.Errorf("banner %q", got)
	}
	if n := evalString(t, ctx, `String(document.querySelectorAll(".msg.user").length)`); n != "0" {
		t.Errorf("%s user messages after the refusal, want none", n)
	}
	if !evalBool(t, ctx, `document.querySelector("#chat").dataset.busy === "false" && document.querySelector("#prompt").value === "too late"`) {
		t.Errorf("after the refusal: %s", browserState(t, ctx))
	}
}

// lateAnswers holds the answer to each prompt's POST, while hold is set,
// until the session's stream has a turn_summary after the prompt was
// taken: the order a busy machine produces now and then.
func lateAnswers(h *engine.Host, next http.Handler, hold *atomic.Bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		parts := strings.Split(r.URL.Path, "/") // "", v1, sessions, id, commands
		if !hold.Load() || r.Method != http.MethodPost || len(parts) != 5 || parts[4] != "commands" {
			next.ServeHTTP(w, r)
			return
		}
		body, _ := io.ReadAll(r.Body)
		r.Body = io.NopCloser(bytes.NewReader(body))
		s, open := h.Get(parts[3])
		if cmd, err := protocol.ParseCommand(body); err != nil || !open {
			next.ServeHTTP(w, r)
			return
		} else if _, prompt := cmd.(protocol.PromptCmd); !prompt {
			next.ServeHTTP(w, r)
			return
		}
		sub := s.Subscribe(s.Hub().Head())
		defer sub.Close()
		rec := httptest.NewRecorder()
		next.ServeHTTP(rec, r)
		ctx, cancel := context.WithTimeout(r.Context(), 30*time.Second)
		defer cancel()
	wait:
		for rec.Code == http.StatusAccepted {
			batch, err := sub.Next(ctx, 0)
			if err != nil {
				break
			}
			for _, e := range batch {
				if _, end := e.Event.(protocol.TurnSummary); end {
					break wait
				}
			}
		}
		for k, v := range rec.Header() {
			w.Header()[k] = v
		}
		w.WriteHeader(rec.Code)
		w.Write(rec.Body.Bytes())
	})
}

// browserState is what the page shows, for a failure's message.
func browserState(t *testing.T, ctx context.Context) string {
	t.Helper()
	return evalString(t, ctx, `JSON.stringify({busy: document.querySelector("#chat")?.dataset.busy, state: document.querySelector("#state")?.textContent,
		log: [...document.querySelectorAll("#log > *")].map(m => m.className + ": " + m.textContent.slice(0, 60))})`)
}
