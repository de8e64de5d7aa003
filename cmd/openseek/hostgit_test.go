package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/internal/snapshot"
	"github.com/openseek/openseek/protocol"
)

// plantGitPayloads makes the repository at ws name a program for each way
// git has of running one (fsmonitor, hooks, filter and diff drivers, the
// pager, diff.external); each writes a file named after itself into marks.
func plantGitPayloads(t *testing.T, ws, marks string) {
	t.Helper()
	touch := func(name string) string { return "touch " + filepath.Join(marks, name) }
	config := fmt.Sprintf("[core]\n\tfsmonitor = %q\n\tpager = %q\n[filter \"evil\"]\n\tclean = %q\n\tsmudge = %q\n\trequired = true\n[diff \"evil\"]\n\ttextconv = %q\n[diff]\n\texternal = %q\n",
		touch("fsmonitor")+"; exit 1", touch("pager"), touch("clean")+"; cat", touch("smudge")+"; cat", touch("textconv")+"; cat", touch("external"))
	f, err := os.OpenFile(filepath.Join(ws, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(config)
	f.Close()
	for _, h := range []string{"pre-commit", "post-checkout", "post-index-change", "reference-transaction"} {
		if err := os.WriteFile(filepath.Join(ws, ".git", "hooks", h), []byte("#!/bin/sh\n"+touch("hook-"+h)+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

// TestNothingInTheWorkspaceRunsOnTheHost: a workspace whose repository
// config names programs for fsmonitor, hooks, filter and diff drivers,
// the pager and diff.external, and a model that selects those drivers in
// .gitattributes, makes a nested repository with its own fsmonitor and
// tries to rewrite .git/config. Through two turns (each snapshotted, each
// verified by a check that runs git), a rewind and two reviews, nothing
// runs on the host; the snapshots live in ~/.openseek/snapshots/<hash>
// and not in the workspace; the rewind puts the files back. Plain git in
// the same workspace runs the payload (it is live).
func TestNothingInTheWorkspaceRunsOnTheHost(t *testing.T) {
	t.Parallel()
	ws := gitRepo(t)
	marks := t.TempDir()
	plantGitPayloads(t, ws, marks)
	home := t.TempDir()
	// The check verify runs calls git in the workspace: it runs in the
	// sandbox, where the payload's marks land in a private /tmp.
	writeConfig(t, home, "[verify]\ncommand = \"git status --porcelain >/dev/null; git diff HEAD >/dev/null; true\"\n")
	nested := "printf '[core]\\n\\tfsmonitor = \"touch " + filepath.Join(marks, "nested-fsmonitor") + "\"\\n[filter \"evil\"]\\n\\tclean = \"touch " + filepath.Join(marks, "nested-clean") + "\"\\n' >> sub/.git/config"
	attempts := []struct{ id, cmd string }{
		{"attributes", "printf '* filter=evil diff=evil\\n' > .gitattributes"},
		{"nested", "mkdir -p sub && git init -q sub && " + nested + " && echo n > sub/n.txt && printf '* filter=evil\\n' > sub/.gitattributes"},
		{"gitconfig", "printf '[core]\\n\\thooksPath = /tmp\\n' >> .git/config"},
	}
	var calls []llmtest.Call
	for _, a := range attempts {
		calls = append(calls, llmtest.Call{ID: a.id, Name: "shell", Args: `{"cmd":` + quoteJSON(a.cmd) + `}`})
	}
	calls = append(calls, llmtest.Call{ID: "w1", Name: "write", Args: `{"path":"app.py","content":"def f(x):\n    return 1\n"}`})
	srv := llmtest.NewServer(t,
		llmtest.Reply{Calls: calls}, llmtest.Text("one"),
		llmtest.Calls(llmtest.Call{Name: "write", Args: `{"path":"app.py","content":"def f(x):\n    return 2\n"}`}), llmtest.Text("two"),
	)
	env := []string{"HOME=" + home}
	for i, task := range []string{"first", "second"} {
		r := openseek(t, ws, "", env, append(modelArgs(srv), "--session", "s1", "run", task)...)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, r.code, r.stderr)
		}
		if len(find[protocol.VerifyResult](r.events)) == 0 {
			t.Errorf("run %d: the check did not run", i)
		}
		for _, n := range find[protocol.BackgroundNotice](r.events) {
			if strings.Contains(n.Content, "[snapshot]") {
				t.Errorf("run %d: %s", i, n.Content)
			}
		}
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".gitattributes")); !strings.Contains(string(b), "filter=evil") {
		t.Fatalf("the model's .gitattributes is not there: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "sub", ".git", "config")); !strings.Contains(string(b), "nested-fsmonitor") {
		t.Fatalf("the model's nested repository is not there: %q", b)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, ".git", "config")); strings.Contains(string(b), "hooksPath = /tmp") {
		t.Error("the sandbox let the model rewrite .git/config")
	}
	if r := openseek(t, ws, "", env, "rewind", "s1", "--turn", "1"); r.code != 0 {
		t.Fatalf("rewind: %s", r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(ws, "app.py")); string(b) != "def f(x):\n    return eval(x)\n" {
		t.Errorf("app.py after the rewind: %q", b)
	}
	reviewer := llmtest.NewServer(t, llmtest.Text(cliReport), llmtest.Text(cliReport))
	for _, args := range [][]string{{"review", "--uncommitted"}, {"review"}} {
		if r := openseek(t, ws, "", env, append(modelArgs(reviewer), args...)...); r.code != 0 {
			t.Errorf("%v: exit %d: %s", args, r.code, r.stderr)
		}
	}
	if ran := marked(marks); len(ran) != 0 {
		t.Errorf("programs the workspace named ran on the host: %v", ran)
	}

	real, _ := filepath.EvalSymlinks(ws)
	if _, err := os.Stat(filepath.Join(snapshot.Dir(home, real), "HEAD")); err != nil {
		t.Errorf("no side repository at ~/.openseek/snapshots/<hash>: %v", err)
	}
	if _, err := os.Stat(filepath.Join(ws, ".openseek", "snapshots")); err == nil {
		t.Error("a side repository was made in the workspace")
	}

	// The payload is live: the user's own git in this workspace runs it.
	cmd := exec.Command("git", "status")
	cmd.Dir = ws
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull)
	cmd.Run()
	if ran := marked(marks); len(ran) == 0 {
		t.Error("plain git status ran none of the planted programs: the test's payload is not live")
	}
}

// TestRewindWritesNothingThroughASymlink: turn 1 writes hooks/pre-commit
// and conf/config.toml; turn 2 swaps both directories for symlinks to
// .git/hooks and .openseek. Rewinding turn 2 puts the directories back
// and writes nothing through the links: no git hook, no project config.
func TestRewindWritesNothingThroughASymlink(t *testing.T) {
	t.Parallel()
	ws := gitRepo(t)
	srv := llmtest.NewServer(t,
		llmtest.Calls(
			llmtest.Call{Name: "write", Args: `{"path":"hooks/pre-commit","content":"#!/bin/sh\necho planted\n"}`},
			llmtest.Call{Name: "write", Args: `{"path":"conf/config.toml","content":"model = \"planted\"\n"}`},
		), llmtest.Text("one"),
		llmtest.Calls(llmtest.Call{Name: "shell", Args: `{"cmd":"rm -rf hooks conf && ln -s .git/hooks hooks && ln -s .openseek conf && ls -l"}`}), llmtest.Text("two"),
	)
	env := []string{"HOME=" + t.TempDir()}
	for i, task := range []string{"first", "second"} {
		r := openseek(t, ws, "", env, append(modelArgs(srv), "--session", "s1", "run", task)...)
		if r.code != 0 {
			t.Fatalf("run %d: exit %d: %s", i, r.code, r.stderr)
		}
	}
	if st, err := os.Lstat(filepath.Join(ws, "hooks")); err != nil || st.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("turn 2 did not make hooks a symlink: %v", err)
	}
	r := openseek(t, ws, "", env, "rewind", "s1", "--turn", "2")
	if r.code != 0 {
		t.Fatalf("rewind: %s", r.stderr)
	}
	for _, p := range []string{".git/hooks/pre-commit", ".openseek/config.toml"} {
		if _, err := os.Lstat(filepath.Join(ws, p)); err == nil {
			t.Errorf("the rewind wrote %s through a symlink", p)
		}
	}
	for _, p := range []string{"hooks/pre-commit", "conf/config.toml"} {
		if st, err := os.Lstat(filepath.Join(ws, filepath.Dir(p))); err != nil || !st.IsDir() {
			t.Errorf("%s is not a directory again: %v", filepath.Dir(p), err)
		}
		if _, err := os.Stat(filepath.Join(ws, p)); err != nil {
			t.Errorf("%s was not restored: %v", p, err)
		}
	}
}

// marked lists the marks the planted programs left.
func marked(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "*"))
	return m
}

// TestHostGitAsOrdinaryUser runs the tests of the host's git, the
// snapshot store and the project root again as an ordinary user.
func TestHostGitAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestNothingInTheWorkspaceRunsOnTheHost|TestRewindWritesNothingThroughASymlink|TestSessionsLandInTheirProject|TestRewindCommand)$")
}
