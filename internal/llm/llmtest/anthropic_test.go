package llmtest_test

import (
	"bufio"
	"encoding/json"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// anthropicHeader is the header the real API requires besides
// Content-Type.
var anthropicHeader = []string{"anthropic-version", "2023-06-01"}

// postAnthropic sends body to the server at url with the required header.
func postAnthropic(t *testing.T, url, body string) (int, string) {
	t.Helper()
	return post(t, url+llmtest.AnthropicPath, body, anthropicHeader...)
}

func abody(msgs ...string) string {
	return `{"model":"claude","max_tokens":4000,"system":[{"type":"text","text":"s","cache_control":{"type":"ephemeral"}}],"messages":[` + strings.Join(msgs, ",") + `],"stream":true}`
}

var (
	aUser     = `{"role":"user","content":[{"type":"text","text":"u"}]}`
	aUserStr  = `{"role":"user","content":"u"}`
	aUser2    = `{"role":"user","content":[{"type":"text","text":"again"}]}`
	aUserMark = `{"role":"user","content":[{"type":"text","text":"u","cache_control":{"type":"ephemeral"}}]}`
	aCall     = `{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":{}}]}`
	aCallSig  = `{"role":"assistant","content":[{"type":"thinking","thinking":"r","signature":"` + llmtest.Signature("r") + `"},{"type":"tool_use","id":"a","name":"f","input":{}}]}`
	aCallBad  = `{"role":"assistant","content":[{"type":"thinking","thinking":"r","signature":"forged"},{"type":"tool_use","id":"a","name":"f","input":{}}]}`
	aCallStr  = `{"role":"assistant","content":[{"type":"tool_use","id":"a","name":"f","input":"{}"}]}`
	aResult   = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"ok"}]}`
	aResultB  = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"b","content":"ok"}]}`
	aTextRes  = `{"role":"user","content":[{"type":"text","text":"x"},{"type":"tool_result","tool_use_id":"a","content":"ok"}]}`
	aResMore  = `{"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"ok"},{"type":"text","text":"steer"}]}`
	aAnswer   = `{"role":"assistant","content":[{"type":"text","text":"done"}]}`
	aEmpty    = `{"role":"assistant","content":[{"type":"text","text":""}]}`
)

