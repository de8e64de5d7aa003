package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httptrace"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/anthropic"
	"github.com/openseek/openseek/internal/llm/openai"
	"github.com/openseek/openseek/internal/llm/responses"
	"github.com/openseek/openseek/protocol"
)

// The three adapters stand on one shared client (llm.API): these tests run
// the same scenario through each of them, so a vendor whose adapter drifts
// from the others fails here.

// adapter is one of the three adapters, with what a server needs to
// answer it in its wire format.
type adapter struct {
	name string
	// path is where the adapter posts, below the server's root.
	path string
	// client returns the adapter for a server at root with key and idle
	// timeout (0 = the default).
	client func(root, key string, idle time.Duration) llm.Provider
	// reply is a complete event stream answering with the given text
	// deltas.
	reply func(deltas []string) string
	// rateLimited is an event stream that starts answering and then
	// reports a rate limit with message msg, in the vendor's shape.
	rateLimited func(msg string) string
	// toolCall is a complete event stream calling read with
	// {"path":"main.go"}, its arguments in two fragments split after "ma".
	toolCall func() string
}

const toolArgs = `{"path":"main.go"}`

var adapters = []adapter{
	{
		name: "openai", path: "/chat/completions",
		client: func(root, key string, idle time.Duration) llm.Provider {
			return openai.New(openai.Config{URL: root + "/chat/completions", APIKey: key, IdleTimeout: idle})
		},
		reply: func(deltas []string) string {
			var b strings.Builder
			for _, d := range deltas {
				data, _ := json.Marshal(d)
				fmt.Fprintf(&b, `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"content":%s},"finish_reason":null}]}`+"\n\n", data)
			}
			b.WriteString(`data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":10,"completion_tokens":2000,"total_tokens":2010}}` + "\n\n")
			b.WriteString("data: [DONE]\n\n")
			return b.String()
		},
		rateLimited: func(msg string) string {
			return `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":{"role":"assistant"},"finish_reason":null}]}` + "\n\n" +
				`data: {"error":{"message":"` + msg + `","code":429}}` + "\n\n"
		},
		toolCall: func() string {
			chunk := func(delta, finish string) string {
				return `data: {"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"finish_reason":` + finish + `}]}` + "\n\n"
			}
			return chunk(`{"role":"assistant","tool_calls":[{"index":0,"id":"call_1","type":"function","function":{"name":"read","arguments":"{\"path\":\"ma"}}]}`, "null") +
				chunk(`{"tool_calls":[{"index":0,"function":{"arguments":"in.go\"}"}}]}`, "null") +
				chunk(`{}`, `"tool_calls"`) + "data: [DONE]\n\n"
		},
	},
	{
		name: "anthropic", path: "/v1/messages",
		client: func(root, key string, idle time.Duration) llm.Provider {
			return anthropic.New(anthropic.Config{BaseURL: root, APIKey: key, IdleTimeout: idle})
		},
		reply: func(deltas []string) string {
			var b strings.Builder
			ev := func(typ, data string) { fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typ, data) }
			ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`)
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}`)
			for _, d := range deltas {
				data, _ := json.Marshal(d)
				ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":`+string(data)+`}}`)
			}
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":2000}}`)
			ev("message_stop", `{"type":"message_stop"}`)
			return b.String()
		},
		rateLimited: func(msg string) string {
			return "event: message_start\ndata: " + `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}` + "\n\n" +
				"event: error\ndata: " + `{"type":"error","error":{"type":"rate_limit_error","message":"` + msg + `"}}` + "\n\n"
		},
		toolCall: func() string {
			var b strings.Builder
			ev := func(typ, data string) { fmt.Fprintf(&b, "event: %s\ndata: %s\n\n", typ, data) }
			ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-test","content":[],"stop_reason":null,"usage":{"input_tokens":10,"output_tokens":1}}}`)
			ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"toolu_1","name":"read","input":{}}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"{\"path\":\"ma"}}`)
			ev("content_block_delta", `{"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"in.go\"}"}}`)
			ev("content_block_stop", `{"type":"content_block_stop","index":0}`)
			ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"tool_use","stop_sequence":null},"usage":{"output_tokens":20}}`)
			ev("message_stop", `{"type":"message_stop"}`)
			return b.String()
		},
	},
	{
		name: "responses", path: "/v1/responses",
		client: func(root, key string, idle time.Duration) llm.Provider {
			return responses.New(responses.Config{BaseURL: root + "/v1", APIKey: key, IdleTimeout: idle})
		},
		reply: func(deltas []string) string {
			var b strings.Builder
			ev := responsesEvents(&b)
			ev("response.output_item.added", `"output_index":0,"item":{"id":"msg_0","type":"message","role":"assistant","content":[]}`)
			text := strings.Join(deltas, "")
			for _, d := range deltas {
				data, _ := json.Marshal(d)
				ev("response.output_text.delta", `"output_index":0,"item_id":"msg_0","content_index":0,"delta":`+string(data))
			}
			tj, _ := json.Marshal(text)
			ev("response.output_text.done", `"output_index":0,"item_id":"msg_0","content_index":0,"text":`+string(tj))
			item := `{"id":"msg_0","type":"message","role":"assistant","status":"completed","content":[{"type":"output_text","text":` + string(tj) + `,"annotations":[]}]}`
			ev("response.output_item.done", `"output_index":0,"item":`+item)
			ev("response.completed", `"response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-test","output":[`+item+`],"usage":{"input_tokens":10,"output_tokens":2000,"total_tokens":2010}}`)
			return b.String()
		},
		rateLimited: func(msg string) string {
			var b strings.Builder
			responsesEvents(&b)("error", `"code":"rate_limit_exceeded","message":"`+msg+`","param":null`)
			return b.String()
		},
		toolCall: func() string {
			var b strings.Builder
			ev := responsesEvents(&b)
			ev("response.output_item.added", `"output_index":0,"item":{"id":"fc_0","type":"function_call","call_id":"call_1","name":"read","arguments":""}`)
			ev("response.function_call_arguments.delta", `"output_index":0,"item_id":"fc_0","delta":"{\"path\":\"ma"`)
			ev("response.function_call_arguments.delta", `"output_index":0,"item_id":"fc_0","delta":"in.go\"}"`)
			ev("response.function_call_arguments.done", `"output_index":0,"item_id":"fc_0","arguments":"{\"path\":\"main.go\"}"`)
			item := `{"id":"fc_0","type":"function_call","status":"completed","call_id":"call_1","name":"read","arguments":"{\"path\":\"main.go\"}"}`
			ev("response.output_item.done", `"output_index":0,"item":`+item)
			ev("response.completed", `"response":{"id":"resp_1","object":"response","status":"completed","model":"gpt-test","output":[`+item+`],"usage":{"input_tokens":10,"output_tokens":20,"total_tokens":30}}`)
			return b.String()
		},
	},
}

