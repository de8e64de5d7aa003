package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/protocol"
)

// TestClaimsNeedEvidence runs the real binary with the default flags
// (sandbox on) against the scripted model, whose final answer says the
// tests pass: the turn warns (an unverified_claim event, just before
// turn_summary) unless a passing test ran after the last edit.
func TestClaimsNeedEvidence(t *testing.T) {
	t.Parallel()
	const claim = "Fixed the greeting. All tests pass."
	write := func(id string) llmtest.Turn {
		return llmtest.Calls(llmtest.Call{ID: id, Name: "write", Args: `{"path":"greeting.txt","content":"hello\n"}`})
	}
	test := func(id string) llmtest.Turn {
		return llmtest.Calls(llmtest.Call{ID: id, Name: "shell", Args: `{"cmd":"make test"}`})
	}
	for _, tc := range []struct {
		name     string
		makefile string
		script   []llmtest.Turn
		want     string // the warning; "" for none
	}{
		{"a claim with no test", "test:\n\t@echo ok\n",
			[]llmtest.Turn{write("w1"), llmtest.Text(claim)},
			"The answer says the tests pass, but no test ran in this session."},
		{"a claim after a passing test and no later edit", "test:\n\t@echo ok\n",
			[]llmtest.Turn{write("w1"), test("t1"), llmtest.Text(claim)},
			""},
		{"an edit after the test", "test:\n\t@echo ok\n",
			[]llmtest.Turn{test("t1"), write("w1"), llmtest.Text(claim)},
			"The answer says the tests pass, but no test ran after the last edit (step 2)."},
		{"the test failed", "test:\n\t@echo FAIL; exit 1\n",
			[]llmtest.Turn{write("w1"), test("t1"), llmtest.Text(claim)},
			"The answer says the tests pass, but the last test run (`make test`, step 2) failed."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			if err := os.WriteFile(filepath.Join(ws, "Makefile"), []byte(tc.makefile), 0o644); err != nil {
				t.Fatal(err)
			}
			srv := llmtest.NewServer(t, tc.script...)
			r := openseek(t, ws, "", nil, append(modelArgs(srv), "run", "fix the greeting")...)
			if r.code != 0 {
				t.Fatalf("exit %d\n%s", r.code, r.stderr)
			}
			got := find[protocol.UnverifiedClaim](r.events)
			switch {
			case tc.want == "" && len(got) > 0:
				t.Errorf("warned with evidence in the record: %+v", got)
			case tc.want != "" && (len(got) != 1 || got[0].Message != tc.want || got[0].Claim != "tests" || got[0].Quote != "All tests pass"):
				t.Errorf("unverified_claim events %+v, want one saying %q", got, tc.want)
			}
			n := names(r.events)
			if tc.want != "" && (len(n) < 2 || n[len(n)-2] != "unverified_claim" || n[len(n)-1] != "turn_summary") {
				t.Errorf("the warning is not just before the turn summary: %v", n)
			}
		})
	}

	// The text face shows it as a warning.
	ws := t.TempDir()
	srv := llmtest.NewServer(t, write("w1"), llmtest.Text(claim))
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "run", "--format", "text", "fix the greeting")...)
	if r.code != 0 || !strings.Contains(r.stderr+r.stdout, "warning: The answer says the tests pass, but no test ran in this session.") {
		t.Errorf("text output lacks the warning: exit %d\nstdout: %s\nstderr: %s", r.code, r.stdout, r.stderr)
	}
}

func TestClaimsNeedEvidenceAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestClaimsNeedEvidence$")
}