func TestAnthropicInvariants(t *testing.T) {
	tests := []struct {
		name       string
		setup      func(*llmtest.AnthropicServer)
		requests   []string
		wantStatus []int
		wantError  string
	}{
		{"valid tool round trip", nil,
			[]string{abody(aUser), abody(aUser, aCall, aResult), abody(aUser, aCall, aResult, aAnswer, aUser2)}, []int{200, 200, 200}, ""},
		{"string content is a text block", nil, []string{abody(aUserStr), abody(aUser, aAnswer, aUser2)}, []int{200, 200}, ""},
		{"moving cache_control keeps the prefix", nil,
			[]string{abody(aUserMark), abody(aUser, aAnswer, aUser2)}, []int{200, 200}, ""},
		{"merged last message extends the prefix", nil,
			[]string{abody(aUser, aCall, aResult), abody(aUser, aCall, aResMore)}, []int{200, 200}, ""},
		{"signed thinking passed back", nil, []string{abody(aUser, aCallSig, aResult)}, []int{200}, ""},
		{"forged signature", nil, []string{abody(aUser, aCallBad, aResult)}, []int{400}, "invalid signature"},
		{"unanswered tool_use", nil, []string{abody(aUser, aCall, aUser2)}, []int{400}, "without tool_result"},
		{"unanswered tool_use at the end", nil, []string{abody(aUser, aCall)}, []int{400}, "without tool_result"},
		{"result for an unknown call", nil, []string{abody(aUser, aCall, aResultB)}, []int{400}, "unexpected tool_use_id"},
		{"results after text", nil, []string{abody(aUser, aCall, aTextRes)}, []int{400}, "must come before"},
		{"input not an object", nil, []string{abody(aUser, aCallStr, aResult)}, []int{400}, "valid dictionary"},
		{"roles must alternate", nil, []string{abody(aUser, aUser2)}, []int{400}, "alternate"},
		{"first message is user", nil, []string{abody(aAnswer, aUser)}, []int{400}, "alternate"},
		{"empty text", nil, []string{abody(aUser, aEmpty, aUser2)}, []int{400}, "non-empty"},
		{"prefix changed", nil, []string{abody(aUser), abody(aUser2, aAnswer, aUser)}, []int{200, 400}, "prefix broken"},
		{"history shrank", nil, []string{abody(aUser, aAnswer, aUser2), abody(aUser)}, []int{200, 400}, "shrank"},
		{"expected prefix break", nil, []string{abody(aUser, aAnswer, aUser2), "BREAK", abody(aUser2)}, []int{200, 200}, ""},
		{"too many breakpoints", nil, []string{abody(aUserMark, aAnswer, aUserMark, aAnswer, aUserMark, aAnswer, aUserMark)}, []int{400}, "maximum of 4"},
		{"thinking budget above max_tokens", nil,
			[]string{strings.Replace(abody(aUser), `"stream"`, `"thinking":{"type":"enabled","budget_tokens":5000},"stream"`, 1)}, []int{400}, "budget_tokens"},
		{"thinking on needs signed continuation", nil,
			[]string{strings.Replace(abody(aUser, aCall, aResult), `"stream"`, `"thinking":{"type":"enabled","budget_tokens":1024},"stream"`, 1)}, []int{400}, "must start with a thinking block"},
		{"not JSON", nil, []string{`{"model":`}, []int{400}, "not valid JSON"},
		{"script exhausted", nil, []string{abody(aUser), abody(aUser, aAnswer, aUser2), abody(aUser, aAnswer, aUser2, aAnswer, aUser), abody(aUser, aAnswer, aUser2, aAnswer, aUser, aAnswer, aUser2)}, []int{200, 200, 200, 500}, "no more turns"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := &llmtest.RecordingTB{TB: t}
			srv := llmtest.NewAnthropicServer(rec, llmtest.Text("one"), llmtest.Text("two"), llmtest.Text("three"))
			tg := target{vendor: "Anthropic", rec: rec, expectBreak: srv.ExpectPrefixBreak, errorMessage: anthropicError,
				post: func(b string) (int, string) { return postAnthropic(t, srv.URL(), b) }}
			tg.check(t, tt.requests, tt.wantStatus, tt.wantError)
		})
	}
}

type aEvent struct {
	name string
	data map[string]any
}

func anthropicEvents(t *testing.T, sse string) []aEvent {
	t.Helper()
	var out []aEvent
	var name string
	sc := bufio.NewScanner(strings.NewReader(sse))
	for sc.Scan() {
		line := sc.Text()
		if n, ok := strings.CutPrefix(line, "event: "); ok {
			name = n
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			continue
		}
		var d map[string]any
		if err := json.Unmarshal([]byte(data), &d); err != nil {
			t.Fatalf("bad event %q: %v", data, err)
		}
		if d["type"] != name {
			t.Errorf("event %q carries type %v", name, d["type"])
		}
		out = append(out, aEvent{name, d})
	}
	return out
}

func TestAnthropicReplyShape(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t, llmtest.Reply{
		Reasoning: "think", Text: "héllo", ChunkSize: 2,
		Calls: []llmtest.Call{{Name: "f", Args: `{"x":1}`}, {ID: "toolu_g", Name: "g", Args: `{}`}},
	})
	st, sse := postAnthropic(t, srv.URL(), abody(aUser))
	if st != 200 {
		t.Fatalf("status %d: %s", st, sse)
	}
	evs := anthropicEvents(t, sse)
	var names []string
	var thinking, sig, text string
	args := map[float64]string{}
	starts := map[float64]map[string]any{}
	var stop string
	for _, e := range evs {
		names = append(names, e.name)
		idx, _ := e.data["index"].(float64)
		switch e.name {
		case "content_block_start":
			starts[idx] = e.data["content_block"].(map[string]any)
		case "content_block_delta":
			d := e.data["delta"].(map[string]any)
			switch d["type"] {
			case "thinking_delta":
				thinking += d["thinking"].(string)
			case "signature_delta":
				sig = d["signature"].(string)
			case "text_delta":
				text += d["text"].(string)
			case "input_json_delta":
				args[idx] += d["partial_json"].(string)
			}
		case "message_delta":
			stop = e.data["delta"].(map[string]any)["stop_reason"].(string)
		}
	}
	if names[0] != "message_start" || names[1] != "ping" || names[len(names)-2] != "message_delta" || names[len(names)-1] != "message_stop" {
		t.Errorf("event order %v", names)
	}
	if thinking != "think" || sig != llmtest.Signature("think") || text != "héllo" || stop != "tool_use" {
		t.Errorf("thinking %q sig %q text %q stop %q", thinking, sig, text, stop)
	}
	if starts[0]["type"] != "thinking" || starts[1]["type"] != "text" || starts[2]["id"] != "toolu_llmtest_1_0" || starts[3]["id"] != "toolu_g" {
		t.Errorf("blocks %v", starts)
	}
	if args[2] != `{"x":1}` || args[3] != `{}` {
		t.Errorf("args %v", args)
	}
}

