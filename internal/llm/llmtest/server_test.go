package llmtest_test

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

func body(msgs ...string) string {
	return `{"model":"m","messages":[` + strings.Join(msgs, ",") + `],"stream":true}`
}

const (
	sys      = `{"role":"system","content":"s"}`
	user     = `{"role":"user","content":"u"}`
	user2    = `{"role":"user","content":"again"}`
	callA    = `{"role":"assistant","reasoning_content":"r","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	callNoR  = `{"role":"assistant","tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	callNull = `{"role":"assistant","reasoning_content":null,"tool_calls":[{"id":"a","type":"function","function":{"name":"f","arguments":"{}"}}]}`
	toolA    = `{"role":"tool","tool_call_id":"a","content":"ok"}`
	toolB    = `{"role":"tool","tool_call_id":"b","content":"ok"}`
	answer   = `{"role":"assistant","content":"done"}`
)

func TestInvariants(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(*llmtest.Server)
		requests   []string
		wantStatus []int
		wantError  string // in the last response body and the complaint
	}{
		{"valid tool round trip", nil,
			[]string{body(sys, user), body(sys, user, callA, toolA), body(sys, user, callA, toolA, answer, user2)},
			[]int{200, 200, 200}, ""},
		{"unanswered call", nil,
			[]string{body(sys, user, callA, user2)}, []int{400}, "not answered"},
		{"unanswered call at the end", nil,
			[]string{body(sys, user, callA)}, []int{400}, "not answered"},
		{"tool answers unknown call", nil,
			[]string{body(sys, user, callA, toolA, toolB)}, []int{400}, "not an open tool call"},
		{"missing reasoning_content", nil,
			[]string{body(sys, user, callNoR, toolA)}, []int{400}, "reasoning_content"},
		{"null reasoning_content", nil,
			[]string{body(sys, user, callNull, toolA)}, []int{400}, "reasoning_content"},
		{"reasoning not required", func(s *llmtest.Server) { s.RequireReasoning(false) },
			[]string{body(sys, user, callNoR, toolA)}, []int{200}, ""},
		{"prefix changed", nil,
			[]string{body(sys, user), body(sys, user2, answer, user)}, []int{200, 400}, "prefix broken"},
		{"prefix byte change", nil,
			[]string{body(sys, user), body(sys, `{"content":"u","role":"user"}`, answer, user2)}, []int{200, 400}, "messages[1] differs"},
		{"history shrank", nil,
			[]string{body(sys, user, answer, user2), body(sys, user)}, []int{200, 400}, "shrank"},
		{"expected prefix break", nil,
			[]string{body(sys, user, answer, user2), "BREAK", body(sys, user2)}, []int{200, 200}, ""},
		{"script exhausted", nil,
			[]string{body(sys, user), body(sys, user, answer, user2), body(sys, user, answer, user2, answer, user), body(sys, user, answer, user2, answer, user, answer, user2)}, []int{200, 200, 200, 500}, "no more turns"},
		{"not JSON", nil, []string{`{"model":`}, []int{400}, "not valid JSON"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &llmtest.RecordingTB{TB: t}
			srv := llmtest.NewServer(rec, llmtest.Text("one"), llmtest.Text("two"), llmtest.Text("three"))
			if tt.setup != nil {
				tt.setup(srv)
			}
			tg := target{vendor: "OpenAI", rec: rec, expectBreak: srv.ExpectPrefixBreak, errorMessage: openAIError,
				post: func(b string) (int, string) { return post(t, srv.URL(), b) }}
			tg.check(t, tt.requests, tt.wantStatus, tt.wantError)
		})
	}
}

// event is one decoded SSE data payload.
type event map[string]any

func events(t *testing.T, sse string) ([]event, bool) {
	t.Helper()
	var out []event
	done := false
	sc := bufio.NewScanner(strings.NewReader(sse))
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			done = true
			continue
		}
		var e event
		if err := json.Unmarshal([]byte(data), &e); err != nil {
			t.Fatalf("bad chunk %q: %v", data, err)
		}
		out = append(out, e)
	}
	return out, done
}

