package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// The calls a script made show as cards inside the script's card, with
// their arguments and results, the failed one marked as an error.
func TestChatPageNestsAScriptsCalls(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "s1", Name: "script", Args: `{"code":"print(glob(pattern='*.none'))\nr = read(path='missing.txt', check=False)\nprint(r.ok)"}`}),
		llmtest.Text("done"),
	)
	h := newHost(t, srv, nil)
	s := turn(t, h, "", "look")
	doc := page(t, New(h, Options{}), "/sessions/"+s.ID(), 200)
	box := one(t, one(t, doc, "#tool-s1"), ".children")
	glob, read := one(t, box, "#tool-s1.1"), one(t, box, "#tool-s1.2")
	if got := text(glob); !strings.Contains(got, "glob") || !strings.Contains(got, "pattern: *.none") {
		t.Errorf("the glob card: %s", rendered(glob))
	}
	if !strings.Contains(attr(read, "class"), "error") || !strings.Contains(text(read), "path: missing.txt") {
		t.Errorf("the failed read card: %s", rendered(read))
	}
	if len(all(doc, ".children")) != 1 {
		t.Errorf("%d nested boxes, want 1", len(all(doc, ".children")))
	}
	// The viewer's timeline says whose calls they were.
	var rows []string
	for _, r := range all(one(t, page(t, New(h, Options{ReadOnly: true}), "/sessions/"+s.ID(), 200), "#timeline"), "tr") {
		if strings.Contains(text(r), "↳") {
			rows = append(rows, text(r))
		}
	}
	if len(rows) != 2 || !strings.Contains(rows[0], "↳ s1 · glob: ") || !strings.Contains(rows[1], "↳ s1 · error · read: ") {
		t.Errorf("timeline rows of the script's calls: %q", rows)
	}
}

// In the browser, a script's calls go inside its card as they run, and
// the page rebuilt from the log after a reload nests them the same way.
func TestBrowserNestsAScriptsCalls(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "s1", Name: "script", Args: `{"code":"print(glob(pattern='*.none'))\nprint(list())"}`}),
		llmtest.Text("done"),
	)
	h := newHost(t, srv, nil)
	url, ctx := browse(t, h, Options{})
	startSession(t, ctx, url)
	do(t, ctx, "send a prompt", chromedp.SendKeys("#prompt", "look"), enter(), chromedp.WaitVisible(".msg.turn-summary"))
	nested := func(when string) {
		t.Helper()
		got, err := chromedp.Run(ctx, chromedp.Evaluate[string](`[...document.querySelectorAll(".card.tool")].map(c =>
			(c.parentElement.closest(".card.tool")?.dataset.toolCall || "") + ">" + c.dataset.toolCall + (c.classList.contains("done") ? " done" : "")).join(", ")`))
		if err != nil {
			t.Fatal(err)
		}
		if want := ">s1 done, s1>s1.1 done, s1>s1.2 done"; got != want {
			t.Errorf("%s: cards %q, want %q", when, got, want)
		}
	}
	nested("live")
	do(t, ctx, "reload", chromedp.Reload(), chromedp.WaitVisible(".card.tool.done"))
	nested("after a reload")
}