// firstDelta is the start of a reply, up to and including its first
// text delta ("he").
func (a adapter) firstDelta() string {
	return upTo(a.reply([]string{"he", "llo"}), "llo")
}

// upTo is the events of stream before the first that contains marker.
func upTo(stream, marker string) string {
	cut := stream[:strings.Index(stream, marker)]
	return cut[:strings.LastIndex(cut, "\n\n")+2]
}

// stalled answers with the start of a reply and then goes silent until
// the client gives up.
func (a adapter) stalled() http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, a.firstDelta())
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}
}

// responsesEvents starts a Responses API event stream on b with
// response.created and returns the writer of its further events, each
// given its type and sequence number.
func responsesEvents(b *strings.Builder) func(typ, fields string) {
	seq := 0
	ev := func(typ, fields string) {
		fmt.Fprintf(b, "event: %s\ndata: {\"type\":%q,\"sequence_number\":%d,%s}\n\n", typ, typ, seq, fields)
		seq++
	}
	ev("response.created", `"response":{"id":"resp_1","object":"response","status":"in_progress","model":"gpt-test","output":[]}`)
	return ev
}

var hiRequest = llm.Request{Model: "m", MaxTokens: 100, Messages: []chat.Message{{Role: chat.User, Content: protocol.Text("hi")}}}

// tokens returns n one-token text deltas.
func tokens(n int) []string {
	out := make([]string, n)
	for i := range out {
		out[i] = " tok"
	}
	return out
}

// sequence is a server that answers its requests with the given handlers
// in order and counts them.
type sequence struct {
	mu    sync.Mutex
	steps []http.HandlerFunc
	n     int
}

