package web

import (
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// An answer that says the tests pass when none ran gets its warning on
// the page (the unverified_claim event).
func TestBrowserShowsAnUnverifiedClaim(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("Done. All tests pass."))
	url, ctx := browse(t, newHost(t, srv, nil), Options{})
	startSession(t, ctx, url)
	do(t, ctx, "send a prompt and wait for the turn",
		chromedp.SendKeys("#prompt", "fix it"), enter(),
		chromedp.WaitVisible(".msg.turn-summary"), chromedp.WaitVisible("#banners .banner.warn"))
	want := "The answer says the tests pass, but no test ran in this session."
	if got := textOf(t, ctx, "#banners .banner.warn .banner-text"); !strings.Contains(got, want) {
		t.Errorf("banner %q, want %q", got, want)
	}
}
