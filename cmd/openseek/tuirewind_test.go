package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
)

// /diff and /rewind in the real binary (sandbox on): /diff shows what the
// session's turns changed; the / menu runs /rewind, the
// picker offers the turns, picking the last puts its file away and the
// model no longer sees it; an @ mention carries a file to the model.
func TestTUIRewindAndMentionInTmux(t *testing.T) {
	ws, home := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(ws, "notes.md"), []byte("remember the milk\n"), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "c1", Name: "shell", Args: `{"cmd":"echo one > one.txt"}`}),
		llmtest.Text("made one"),
		llmtest.Calls(llmtest.Call{ID: "c2", Name: "shell", Args: `{"cmd":"echo two > two.txt"}`}),
		llmtest.Text("made two"),
		llmtest.Text("noted"),
	)
	p := startTmux(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "--session", "rw1", "tui")...)
	p.waitFor("/help for commands")
	p.typeText("make one")
	p.keys("Enter")
	p.waitFor("made one")
	p.typeText("make two")
	p.keys("Enter")
	p.waitFor("made two")
	p.waitFor("— finished · 2 steps")

	p.typeText("/diff")
	p.keys("Enter")
	s := p.waitFor("/diff since before turn 1: 2 files")
	t.Logf("/diff:\n%s", s)
	for _, want := range []string{"+++ b/one.txt", "+one", "+++ b/two.txt", "+two"} {
		if !strings.Contains(s, want) {
			t.Errorf("/diff lacks %q:\n%s", want, s)
		}
	}

	p.typeText("/rew")
	s = p.waitFor("pick a turn: files and conversation back to before it")
	t.Logf("the / menu:\n%s", s)
	p.keys("Enter")
	s = p.waitFor("Rewind to before a turn")
	t.Logf("the picker:\n%s", s)
	p.keys("Enter")
	s = p.waitFor("rewound to before turn 2")
	t.Logf("after the rewind:\n%s", s)
	if strings.Contains(s, "› make two") || !strings.Contains(s, "› make one") {
		t.Errorf("the transcript is not the conversation before turn 2:\n%s", s)
	}
	if _, err := os.Stat(filepath.Join(ws, "two.txt")); err == nil {
		t.Errorf("two.txt survived the rewind")
	}
	if _, err := os.Stat(filepath.Join(ws, "one.txt")); err != nil {
		t.Errorf("one.txt was rewound too: %v", err)
	}

	srv.ExpectPrefixBreak() // the rewind shortened the conversation on purpose
	p.typeText("read @note")
	s = p.waitFor("@notes.md")
	t.Logf("the @ menu:\n%s", s)
	p.keys("Tab")
	p.typeText("please")
	p.keys("Enter")
	p.waitFor("noted")
	s = p.waitFor("— finished · 1 step")
	t.Logf("after the mention:\n%s", s)
	if !strings.Contains(s, "attached notes.md") {
		t.Errorf("the transcript does not name the attached file:\n%s", s)
	}
	reqs := srv.Requests()
	last := string(reqs[len(reqs)-1].Body)
	if strings.Contains(last, "make two") {
		t.Errorf("the model still sees the rewound turn")
	}
	if !strings.Contains(last, "remember the milk") || !strings.Contains(last, "read @notes.md please") {
		t.Errorf("the mentioned file did not reach the model:\n%.2000s", last)
	}
	quitTUI(t, p, ws)
}

// TestTUIRewindAsOrdinaryUser runs the rewind test again as an ordinary
// user.
func TestTUIRewindAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^TestTUIRewindAndMentionInTmux$")
}
