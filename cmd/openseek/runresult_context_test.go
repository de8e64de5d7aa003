package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
)

// TestRunResultCarriesContextAndCompactions: `run --format json` (the
// default flags, sandbox on) whose context fills up ends with a result
// that says what the stream's context_health and compaction_report
// events said: the context's health at the end and each compaction,
// validated against the published schema; the exit code is the usual.
func TestRunResultCarriesContextAndCompactions(t *testing.T) {
	t.Parallel()
	ws := bigFileWorkspace(t)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "r1", Name: "read", Args: `{"path":"big.txt","max_output_chars":50000}`}),
		llmtest.Reply{Summary: true, Text: "SUMMARY: big.txt was read in full."},
		llmtest.Text("big.txt has 700 lines."),
	)
	// The window fits the first request under the soft ceiling, and not
	// the file's content too: the run compacts once.
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "--context-window", "9000", "run", "--format", "json", "how long is big.txt?")...)
	if r.code != exitDone {
		t.Fatalf("exit %d\nstdout %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
	res := checkResult(t, schemaFile(t, "run-result.v1.json"), r)
	if c := res.Context; c == nil || c.Window != 9000 || c.Compactions != 1 || c.UsedTokens <= 0 {
		t.Errorf("context %+v, want the last context_health: window 9000, 1 compaction", c)
	}
	if len(res.Compactions) != 1 {
		t.Fatalf("compactions %+v", res.Compactions)
	}
	if c := res.Compactions[0]; c.Trigger != "auto" || c.Turns != 1 || len(c.Files) != 1 || c.Files[0] != "big.txt" ||
		c.FromSequence != 1 || c.ToSequence < c.FromSequence || c.TokensAfter >= c.TokensBefore || c.HookReplaced {
		t.Errorf("compaction %+v", c)
	}
	if c := res.Context; c != nil && c.UsedTokens >= res.Compactions[0].TokensBefore {
		t.Errorf("context after the compaction uses %d tokens, not fewer than before it (%d)", c.UsedTokens, res.Compactions[0].TokensBefore)
	}
	var raw map[string]json.RawMessage
	json.Unmarshal([]byte(r.stdout), &raw)
	if string(raw["compaction_failures"]) != "[]" {
		t.Errorf("compaction_failures = %s, want []", raw["compaction_failures"])
	}
}

// TestRunResultCompactionFailure: a compaction that fails (the model
// answers the summary request with nothing) is in the result's compaction_failures,
// and the result's exit code is the process's.
func TestRunResultCompactionFailure(t *testing.T) {
	t.Parallel()
	ws := bigFileWorkspace(t)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "r1", Name: "read", Args: `{"path":"big.txt","max_output_chars":50000}`}),
		llmtest.Reply{Summary: true}, // an empty summary
		llmtest.Text("big.txt has 700 lines."),
	)
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "--context-window", "9000", "run", "--format", "json", "how long is big.txt?")...)
	res := checkResult(t, schemaFile(t, "run-result.v1.json"), r)
	if len(res.CompactionFailures) != 1 || !strings.Contains(res.CompactionFailures[0], "empty") {
		t.Errorf("compaction failures %q (status %s, exit %d)", res.CompactionFailures, res.Status, res.ExitCode)
	}
	if len(res.Compactions) != 0 {
		t.Errorf("compactions %+v after a failed one", res.Compactions)
	}
}

// bigFileWorkspace is a workspace whose big.txt, read in full, does not
// fit a 9000-token window beside the first request.
func bigFileWorkspace(t *testing.T) string {
	ws := t.TempDir()
	var big strings.Builder
	for i := range 700 {
		fmt.Fprintf(&big, "line %d of the big file\n", i)
	}
	os.WriteFile(filepath.Join(ws, "big.txt"), []byte(big.String()), 0o644)
	return ws
}

// TestRunResultContextAsOrdinaryUser runs them again as an ordinary user.
func TestRunResultContextAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestRunResultCarriesContextAndCompactions|TestRunResultCompactionFailure)$")
}
