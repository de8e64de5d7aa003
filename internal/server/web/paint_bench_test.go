package web

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

// bigSession writes a session "big" of about n events into h's store:
// prompts, Markdown answers with code, and edits with their diffs.
func bigSession(t testing.TB, h *engine.Host, n int) {
	var log strings.Builder
	log.WriteString(`{"version":1,"id":"big","system_prompt":"s"}` + "\n")
	seq := 0
	line := func(item string) {
		seq++
		fmt.Fprintf(&log, `{"sequence":%d,"ts":%d,"item":%s}`+"\n", seq, 1758700001000+int64(seq)*700, item)
	}
	str := func(s string) string { b, _ := json.Marshal(s); return string(b) }
	for i := 0; seq < n; i++ {
		line(`{"kind":"user","payload":{"content":` + str(fmt.Sprintf("step %d: rename the greeting", i)) + `}}`)
		args := str(fmt.Sprintf(`{"path":"hello%d.go","old_string":"hi","new_string":"hello"}`, i))
		line(`{"kind":"assistant","payload":{"content":` + str(fmt.Sprintf("I will **rename** it in `hello%d.go`:\n\n```go\nfmt.Println(\"hello\")\n```\n\n- one\n- two", i)) +
			`,"tool_calls":[{"id":"c` + fmt.Sprint(i) + `","name":"edit","arguments":` + args + `}],"usage":{"prompt_tokens":1000,"completion_tokens":20,"total_tokens":1020,"prompt_cache_hit_tokens":900,"prompt_cache_miss_tokens":100}}}`)
		diff := fmt.Sprintf("--- a/hello%d.go\n+++ b/hello%d.go\n@@ -3,3 +3,3 @@\n func main() {\n-\tprintln(\"hi\") // old\n+\tprintln(\"hello\") // new\n }\n", i, i)
		line(`{"kind":"tool_result","payload":{"tool_call_id":"c` + fmt.Sprint(i) + `","tool_name":"edit","content":"ok: replaced 1 occurrence","is_error":false,"data":{"diff":` + str(diff) + `}}}`)
	}
	dir := filepath.Join(h.SessionRoot(), "sessions", "big")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "openseek_session-big.jsonl"), []byte(log.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// benchHost is a host whose store holds the session "big" of n events.
func benchHost(b *testing.B, n int) *engine.Host {
	h, err := engine.NewHost(context.Background(), engine.Options{Dir: b.TempDir(), Home: b.TempDir(), Model: "test-model", APIURL: llmtest.NewServer(b).URL(),
		NoSandbox: true, Getenv: func(string) string { return "" }})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { h.Close() })
	bigSession(b, h, n)
	return h
}

// BenchmarkSessionPage5000 renders the session page of a 5,000-event
// session on the server.
func BenchmarkSessionPage5000(b *testing.B) { benchPage(b, 5000, Options{}) }

// benchPage renders the page of an n-event session with o.
func benchPage(b *testing.B, n int, o Options) {
	hd := New(benchHost(b, n), o)
	b.ResetTimer()
	for b.Loop() {
		rec := httptest.NewRecorder()
		hd.ServeHTTP(rec, httptest.NewRequest("GET", "/sessions/big", nil))
		if rec.Code != 200 {
			b.Fatal(rec.Code)
		}
		b.SetBytes(int64(rec.Body.Len()))
	}
}

// BenchmarkSessionPagePaint5000 opens that page in Chromium, as a person
// does (the shell, then the page with the token), and reports the time
// from navigation to the first frame painted with the conversation in it.
func BenchmarkSessionPagePaint5000(b *testing.B) {
	h := benchHost(b, 5000)
	srv := httptest.NewServer(apiServer(h, Options{}))
	b.Cleanup(srv.Close)
	url := srv.URL
	ctx := browsers.Tab(b)
	var total time.Duration
	b.ResetTimer()
	for b.Loop() {
		if err := chromedp.Do(ctx, chromedp.Navigate(url+"/sessions/big#token="+testToken), chromedp.WaitReady("#log")); err != nil {
			b.Fatal(err)
		}
		ms, err := chromedp.Run(ctx, chromedp.Evaluate[float64](`new Promise(r => requestAnimationFrame(() => requestAnimationFrame(() => r(performance.now()))))`, chromedp.EvalAwaitPromise))
		if err != nil {
			b.Fatal(err)
		}
		total += time.Duration(ms * float64(time.Millisecond))
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "ms-to-paint")
}
