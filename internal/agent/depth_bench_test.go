package agent

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/llm/openai"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// The per-step cost of a long session: BenchmarkStepAtDepth runs steps at
// a fixed depth of the conversation (the step's model request carries
// depth-1 earlier steps) and reports, per step:
//
//	µs/step         everything between one agent_step and the next
//	server-µs/step  the scripted server's share (request body read,
//	                parsed and checked, up to its response headers)
//	engine-µs/step  the difference: the engine's own time
//
// Run: go test ./internal/agent/ -run '^$' -bench StepAtDepth -benchmem
//
// Each benchmark iteration is one step. The log is reset to depth-2
// prefilled steps every segment (untimed), one warm-up step brings the
// engine's caches to the state a running session has, and the following
// steps are timed; segments are short so that the depth stays within 5%.

// benchResult is a tool result of a realistic size (a short command
// output).
var benchResult = strings.Repeat("ok: 12 files checked, nothing to report\n", 5)

// benchReasoning is the reasoning of every scripted step.
const benchReasoning = "The previous command succeeded; next I check the following package for the same problem."

func benchTool() tool.Tool {
	return tool.Func("noop", "does nothing", func(ctx context.Context, env *tool.Env, a noopArgs) tool.Result {
		return tool.TextResult(benchResult)
	})
}

// prefill appends the first prompt and n complete tool steps to log.
func prefill(b *testing.B, log Log, n int) {
	b.Helper()
	if _, err := log.Append(&session.User{Content: protocol.Text("check every package of the repository")}); err != nil {
		b.Fatal(err)
	}
	r := benchReasoning
	for i := range n {
		id := fmt.Sprintf("p%d", i)
		items := []session.Item{
			&session.Assistant{Reasoning: &r, ToolCalls: []chat.ToolCall{{ID: id, Name: "noop", Arguments: fmt.Sprintf(`{"note":"package %d"}`, i)}}, Usage: &protocol.Usage{PromptTokens: 1000, CompletionTokens: 30, TotalTokens: 1030}},
			&session.ToolResult{ToolCallID: id, ToolName: "noop", Content: protocol.Text(benchResult)},
		}
		for _, it := range items {
			if _, err := log.Append(it); err != nil {
				b.Fatal(err)
			}
		}
	}
}

// timingTransport adds up the time of round trips (request sent to
// response headers) while on is set: the scripted server's share.
type timingTransport struct {
	base  http.RoundTripper
	on    atomic.Bool
	total atomic.Int64
	step  atomic.Int64 // when the current step started (unix ns)
	pre   atomic.Int64 // time from step starts to their requests
}

func (t *timingTransport) RoundTrip(r *http.Request) (*http.Response, error) {
	start := time.Now()
	res, err := t.base.RoundTrip(r)
	if t.on.Load() {
		t.total.Add(int64(time.Since(start)))
		t.pre.Add(start.UnixNano() - t.step.Load())
	}
	return res, err
}

// depthLogs builds fresh logs that start with the same prefilled steps.
type depthLogs interface {
	fresh(b *testing.B) (Log, func())
}

type memLogs struct{ base *MemoryLog }

func (m memLogs) fresh(*testing.B) (Log, func()) {
	s := m.base.Session()
	l := NewMemoryLog(s.ID, s.SystemPrompt)
	l.s.Events = append([]session.Event(nil), s.Events...)
	return l, func() {}
}

// fileLogs copies a prefilled session file and opens a writer on the
// copy, as `run --continue` does.
type fileLogs struct {
	root string
	data []byte
	n    int
}

func (f *fileLogs) fresh(b *testing.B) (Log, func()) {
	f.n++
	root := filepath.Join(f.root, fmt.Sprint(f.n))
	st := session.NewStore(root)
	if err := os.MkdirAll(st.Dir("bench"), 0o700); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(st.Path("bench"), f.data, 0o600); err != nil {
		b.Fatal(err)
	}
	w, err := st.OpenWriter("bench", "", "bench")
	if err != nil {
		b.Fatal(err)
	}
	return w, func() {
		w.Close()
		os.RemoveAll(root)
	}
}

func BenchmarkStepAtDepth(b *testing.B) {
	sys := strings.Repeat("system prompt ", 200)
	for _, kind := range []string{"memory", "file"} {
		for _, depth := range []int{10, 100, 1000} {
			b.Run(fmt.Sprintf("log=%s/depth=%d", kind, depth), func(b *testing.B) {
				var logs depthLogs
				switch kind {
				case "memory":
					base := NewMemoryLog("bench", sys)
					prefill(b, base, depth-2)
					logs = memLogs{base}
				case "file":
					root := b.TempDir()
					st := session.NewStore(filepath.Join(root, "base"))
					w, err := st.OpenWriter("bench", sys, "bench")
					if err != nil {
						b.Fatal(err)
					}
					prefill(b, w, depth-2)
					w.Close()
					data, err := os.ReadFile(st.Path("bench"))
					if err != nil {
						b.Fatal(err)
					}
					logs = &fileLogs{root: root, data: data}
				}
				benchDepth(b, logs, depth)
			})
		}
	}
}

func benchDepth(b *testing.B, logs depthLogs, depth int) {
	srv := llmtest.NewServer(b)
	tr := &timingTransport{base: http.DefaultTransport}
	p := openai.New(openai.Config{URL: srv.URL(), HTTPClient: &http.Client{Transport: tr}})
	seg := max(1, depth/20)
	calls := 0
	b.ReportAllocs()
	b.StopTimer()
	b.ResetTimer()
	for left := b.N; left > 0; {
		s := min(seg, left)
		left -= s
		log, done := logs.fresh(b)
		srv.ExpectPrefixBreak()
		for range s + 1 { // a warm-up step, then the timed ones
			calls++
			srv.Push(llmtest.Reply{Reasoning: benchReasoning, Calls: []llmtest.Call{{ID: fmt.Sprintf("c%d", calls), Name: "noop", Args: fmt.Sprintf(`{"note":"step %d"}`, calls)}}})
		}
		srv.Push(llmtest.Text("done"))
		a := New(Config{
			Provider: p, Model: "test", Tools: tool.NewRegistry(benchTool()),
			Env: &tool.Env{Workspace: "/"}, Log: log, Window: 1 << 30,
			Emit: func(e protocol.Event) {
				st, ok := e.(protocol.AgentStep)
				if ok {
					// Keep the server from holding every request body:
					// the benchmark's heap stays that of one session.
					srv.ForgetRequests()
				}
				switch {
				case !ok:
				case st.Step == 2:
					tr.on.Store(true)
					b.StartTimer()
				case st.Step == s+2:
					b.StopTimer()
					tr.on.Store(false)
				}
				if ok {
					tr.step.Store(time.Now().UnixNano())
				}
			},
		})
		if out, err := a.Turn(context.Background(), protocol.Text("go on"), nil); err != nil || !out.OK() || out.Steps != s+2 {
			b.Fatal(out, err)
		}
		done()
	}
	if b.N > 0 {
		n := float64(b.N)
		server := float64(tr.total.Load()) / 1e3 / n
		all := float64(b.Elapsed().Nanoseconds()) / 1e3 / n
		b.ReportMetric(all, "µs/step")
		b.ReportMetric(server, "server-µs/step")
		b.ReportMetric(all-server, "engine-µs/step")
		b.ReportMetric(float64(tr.pre.Load())/1e3/n, "request-µs/step")
	}
}
