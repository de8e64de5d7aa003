package runtime

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/session"
)

// A goal set in a git workspace records its baseline just before it:
// HEAD's commit and whether the work tree had changes (the session
// directory aside); outside a repository with a commit, none.
func TestGoalRecordsItsBaseline(t *testing.T) {
	e, _, ws := newEngine(t, llmtest.NewServer(t), nil)
	goal := "first"
	if err := e.SetGoal(&goal, false); err != nil {
		t.Fatal(err)
	}
	if b, ok := e.Session().GoalBaseline(); ok {
		t.Errorf("a goal set outside git has a baseline %+v", b)
	}
	git := func(args ...string) string {
		out, err := exec.Command("git", append([]string{"-C", ws, "-c", "user.email=t@t", "-c", "user.name=t"}, args...)...).Output()
		if err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
		return strings.TrimSpace(string(out))
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("a\n"), 0o644)
	git("add", "a.txt")
	git("commit", "-q", "-m", "base")
	head := git("rev-parse", "HEAD")
	for _, tc := range []struct {
		dirty bool
		edit  func()
	}{
		{false, func() {}},
		{true, func() { os.WriteFile(filepath.Join(ws, "a.txt"), []byte("b\n"), 0o644) }},
	} {
		tc.edit()
		goal := "the goal"
		if err := e.SetGoal(&goal, false); err != nil {
			t.Fatal(err)
		}
		b, ok := e.Session().GoalBaseline()
		if want := (session.Baseline{SHA: head, Dirty: tc.dirty}); !ok || b != want {
			t.Errorf("baseline %+v %v, want %+v", b, ok, want)
		}
	}
}