func (s *sequence) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	s.mu.Lock()
	i := s.n
	s.n++
	s.mu.Unlock()
	if i >= len(s.steps) {
		http.Error(w, "no more steps", http.StatusInternalServerError)
		return
	}
	s.steps[i](w, r)
}

func (s *sequence) requests() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.n
}

func stream(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		_, _ = io.WriteString(w, body)
	}
}

// TestRateLimitRetryAfterEveryAdapter: a 429 with Retry-After is the same
// retryable *llm.Error, carrying the server's delay and never the key, in
// every adapter; WithRetry waits that long and the second attempt answers.
func TestRateLimitRetryAfterEveryAdapter(t *testing.T) {
	const key = "sk-secret-key-1234"
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			limited := func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Retry-After", "1")
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(http.StatusTooManyRequests)
				_, _ = io.WriteString(w, `{"error":{"type":"rate_limit_error","message":"slow down, `+key+`"}}`)
			}
			seq := &sequence{steps: []http.HandlerFunc{limited, limited, stream(a.reply([]string{"he", "llo"}))}}
			srv := httptest.NewServer(seq)
			defer srv.Close()
			client := a.client(srv.URL, key, 0)

			_, err := client.Stream(context.Background(), hiRequest, nil)
			var e *llm.Error
			if !asError(err, &e) || e.Status != http.StatusTooManyRequests || !e.Retryable || e.RetryAfter != time.Second {
				t.Fatalf("first call: %#v (%v), want a retryable 429 with RetryAfter 1s", e, err)
			}
			if strings.Contains(err.Error(), key) || !strings.Contains(err.Error(), "rate limited: slow down, [redacted]") {
				t.Fatalf("error %q: want the rate-limit message with the key redacted", err)
			}

			var retries []llm.Delta
			start := time.Now()
			resp, err := llm.WithRetry(client, llm.RetryPolicy{Attempts: 3, Base: time.Millisecond, Max: time.Millisecond}).
				Stream(context.Background(), hiRequest, func(d llm.Delta) {
					if d.Kind == llm.Retry {
						retries = append(retries, d)
					}
				})
			if err != nil || resp.Content != "hello" {
				t.Fatalf("retried call: %+v, %v", resp, err)
			}
			if waited := time.Since(start); waited < time.Second {
				t.Errorf("retried after %s, want the server's Retry-After (1s)", waited)
			}
			if len(retries) != 1 || retries[0].Attempt != 2 || !strings.Contains(retries[0].Reason, "HTTP 429") {
				t.Errorf("retry notices %+v, want one for attempt 2 naming HTTP 429", retries)
			}
			if n := seq.requests(); n != 3 {
				t.Errorf("%d requests, want 3 (the 429 twice, then the answer)", n)
			}
		})
	}
}

// TestUnfinishedStreamEveryAdapter: a stream that ends before the model
// finished is the same retryable error in every adapter, and text already
// streamed stops WithRetry from sending the request again (the caller has
// shown it; a tool call could otherwise be produced twice).
func TestUnfinishedStreamEveryAdapter(t *testing.T) {
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			full := a.reply([]string{"he", "llo"})
			seq := &sequence{steps: []http.HandlerFunc{stream(a.firstDelta()), stream(full)}}
			srv := httptest.NewServer(seq)
			defer srv.Close()
			var text strings.Builder
			_, err := llm.WithRetry(a.client(srv.URL, "", 0), llm.RetryPolicy{Attempts: 3}).
				Stream(context.Background(), hiRequest, func(d llm.Delta) { text.WriteString(d.Text) })
			var e *llm.Error
			if !asError(err, &e) || !e.Retryable || !strings.Contains(err.Error(), "the stream ended before the model finished") {
				t.Fatalf("error %v, want the retryable unfinished-stream error", err)
			}
			if text.String() != "he" || seq.requests() != 1 {
				t.Errorf("streamed %q over %d requests, want \"he\" over 1 (no retry after output)", text.String(), seq.requests())
			}
		})
	}
}