func TestReplyShape(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Reply{
		Reasoning: "think", Text: "héllo", ChunkSize: 2,
		Calls: []llmtest.Call{{Name: "f", Args: `{"x":1}`}, {ID: "functions.g:1", Name: "g", Args: `{}`}},
	})
	st, sse := post(t, srv.URL(), body(sys, user))
	if st != 200 {
		t.Fatalf("status %d", st)
	}
	evs, done := events(t, sse)
	if !done {
		t.Error("no [DONE]")
	}
	var reasoning, text string
	args := map[float64]string{}
	ids := map[float64]string{}
	var finish string
	var usage map[string]any
	for _, e := range evs {
		if e["object"] != "chat.completion.chunk" || e["model"] != "m" {
			t.Errorf("chunk header %v", e)
		}
		if u, ok := e["usage"].(map[string]any); ok {
			usage = u
		}
		for _, c := range e["choices"].([]any) {
			c := c.(map[string]any)
			d := c["delta"].(map[string]any)
			r, _ := d["reasoning_content"].(string)
			reasoning += r
			s, _ := d["content"].(string)
			text += s
			if f, ok := c["finish_reason"].(string); ok {
				finish = f
			}
			tcs, _ := d["tool_calls"].([]any)
			for _, tc := range tcs {
				tc := tc.(map[string]any)
				i := tc["index"].(float64)
				if id, ok := tc["id"].(string); ok {
					ids[i] = id
				}
				a, _ := tc["function"].(map[string]any)["arguments"].(string)
				args[i] += a
			}
		}
	}
	if reasoning != "think" || text != "héllo" || finish != "tool_calls" {
		t.Errorf("reasoning %q text %q finish %q", reasoning, text, finish)
	}
	if ids[0] != "call_1_0" || ids[1] != "functions.g:1" || args[0] != `{"x":1}` || args[1] != `{}` {
		t.Errorf("ids %v args %v", ids, args)
	}
	if usage == nil || usage["prompt_tokens"].(float64) <= 0 || usage["completion_tokens"].(float64) <= 0 {
		t.Errorf("usage %v", usage)
	}
}

func TestUsageEstimate(t *testing.T) {
	fixed := protocol.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10, PromptCacheHitTokens: 5, PromptCacheMissTokens: 2}
	srv := llmtest.NewServer(t, llmtest.Text("a"), llmtest.Text("b"), llmtest.Reply{Text: "c", Usage: &fixed})
	usageOf := func(b string) map[string]any {
		_, sse := post(t, srv.URL(), b)
		evs, _ := events(t, sse)
		return evs[len(evs)-1]["usage"].(map[string]any)
	}
	long := `{"role":"user","content":"` + strings.Repeat("x", 4000) + `"}`
	first := usageOf(body(sys, long))
	second := usageOf(body(sys, long, answer, user2))
	third := usageOf(body(sys, long, answer, user2, answer, user))
	if first["prompt_cache_hit_tokens"].(float64) != 0 {
		t.Errorf("first request hit the cache: %v", first)
	}
	hit, prompt := second["prompt_cache_hit_tokens"].(float64), second["prompt_tokens"].(float64)
	if hit < prompt*0.8 || hit >= prompt || second["prompt_cache_miss_tokens"].(float64) != prompt-hit {
		t.Errorf("second request: hit %v of %v (%v)", hit, prompt, second)
	}
	if third["prompt_tokens"].(float64) != 7 || third["prompt_cache_hit_tokens"].(float64) != 5 {
		t.Errorf("explicit usage not sent: %v", third)
	}
}

func TestFailTurns(t *testing.T) {
	srv := llmtest.NewServer(t,
		llmtest.Fail{Status: 429, RetryAfter: "3"},
		llmtest.Fail{Status: 502, Body: "<html>bad gateway</html>"},
		llmtest.Fail{},
	)
	for _, want := range []struct {
		status      int
		contentType string
		retryAfter  string
	}{{429, "application/json", "3"}, {502, "text/html; charset=utf-8", ""}, {500, "application/json", ""}} {
		res, b := send(t, srv.URL(), body(sys, user))
		if res.StatusCode != want.status || res.Header.Get("Content-Type") != want.contentType || res.Header.Get("Retry-After") != want.retryAfter {
			t.Errorf("got %d %q %q, want %+v (%s)", res.StatusCode, res.Header.Get("Content-Type"), res.Header.Get("Retry-After"), want, b)
		}
	}
	if got := len(srv.Requests()); got != 3 {
		t.Errorf("%d requests recorded", got)
	}
}

func TestCutAndPush(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Cut{Reply: llmtest.Reply{Text: "abcdef", ChunkSize: 1}, After: 3})
	res, err := http.Post(srv.URL(), "application/json", strings.NewReader(body(sys, user)))
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(res.Body)
	res.Body.Close()
	if err == nil {
		t.Errorf("cut stream read cleanly: %q", b)
	}
	if n := bytes.Count(b, []byte("data: ")); n != 3 || bytes.Contains(b, []byte("[DONE]")) {
		t.Errorf("%d events before the cut: %q", n, b)
	}
	srv.Push(llmtest.Text("more"))
	if srv.Remaining() != 1 {
		t.Errorf("Remaining %d", srv.Remaining())
	}
	if st, _ := post(t, srv.URL(), body(sys, user)); st != 200 {
		t.Errorf("pushed turn: status %d", st)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || reqs[0].Model != "m" || len(reqs[0].Messages) != 2 || reqs[0].Header.Get("Content-Type") != "application/json" {
		t.Errorf("requests %+v", reqs)
	}
}
