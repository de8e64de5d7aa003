package acp

import (
	"os"
	"path/filepath"
	"testing"

	sdk "github.com/coder/acp-go-sdk"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// The build check reaches the editor as session/update notifications: a
// tool call "checking: <command>" in progress, then its update with how
// it ended.
func TestBuildCheckIsAToolCall(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".openseek"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[verify]\ncommand = \"echo checked\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "w1", Name: "write", Args: `{"path":"a.txt","content":"x\n"}`}),
		llmtest.Text("wrote a.txt"),
	)
	r := serve(t, srv, ws, home, "never")
	id := r.newSession(t)
	if got := r.prompt(t, id, "write a.txt"); got != sdk.StopReasonEndTurn {
		t.Errorf("stop reason %q", got)
	}
	var started *sdk.SessionUpdateToolCall
	var ended *sdk.SessionToolCallUpdate
	for _, u := range r.cl.take() {
		if tc := u.ToolCall; tc != nil && tc.ToolCallId == "verify-1" {
			started = tc
		}
		if tu := u.ToolCallUpdate; tu != nil && tu.ToolCallId == "verify-1" {
			if started == nil {
				t.Error("the check's result came before its start")
			}
			ended = tu
		}
	}
	if started == nil || started.Title != "checking: echo checked" || started.Status != sdk.ToolCallStatusInProgress || started.Kind != sdk.ToolKindExecute {
		t.Errorf("check started %+v", started)
	}
	if ended == nil || *ended.Status != sdk.ToolCallStatusCompleted || ended.Title == nil || *ended.Title != "check passed: echo checked" {
		t.Errorf("check ended %+v", ended)
	}
}

// A failed check's call fails with the output as its content; each run
// is a call of its own.
func TestTranslateFailedCheck(t *testing.T) {
	tr := newTranslator("/ws")
	for attempt := 1; attempt <= 2; attempt++ {
		tr.translate(protocol.VerifyStarted{Command: "make", Attempt: attempt})
	}
	ups := tr.translate(protocol.VerifyResult{Command: "make", ExitCode: 2, Attempt: 2, Output: "boom\n"})
	if len(ups) != 1 || ups[0].ToolCallUpdate == nil {
		t.Fatalf("updates %+v", ups)
	}
	u := ups[0].ToolCallUpdate
	if u.ToolCallId != "verify-2" || *u.Status != sdk.ToolCallStatusFailed || *u.Title != "check failed (exit 2): make" ||
		len(u.Content) != 1 || u.Content[0].Content == nil || u.Content[0].Content.Content.Text.Text != "boom\n" {
		t.Errorf("update %+v", u)
	}
}