func TestAnthropicCacheModel(t *testing.T) {
	fixed := protocol.Usage{PromptTokens: 7, CompletionTokens: 3, TotalTokens: 10, PromptCacheHitTokens: 5, PromptCacheMissTokens: 2}
	srv := llmtest.NewAnthropicServer(t, llmtest.Text("a"), llmtest.Text("b"), llmtest.Text("c"), llmtest.Reply{Text: "d", Usage: &fixed})
	usageOf := func(b string) map[string]float64 {
		st, sse := postAnthropic(t, srv.URL(), b)
		evs := anthropicEvents(t, sse)
		if st != 200 || len(evs) < 2 {
			t.Fatalf("status %d: %s", st, sse)
		}
		out := map[string]float64{}
		for k, v := range evs[len(evs)-2].data["usage"].(map[string]any) {
			out[k] = v.(float64)
		}
		return out
	}
	long := `{"role":"user","content":[{"type":"text","text":"` + strings.Repeat("x", 4000) + `","cache_control":{"type":"ephemeral"}}]}`
	longPlain := strings.Replace(long, `,"cache_control":{"type":"ephemeral"}`, "", 1)
	userMark := strings.Replace(aUser2, `"again"}`, `"again","cache_control":{"type":"ephemeral"}}`, 1)
	first := usageOf(abody(long))
	second := usageOf(abody(longPlain, aAnswer, userMark))
	if first["cache_read_input_tokens"] != 0 || first["cache_creation_input_tokens"] < 1000 {
		t.Errorf("first request: %v", first)
	}
	if second["cache_read_input_tokens"] < 1000 || second["cache_creation_input_tokens"] == 0 || second["input_tokens"] > 10 {
		t.Errorf("second request should read the first's breakpoint: %v", second)
	}
	srv.ExpectPrefixBreak()
	// Without breakpoints nothing is cached or read.
	third := usageOf(`{"model":"claude","max_tokens":1000,"messages":[` + strings.Replace(longPlain, "xxxx", "yyyy", -1) + `],"stream":true}`)
	if third["cache_read_input_tokens"] != 0 || third["cache_creation_input_tokens"] != 0 || third["input_tokens"] < 1000 {
		t.Errorf("uncached request: %v", third)
	}
	srv.ExpectPrefixBreak()
	fourth := usageOf(abody(aUser))
	if fourth["input_tokens"] != 2 || fourth["cache_read_input_tokens"] != 5 || fourth["output_tokens"] != 3 {
		t.Errorf("explicit usage not sent: %v", fourth)
	}
}

func TestAnthropicFailTurns(t *testing.T) {
	srv := llmtest.NewAnthropicServer(t,
		llmtest.Fail{Status: 529, RetryAfter: "3"},
		llmtest.Fail{Status: 502, Body: "<html>bad gateway</html>"},
	)
	for _, want := range []struct {
		status      int
		contentType string
		errType     string
	}{{529, "application/json", "overloaded_error"}, {502, "text/html; charset=utf-8", ""}} {
		res, b := send(t, srv.URL()+llmtest.AnthropicPath, abody(aUser), anthropicHeader...)
		if res.StatusCode != want.status || res.Header.Get("Content-Type") != want.contentType {
			t.Errorf("got %d %q, want %+v (%s)", res.StatusCode, res.Header.Get("Content-Type"), want, b)
		}
		if want.errType != "" && (!strings.Contains(b, want.errType) || res.Header.Get("Retry-After") != "3") {
			t.Errorf("body %s, Retry-After %q", b, res.Header.Get("Retry-After"))
		}
	}
}