// TestDroppedToolCallEveryAdapter: a stream dropped in the middle of a
// tool call's arguments has shown the user nothing, so WithRetry sends the
// request again, and the call's answer holds the tool call once: the
// caller runs it once, from the complete response, in every adapter.
func TestDroppedToolCallEveryAdapter(t *testing.T) {
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			full := a.toolCall()
			seq := &sequence{steps: []http.HandlerFunc{stream(upTo(full, "in.go")), stream(full)}}
			srv := httptest.NewServer(seq)
			defer srv.Close()
			var retries int
			resp, err := llm.WithRetry(a.client(srv.URL, "", 0), llm.RetryPolicy{Attempts: 3}).
				Stream(context.Background(), hiRequest, func(d llm.Delta) {
					if d.Kind == llm.Retry {
						retries++
					}
				})
			if err != nil {
				t.Fatal(err)
			}
			if len(resp.ToolCalls) != 1 || resp.ToolCalls[0].Name != "read" || resp.ToolCalls[0].Arguments != toolArgs {
				t.Errorf("tool calls %+v, want read %s once", resp.ToolCalls, toolArgs)
			}
			if retries != 1 || seq.requests() != 2 {
				t.Errorf("%d retries over %d requests, want 1 over 2", retries, seq.requests())
			}
		})
	}
}

// TestErrorEventEveryAdapter: a rate limit the server reports inside a
// stream that already said 200 is the same retryable 429 in every
// adapter, worded the same, without the key.
func TestErrorEventEveryAdapter(t *testing.T) {
	const key = "sk-secret-key-1234"
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			srv := httptest.NewServer(stream(a.rateLimited("too many requests for " + key)))
			defer srv.Close()
			_, err := a.client(srv.URL, key, 0).Stream(context.Background(), hiRequest, nil)
			var e *llm.Error
			if !asError(err, &e) || e.Status != http.StatusTooManyRequests || !e.Retryable {
				t.Fatalf("error %#v (%v), want a retryable 429", e, err)
			}
			want := "the model API reported an error mid-stream: "
			if got := err.Error(); !strings.Contains(got, want) || !strings.Contains(got, "too many requests for [redacted]") || strings.Contains(got, key) {
				t.Errorf("error %q: want %q and the message with the key redacted", got, want)
			}
		})
	}
}

// TestNotAnEventStreamEveryAdapter: a 200 answered with a JSON document
// (a gateway's error object) is the same error in every adapter: its
// message without the key, or a plain complaint when it has none; not
// retryable.
func TestNotAnEventStreamEveryAdapter(t *testing.T) {
	const key = "sk-secret-key-1234"
	for _, a := range adapters {
		for _, c := range []struct{ body, want string }{
			{`{"error":{"message":"quota exceeded for ` + key + `"}}`, "model API error (HTTP 200): quota exceeded for [redacted]"},
			{``, "model API error (HTTP 200): the server answered with application/json instead of an event stream"},
		} {
			t.Run(a.name, func(t *testing.T) {
				srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
					w.Header().Set("Content-Type", "application/json")
					_, _ = io.WriteString(w, c.body)
				}))
				defer srv.Close()
				_, err := a.client(srv.URL, key, 0).Stream(context.Background(), hiRequest, nil)
				var e *llm.Error
				if !asError(err, &e) || e.Retryable || err.Error() != c.want {
					t.Errorf("error %v, want %q, not retryable", err, c.want)
				}
			})
		}
	}
}

// TestIdleTimeoutEveryAdapter: a server that goes silent mid-stream fails
// the call, retryably, after the idle timeout, in every adapter.
func TestIdleTimeoutEveryAdapter(t *testing.T) {
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			srv := httptest.NewServer(a.stalled())
			defer srv.Close()
			defer srv.CloseClientConnections()
			_, err := a.client(srv.URL, "", 50*time.Millisecond).Stream(context.Background(), hiRequest, nil)
			var e *llm.Error
			if !asError(err, &e) || !e.Retryable || !errors.Is(err, llm.ErrIdle) || !strings.Contains(err.Error(), "no data from the model API for 50ms") {
				t.Fatalf("error %v, want a retryable idle timeout", err)
			}
		})
	}
}

