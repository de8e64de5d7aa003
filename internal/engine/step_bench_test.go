package engine

import (
	"context"
	"fmt"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// BenchmarkShellStep measures the engine's cost of one step that runs a
// shell command (`true`), with the sandbox on and off: the model replies
// at once, so what is measured is the request, the stream, the policy
// check, the command in its sandbox and the recording. Each iteration is
// a turn of ten such steps, so the turn's snapshot is spread over them.
func BenchmarkShellStep(b *testing.B) {
	const steps = 10
	for _, bc := range []struct {
		name      string
		noSandbox bool
	}{{"unsandboxed", true}, {"sandboxed", false}} {
		b.Run(bc.name, func(b *testing.B) {
			srv := llmtest.NewServer(b)
			e, _, _ := newEngine(b, srv, func(o *Options) { o.NoSandbox = bc.noSandbox })
			b.ResetTimer()
			for i := 0; b.Loop(); i++ {
				var turns []llmtest.Turn
				for s := range steps {
					turns = append(turns, llmtest.Calls(llmtest.Call{ID: fmt.Sprintf("c%d-%d", i, s), Name: "shell", Args: fmt.Sprintf(`{"cmd":"true %d"}`, s)}))
				}
				srv.Push(append(turns, llmtest.Text("done"))...)
				if out, err := e.Prompt(context.Background(), protocol.Text("step"), nil); err != nil || !out.OK() {
					b.Fatal(out, err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(steps*b.N), "µs/step")
		})
	}
}
