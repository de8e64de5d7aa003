// Command llmscript serves a scripted model for benchmarks: -steps tool
// calls (a cheap shell command each), then a final answer. It writes its
// chat-completions URL to -url-file and serves until killed.
package main

import (
	"flag"
	"fmt"
	"os"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

func main() {
	steps := flag.Int("steps", 20, "tool-call steps before the final answer")
	urlFile := flag.String("url-file", "", "where to write the server URL")
	flag.Parse()
	var turns []llmtest.Turn
	for i := 1; i < *steps; i++ {
		turns = append(turns, llmtest.Calls(llmtest.Call{ID: fmt.Sprintf("c%d", i), Name: "shell", Args: fmt.Sprintf(`{"cmd":"echo step %d"}`, i)}))
	}
	turns = append(turns, llmtest.Text("done"))
	srv := llmtest.NewServer(nopTB{}, turns...)
	if err := os.WriteFile(*urlFile, []byte(srv.URL()), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	select {}
}

// nopTB satisfies testing.TB for a server that lives outside a test.
type nopTB struct{ testing.TB }

func (nopTB) Helper()                           {}
func (nopTB) Cleanup(func())                    {}
func (nopTB) Errorf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (nopTB) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
func (nopTB) Logf(format string, args ...any) {}
func (nopTB) Name() string                    { return "llmscript" }