// TestCancelEveryAdapter: a call cancelled mid-stream returns the
// context's error, which is not a model error and is never retried, and
// no delta after it, in every adapter.
func TestCancelEveryAdapter(t *testing.T) {
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			srv := httptest.NewServer(a.stalled())
			defer srv.Close()
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			deltas := 0
			_, err := llm.WithRetry(a.client(srv.URL, "", 0), llm.RetryPolicy{Attempts: 3}).Stream(ctx, hiRequest, func(d llm.Delta) {
				deltas++
				cancel()
			})
			var e *llm.Error
			if !errors.Is(err, context.Canceled) || asError(err, &e) || llm.IsRetryable(err) {
				t.Fatalf("error %v, want context.Canceled only", err)
			}
			if deltas != 1 {
				t.Errorf("%d deltas, want 1 (none after the cancel)", deltas)
			}
		})
	}
}

// TestRedirectToAnotherOriginRefusedEveryAdapter: a redirect never
// carries the key to another host or port, and is not retried.
func TestRedirectToAnotherOriginRefusedEveryAdapter(t *testing.T) {
	const key = "sk-secret-key-1234"
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			other := &sequence{}
			otherSrv := httptest.NewServer(other)
			defer otherSrv.Close()
			redirect := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				http.Redirect(w, r, otherSrv.URL+r.URL.Path, http.StatusTemporaryRedirect)
			}))
			defer redirect.Close()
			_, err := a.client(redirect.URL, key, 0).Stream(context.Background(), hiRequest, nil)
			if err == nil || !strings.Contains(err.Error(), "refused to follow a redirect") || strings.Contains(err.Error(), key) || llm.IsRetryable(err) {
				t.Errorf("err = %v, want a refused redirect without the key, not retryable", err)
			}
			if n := other.requests(); n != 0 {
				t.Errorf("the other origin received %d requests", n)
			}
		})
	}
}

// TestBadURLEveryAdapter: an endpoint URL without a scheme or host is
// refused by every call, with an error naming the URL, and not retried.
func TestBadURLEveryAdapter(t *testing.T) {
	for _, a := range adapters {
		for _, root := range []string{"api.example.com", "://x"} {
			t.Run(a.name, func(t *testing.T) {
				_, err := a.client(root, "", 0).Stream(context.Background(), hiRequest, nil)
				if err == nil || llm.IsRetryable(err) || !strings.Contains(err.Error(), "invalid") || !strings.Contains(err.Error(), root) {
					t.Errorf("root %q: error %v, want the URL refused, not retryable", root, err)
				}
			})
		}
	}
}

func asError(err error, e **llm.Error) bool {
	if err == nil {
		return false
	}
	return errors.As(err, e)
}

// BenchmarkStream2000Tokens streams a 2,000-token reply, one token per
// event, through each adapter over loopback HTTP: the adapters' per-request
// and per-event overhead.
func BenchmarkStream2000Tokens(b *testing.B) {
	for _, a := range adapters {
		b.Run(a.name, func(b *testing.B) {
			body := a.reply(tokens(2000))
			srv := httptest.NewServer(stream(body))
			defer srv.Close()
			client := a.client(srv.URL, "sk-bench", 0)
			b.SetBytes(int64(len(body)))
			b.ReportAllocs()
			for b.Loop() {
				resp, err := client.Stream(context.Background(), hiRequest, func(llm.Delta) {})
				if err != nil || len(resp.Content) != 2000*len(" tok") {
					b.Fatal(resp, err)
				}
			}
		})
	}
}

// TestConnectionReusedEveryAdapter: consecutive model calls go over one
// HTTP/1.1 connection. A stream the client stopped reading at its end
// marker ([DONE], message_stop, response.completed) without reaching the
// body's end closed the connection, and every step paid a new TCP and TLS
// handshake with the server.
func TestConnectionReusedEveryAdapter(t *testing.T) {
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			var mu sync.Mutex
			conns := 0
			seq := &sequence{steps: []http.HandlerFunc{flushed(a.toolCall()), flushed(a.reply([]string{"he", "llo"})), flushed(a.reply([]string{"again"}))}}
			srv := httptest.NewUnstartedServer(seq)
			srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
				if s == http.StateNew {
					mu.Lock()
					conns++
					mu.Unlock()
				}
			}
			srv.StartTLS()
			t.Cleanup(srv.Close)
			p := tlsClient(a.name, srv.URL, srv.Client())
			for i := range 3 {
				// The connection goes back to the pool in the background
				// once the body's end has come: wait for it (or fail)
				// before the next call, as a turn's next step comes
				// after the tools ran.
				idle := make(chan error, 1)
				ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{PutIdleConn: func(err error) { idle <- err }})
				if _, err := p.Stream(ctx, hiRequest, nil); err != nil {
					t.Fatalf("call %d: %v", i+1, err)
				}
				select {
				case err := <-idle:
					if err != nil {
						t.Fatalf("call %d: the connection was not kept: %v", i+1, err)
					}
				case <-time.After(5 * time.Second):
					t.Fatalf("call %d: the connection never went back to the pool (closed after the stream's end marker)", i+1)
				}
			}
			mu.Lock()
			defer mu.Unlock()
			if conns != 1 {
				t.Errorf("three calls opened %d connections, want 1", conns)
			}
		})
	}
}

