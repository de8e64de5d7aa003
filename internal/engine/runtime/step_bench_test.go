package runtime

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// BenchmarkShellStep measures the engine's cost of one step that runs a
// shell command (`true`), with the sandbox on and off: the request, the
// stream, the policy check, the command in its sandbox and the
// recording. Each iteration is a turn of ten such steps, so the turn's
// snapshot is spread over them. With think=0 the model replies at once;
// with think=20ms it takes about that long per reply, as a real model
// takes far longer — the time the sandbox uses to prepare the next
// command (engine-µs/step leaves the model's time out).
func BenchmarkShellStep(b *testing.B) {
	const steps = 10
	for _, bc := range []struct {
		name      string
		noSandbox bool
		chunk     time.Duration
	}{
		{"think=0/unsandboxed", true, 0}, {"think=0/sandboxed", false, 0},
		{"think=20ms/unsandboxed", true, 5 * time.Millisecond}, {"think=20ms/sandboxed", false, 5 * time.Millisecond},
	} {
		b.Run(bc.name, func(b *testing.B) {
			srv := llmtest.NewServer(b)
			e, _, _ := newEngine(b, srv, func(o *testOptions) { o.NoSandbox = bc.noSandbox })
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				var turns []llmtest.Turn
				for s := range steps {
					turns = append(turns, llmtest.Reply{Delay: bc.chunk, Calls: []llmtest.Call{{ID: fmt.Sprintf("c%d-%d", i, s), Name: "shell", Args: fmt.Sprintf(`{"cmd":"true %d"}`, s)}}})
				}
				srv.Push(append(turns, llmtest.Reply{Delay: bc.chunk, Text: "done"})...)
				if out, err := e.Prompt(context.Background(), protocol.Text("step"), nil); err != nil || !out.OK() {
					b.Fatal(out, err)
				}
			}
			// The model's time: each reply's chunks (about four) times the
			// pause, over steps+1 replies.
			think := time.Duration(4*(steps+1)*b.N) * bc.chunk
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(steps*b.N), "µs/step")
			b.ReportMetric(float64((b.Elapsed()-think).Microseconds())/float64(steps*b.N), "engine-µs/step")
		})
	}
}
