package llm_test

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/llm/openai"
	"github.com/openseek/openseek/protocol"
)

func hello() llm.Request {
	return llm.Request{Model: "ignored", Messages: []chat.Message{{Role: chat.User, Content: protocol.Text("hi")}}}
}

// candidate is a real OpenAI-compatible client on a scripted server.
func candidate(t *testing.T, name string, turns ...llmtest.Turn) (llm.Candidate, *llmtest.Server) {
	srv := llmtest.NewServer(t, turns...)
	client := openai.New(openai.Config{URL: srv.URL(), IdleTimeout: 2 * time.Second})
	_, model, _ := strings.Cut(name, "/")
	return llm.Candidate{Name: name, Provider: llm.BindModel(client, model)}, srv
}

// deltas records what a Stream reported.
type deltas struct {
	mu      sync.Mutex
	text    string
	retries []llm.Delta
}

func (d *deltas) on(x llm.Delta) {
	d.mu.Lock()
	defer d.mu.Unlock()
	switch x.Kind {
	case llm.TextDelta:
		d.text += x.Text
	case llm.Retry:
		d.retries = append(d.retries, x)
	}
}

var quick = llm.RetryPolicy{Attempts: 4, Base: time.Millisecond, Max: 2 * time.Millisecond}

func TestFailoverBeforeFirstToken(t *testing.T) {
	a, sa := candidate(t, "deepseek/deepseek-v4-flash", llmtest.Fail{Status: 503})
	b, sb := candidate(t, "kimi/kimi-k2.7-code", llmtest.Text("from kimi"))
	var d deltas
	resp, err := llm.Failover([]llm.Candidate{a, b}, llm.FailoverOptions{Retry: quick}).Stream(context.Background(), hello(), d.on)
	if err != nil {
		t.Fatal(err)
	}
	if resp.Model != "kimi/kimi-k2.7-code" || resp.Content != "from kimi" || d.text != "from kimi" {
		t.Errorf("resp = %+v, streamed %q", resp, d.text)
	}
	if len(d.retries) != 1 {
		t.Fatalf("retries = %+v, want one", d.retries)
	}
	r := d.retries[0]
	if r.Attempt != 2 || r.MaxAttempts != 4 || !strings.Contains(r.Reason, "deepseek/deepseek-v4-flash failed") ||
		!strings.Contains(r.Reason, "HTTP 503") || !strings.HasSuffix(r.Reason, "trying kimi/kimi-k2.7-code") {
		t.Errorf("retry delta = %+v", r)
	}
	if got := sa.Requests()[0].Model; got != "deepseek-v4-flash" {
		t.Errorf("first candidate was sent model %q", got)
	}
	if got := sb.Requests()[0].Model; got != "kimi-k2.7-code" {
		t.Errorf("second candidate was sent model %q", got)
	}
}

func TestFailoverNoSwitchAfterFirstToken(t *testing.T) {
	a, _ := candidate(t, "a/m", llmtest.Cut{Reply: llmtest.Reply{Text: "partial answer that is long", ChunkSize: 4}, After: 2})
	b, sb := candidate(t, "b/m")
	var d deltas
	_, err := llm.Failover([]llm.Candidate{a, b}, llm.FailoverOptions{Retry: quick}).Stream(context.Background(), hello(), d.on)
	if err == nil || !strings.HasPrefix(err.Error(), "a/m: ") || !llm.IsRetryable(err) {
		t.Fatalf("err = %v, want the first candidate's retryable failure", err)
	}
	if d.text == "" || len(d.retries) != 0 || len(sb.Requests()) != 0 {
		t.Errorf("streamed %q, retries %v, second asked %d times", d.text, d.retries, len(sb.Requests()))
	}
}

func TestFailoverOutcomes(t *testing.T) {
	tests := []struct {
		name       string
		a, b       []llmtest.Turn
		attempts   int
		wantModel  string
		wantErr    string
		wantCalls  [2]int
		wantReason []string
	}{
		{"non-retryable stops", []llmtest.Turn{llmtest.Fail{Status: 401}}, nil, 4, "", "a/m: model API error (HTTP 401)", [2]int{1, 0}, nil},
		{"rounds with backoff", []llmtest.Turn{llmtest.Fail{Status: 500}, llmtest.Text("second round")},
			[]llmtest.Turn{llmtest.Fail{Status: 429}}, 4, "a/m", "", [2]int{2, 1},
			[]string{"a/m failed", "b/m failed"}},
		{"exhausted", []llmtest.Turn{llmtest.Fail{Status: 502}, llmtest.Fail{Status: 502}},
			[]llmtest.Turn{llmtest.Fail{Status: 503}}, 3, "", "a/m: model API error (HTTP 502)", [2]int{2, 1},
			[]string{"trying b/m", "trying a/m"}},
		{"every candidate once even with one attempt", []llmtest.Turn{llmtest.Fail{Status: 503}},
			[]llmtest.Turn{llmtest.Text("ok")}, 1, "b/m", "", [2]int{1, 1}, []string{"trying b/m"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a, sa := candidate(t, "a/m", tt.a...)
			b, sb := candidate(t, "b/m", tt.b...)
			var d deltas
			rp := quick
			rp.Attempts = tt.attempts
			resp, err := llm.Failover([]llm.Candidate{a, b}, llm.FailoverOptions{Retry: rp}).Stream(context.Background(), hello(), d.on)
			if tt.wantErr != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Errorf("err = %v, want %q", err, tt.wantErr)
				}
			} else if err != nil || resp.Model != tt.wantModel {
				t.Errorf("resp = %+v, err = %v; want model %s", resp, err, tt.wantModel)
			}
			if got := [2]int{len(sa.Requests()), len(sb.Requests())}; got != tt.wantCalls {
				t.Errorf("calls = %v, want %v", got, tt.wantCalls)
			}
			if len(d.retries) != len(tt.wantReason) {
				t.Fatalf("retries = %+v, want %d", d.retries, len(tt.wantReason))
			}
			for i, w := range tt.wantReason {
				if !strings.Contains(d.retries[i].Reason, w) {
					t.Errorf("retry %d reason %q lacks %q", i, d.retries[i].Reason, w)
				}
			}
		})
	}
}