// tlsClient is adapter name's client for a TLS test server at root.
func tlsClient(name, root string, hc *http.Client) llm.Provider {
	switch name {
	case "openai":
		return openai.New(openai.Config{URL: root + "/chat/completions", APIKey: "k", HTTPClient: hc})
	case "anthropic":
		return anthropic.New(anthropic.Config{BaseURL: root, APIKey: "k", HTTPClient: hc})
	default:
		return responses.New(responses.Config{BaseURL: root + "/v1", APIKey: "k", HTTPClient: hc})
	}
}

// flushed answers with body's events one at a time, each flushed, and
// ends the response after the last, as a provider does: the body's end
// (the chunked terminator) comes after the stream's end marker.
func flushed(body string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for ev := range strings.SplitAfterSeq(body, "\n\n") {
			_, _ = io.WriteString(w, ev)
			w.(http.Flusher).Flush()
		}
	}
}

// BenchmarkCallOverTLS: a short model call over TLS on one kept
// connection, as the steps of a turn make them, and over a new connection
// each time (what every step paid when a stream's end closed its
// connection). On loopback the difference is the handshake's CPU; to a
// provider across the internet it is also two round trips.
func BenchmarkCallOverTLS(b *testing.B) {
	for _, reuse := range []bool{true, false} {
		name := "kept-connection"
		if !reuse {
			name = "new-connection"
		}
		b.Run(name, func(b *testing.B) {
			srv := httptest.NewTLSServer(flushed(adapters[0].reply([]string{"he", "llo"})))
			defer srv.Close()
			hc := srv.Client()
			hc.Transport.(*http.Transport).DisableKeepAlives = !reuse
			client := tlsClient("openai", srv.URL, hc)
			for b.Loop() {
				idle := make(chan struct{}, 1)
				ctx := httptrace.WithClientTrace(context.Background(), &httptrace.ClientTrace{PutIdleConn: func(error) { idle <- struct{}{} }})
				if _, err := client.Stream(ctx, hiRequest, nil); err != nil {
					b.Fatal(err)
				}
				if reuse {
					<-idle
				}
			}
		})
	}
}

// TestBodyThatNeverEndsEveryAdapter: a server that sends the stream's end
// marker and then holds the body open neither stalls the call, which
// returns at the marker, nor keeps the connection: it is closed once the
// rest has not come in time.
func TestBodyThatNeverEndsEveryAdapter(t *testing.T) {
	// The call must return well before the reader gives up, even on a
	// busy machine.
	const wait = 5 * time.Second
	llm.SetFinishWait(t, wait)
	for _, a := range adapters {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			closed := make(chan struct{})
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				_, _ = io.Copy(io.Discard, r.Body)
				w.Header().Set("Content-Type", "text/event-stream")
				_, _ = io.WriteString(w, a.reply([]string{"he", "llo"}))
				w.(http.Flusher).Flush()
				<-r.Context().Done() // the body never ends
				close(closed)
			}))
			t.Cleanup(srv.Close)
			done := make(chan error, 1)
			go func() {
				resp, err := a.client(srv.URL, "k", 0).Stream(context.Background(), hiRequest, nil)
				if err == nil && resp.Content != "hello" {
					err = fmt.Errorf("content %q, want hello", resp.Content)
				}
				done <- err
			}()
			select {
			case err := <-done:
				if err != nil {
					t.Fatal(err)
				}
			case <-time.After(wait / 2):
				t.Fatal("the call did not return at the stream's end marker")
			}
			select {
			case <-closed:
			case <-time.After(10 * time.Second):
				t.Fatal("the connection of a body that never ends was kept open")
			}
		})
	}
}
