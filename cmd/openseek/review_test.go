package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

func gitRepo(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	run := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	run("init", "-q", "-b", "main")
	os.WriteFile(filepath.Join(dir, "app.py"), []byte("def f(x):\n    return x\n"), 0o644)
	run("add", ".")
	run("commit", "-q", "-m", "start")
	run("checkout", "-q", "-b", "topic")
	os.WriteFile(filepath.Join(dir, "app.py"), []byte("def f(x):\n    return eval(x)\n"), 0o644)
	run("commit", "-q", "-am", "eval")
	return dir
}

const cliReport = `{"findings":[{"file":"app.py","line_start":2,"line_end":2,"severity":"high","title":"eval of input","body":"Arbitrary code execution."}],"verdict":"request_changes"}`

func TestReviewCommand(t *testing.T) {
	t.Parallel()
	dir := gitRepo(t)
	srv := llmtest.NewServer(t, llmtest.Text(cliReport), llmtest.Text("not json"), llmtest.Text(cliReport))

	r := openseek(t, dir, "", nil, append(modelArgs(srv), "review")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	var rep struct {
		Findings []map[string]any `json:"findings"`
		Verdict  string           `json:"verdict"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil || strings.Count(r.stdout, "\n") != 1 {
		t.Fatalf("stdout is not one JSON report: %v\n%s", err, r.stdout)
	}
	if rep.Verdict != "request_changes" || len(rep.Findings) != 1 || rep.Findings[0]["file"] != "app.py" || rep.Findings[0]["line_start"] != 2.0 {
		t.Errorf("report %+v", rep)
	}
	if !strings.Contains(string(srv.Requests()[0].Body), "+    return eval(x)") {
		t.Error("the diff is not in the prompt")
	}

	// Text, after one invalid answer and its retry.
	r = openseek(t, dir, "", nil, append(modelArgs(srv), "review", "--base", "main", "--format", "text")...)
	want := "verdict: request changes\n\n[high] app.py:2 eval of input\n    Arbitrary code execution.\n"
	if r.code != 0 || r.stdout != want {
		t.Errorf("exit %d\nstdout %q\nwant   %q\nstderr %s", r.code, r.stdout, want, r.stderr)
	}
	// Review runs stay out of the user's session list; --all shows them.
	for _, args := range [][]string{{"sessions", "list"}, {"sessions", "list", "--format", "json"}} {
		if l := openseek(t, dir, "", nil, args...); l.code != 0 || strings.Contains(l.stdout, "review-") {
			t.Errorf("%v lists review runs: %d %s %s", args, l.code, l.stdout, l.stderr)
		}
		if l := openseek(t, dir, "", nil, append(args, "--all")...); strings.Count(l.stdout, `review-`) != 2 {
			t.Errorf("%v --all does not list both review runs: %s %s", args, l.stdout, l.stderr)
		}
	}

	for _, tc := range []struct {
		dir  string
		args []string
		want string
	}{
		{t.TempDir(), []string{"review"}, "is not inside a git work tree"},
		{dir, []string{"review", "--base", "nope"}, "--base nope: no such commit, branch or tag"},
		{dir, []string{"review", "--format", "yaml"}, "--format must be json or text"},
	} {
		r := openseek(t, tc.dir, "", nil, append(modelArgs(srv), tc.args...)...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) || r.stdout != "" {
			t.Errorf("%v: exit %d stdout %q stderr %q, want %q", tc.args, r.code, r.stdout, r.stderr, tc.want)
		}
	}
}