// fakeClock is a settable clock for the breaker.
type fakeClock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) Add(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

func TestFailoverBreaker(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	fail := llmtest.Fail{Status: 503}
	a, sa := candidate(t, "a/m", fail, fail, fail, llmtest.Text("a back"), llmtest.Text("a again"))
	b, sb := candidate(t, "b/m", llmtest.Text("b1"), llmtest.Text("b2"), llmtest.Text("b3"), llmtest.Text("b4"), llmtest.Text("b5"))
	p := llm.Failover([]llm.Candidate{a, b}, llm.FailoverOptions{Retry: quick, Threshold: 2, Cooldown: time.Minute, Now: clock.Now})
	steps := []struct {
		purpose        string
		advance        time.Duration
		want           string
		aCalls, bCalls int
	}{
		{"a fails once, b answers", 0, "b/m:b1", 1, 1},
		{"a fails twice in a row: its breaker opens", 0, "b/m:b2", 2, 2},
		{"open: a is skipped", 30 * time.Second, "b/m:b3", 2, 3},
		{"cool-down over: a's trial fails, b answers", 31 * time.Second, "b/m:b4", 3, 4},
		{"the failed trial reopened the breaker", 10 * time.Second, "b/m:b5", 3, 5},
		{"next trial succeeds", 61 * time.Second, "a/m:a back", 4, 5},
		{"the breaker is closed: a answers first", 0, "a/m:a again", 5, 5},
	}
	for i, s := range steps {
		clock.Add(s.advance)
		resp, err := p.Stream(context.Background(), hello(), func(llm.Delta) {})
		if err != nil {
			t.Fatalf("step %d (%s): %v", i, s.purpose, err)
		}
		if got := resp.Model + ":" + resp.Content; got != s.want {
			t.Errorf("step %d (%s): %s, want %s", i, s.purpose, got, s.want)
		}
		if na, nb := len(sa.Requests()), len(sb.Requests()); na != s.aCalls || nb != s.bCalls {
			t.Errorf("step %d (%s): asked a %d and b %d times, want %d and %d", i, s.purpose, na, nb, s.aCalls, s.bCalls)
		}
	}
}

func TestFailoverAllOpen(t *testing.T) {
	clock := &fakeClock{now: time.Unix(1000, 0)}
	fail := llmtest.Fail{Status: 503}
	a, sa := candidate(t, "a/m", fail, llmtest.Text("a"))
	b, sb := candidate(t, "b/m", fail)
	p := llm.Failover([]llm.Candidate{a, b}, llm.FailoverOptions{Retry: llm.RetryPolicy{Attempts: 2}, Threshold: 1, Cooldown: time.Minute, Now: clock.Now})
	if _, err := p.Stream(context.Background(), hello(), func(llm.Delta) {}); err == nil {
		t.Fatal("both failed, yet no error")
	}
	// Both breakers are open; a closes first, so it is asked anyway.
	resp, err := p.Stream(context.Background(), hello(), func(llm.Delta) {})
	if err != nil || resp.Model != "a/m" || len(sa.Requests()) != 2 || len(sb.Requests()) != 1 {
		t.Errorf("resp %+v, err %v, calls %d/%d", resp, err, len(sa.Requests()), len(sb.Requests()))
	}
}

func TestFailoverCancel(t *testing.T) {
	a, _ := candidate(t, "a/m", llmtest.Fail{Status: 503})
	b, sb := candidate(t, "b/m")
	ctx, cancel := context.WithCancel(context.Background())
	p := llm.Failover([]llm.Candidate{a, b}, llm.FailoverOptions{Retry: quick})
	_, err := p.Stream(ctx, hello(), func(d llm.Delta) {
		if d.Kind == llm.Retry {
			cancel()
		}
	})
	if err == nil || len(sb.Requests()) != 0 {
		t.Errorf("err = %v, b asked %d times after cancel", err, len(sb.Requests()))
	}
}

func BenchmarkFailoverOverhead(b *testing.B) {
	p := llm.Failover([]llm.Candidate{{Name: "a/m", Provider: okProvider{}}}, llm.FailoverOptions{})
	for b.Loop() {
		if _, err := p.Stream(context.Background(), hello(), func(llm.Delta) {}); err != nil {
			b.Fatal(err)
		}
	}
}

type okProvider struct{}

func (okProvider) Stream(context.Context, llm.Request, func(llm.Delta)) (*llm.Response, error) {
	return &llm.Response{Content: "ok"}, nil
}
