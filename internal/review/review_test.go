package review

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

func TestMain(m *testing.M) {
	sandbox.Main() // the engine's shell runs in the sandbox
	os.Exit(m.Run())
}

func git(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func put(t *testing.T, dir, name, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(filepath.Join(dir, name)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repoWithBranch is a repository whose main has calc.go and whose
// checked-out branch "feature" changes it.
func repoWithBranch(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	git(t, dir, "init", "-q", "-b", "main")
	put(t, dir, "calc.go", "package calc\n\nfunc Div(a, b int) int {\n\tif b == 0 {\n\t\treturn 0\n\t}\n\treturn a / b\n}\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "calc")
	git(t, dir, "checkout", "-q", "-b", "feature")
	put(t, dir, "calc.go", "package calc\n\nfunc Div(a, b int) int {\n\treturn a / b\n}\n")
	git(t, dir, "commit", "-q", "-am", "simplify Div")
	return dir
}

func options(t *testing.T, dir string, srv *llmtest.Server) Options {
	return Options{Engine: engine.Options{
		Dir:    dir,
		Home:   t.TempDir(),
		Model:  "test-model",
		APIURL: srv.URL(),
		Retry:  llm.RetryPolicy{Attempts: 1, Base: time.Millisecond, Max: time.Millisecond},
		Getenv: func(string) string { return "" },
	}}
}

const goodReport = `{"findings":[{"file":"calc.go","line_start":3,"line_end":4,"severity":"high","title":"Div panics on zero","body":"The zero check was removed.\nDiv(1, 0) now panics."}],"verdict":"request_changes","summary":"One regression."}`

var wantReport = &Report{
	Findings: []Finding{{File: "calc.go", LineStart: 3, LineEnd: 4, Severity: High, Title: "Div panics on zero",
		Body: "The zero check was removed.\nDiv(1, 0) now panics."}},
	Verdict: RequestChanges, Summary: "One regression.",
}

func TestReviewOfABranchReadsTheCodeAndReports(t *testing.T) {
	dir := repoWithBranch(t)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{Name: "read", Args: `{"path":"calc.go"}`}),
		llmtest.Text("```json\n"+goodReport+"\n```"),
	)
	before := indexStat(t, dir)
	// Started from a subdirectory: the review's workspace is the
	// repository's top, where the diff's paths (and the read) resolve.
	sub := filepath.Join(dir, "docs")
	if err := os.Mkdir(sub, 0o755); err != nil {
		t.Fatal(err)
	}
	rep, err := Run(context.Background(), options(t, sub, srv))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(rep, wantReport) {
		t.Errorf("report %+v", rep)
	}
	reqs := srv.Requests()
	first := string(reqs[0].Body)
	for _, want := range []string{"main...HEAD", "-\\tif b == 0 {", "calc.go | 3 ---"} {
		if !strings.Contains(first, want) {
			t.Errorf("the prompt lacks %q:\n%s", want, first)
		}
	}
	// The model read the file with its tools: the second request
	// carries the file's content.
	if !strings.Contains(string(reqs[1].Body), "return a / b") {
		t.Errorf("the read result did not reach the model: %s", reqs[1].Body)
	}
	if after := indexStat(t, dir); after != before {
		t.Errorf("the review touched the user's index: %s → %s", before, after)
	}
}

// indexStat is the user's .git/index modification time and size.
func indexStat(t *testing.T, dir string) string {
	st, err := os.Stat(filepath.Join(dir, ".git", "index"))
	if err != nil {
		t.Fatal(err)
	}
	return fmt.Sprint(st.ModTime(), st.Size())
}

func TestReviewRefusesWritesInPlanMode(t *testing.T) {
	dir := repoWithBranch(t)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{Name: "write", Args: `{"path":"calc.go","content":"oops"}`}),
		llmtest.Text(goodReport),
	)
	if _, err := Run(context.Background(), options(t, dir, srv)); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "calc.go")); string(b) == "oops" {
		t.Error("a review wrote a file")
	}
	if !strings.Contains(string(srv.Requests()[1].Body), "plan mode") {
		t.Errorf("the write was not refused as plan mode: %s", srv.Requests()[1].Body)
	}
}

func TestReviewRetriesOnceOnInvalidOutput(t *testing.T) {
	tests := []struct {
		name    string
		answers []llmtest.Turn
		wantErr string
	}{
		{"prose then JSON", []llmtest.Turn{llmtest.Text("Looks mostly fine to me!"), llmtest.Text(goodReport)}, ""},
		{"bad severity then JSON", []llmtest.Turn{
			llmtest.Text(strings.Replace(goodReport, `"high"`, `"critical"`, 1)), llmtest.Text(goodReport)}, ""},
		{"invalid twice", []llmtest.Turn{
			llmtest.Text("no"), llmtest.Text(`{"findings":[],"verdict":"lgtm"}`)},
			`still not a valid ReviewReport after a retry: "verdict" is "lgtm"`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := repoWithBranch(t)
			srv := llmtest.NewServer(t, tc.answers...)
			rep, err := Run(context.Background(), options(t, dir, srv))
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("error %v, want %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(rep, wantReport) {
				t.Errorf("report %+v", rep)
			}
			retry := string(srv.Requests()[1].Body)
			if !strings.Contains(retry, "not a valid ReviewReport") {
				t.Errorf("the retry does not say what was wrong: %s", retry)
			}
		})
	}
}

func TestReviewRangeErrors(t *testing.T) {
	plain := t.TempDir()
	srv := llmtest.NewServer(t)
	if _, err := Run(context.Background(), options(t, plain, srv)); !errors.Is(err, ErrNotGit) || !strings.Contains(err.Error(), "is not inside a git work tree") {
		t.Errorf("outside git: %v", err)
	}
	dir := repoWithBranch(t)
	for _, tc := range []struct {
		base        string
		uncommitted bool
		want        string
	}{
		{"no-such-branch", false, "--base no-such-branch: no such commit, branch or tag"},
		{"--output=/tmp/x", false, "is not a git revision"},
		{"main", true, "contradict"},
	} {
		o := options(t, dir, srv)
		o.Base, o.Uncommitted = tc.base, tc.uncommitted
		if _, err := Run(context.Background(), o); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("base %q: %v, want %q", tc.base, err, tc.want)
		}
	}
	// No main or master, no origin: the default base cannot be found.
	git(t, dir, "branch", "-q", "-m", "main", "trunk")
	if _, err := Run(context.Background(), options(t, dir, srv)); err == nil || !strings.Contains(err.Error(), "pass --base REF or --uncommitted") {
		t.Errorf("no default branch: %v", err)
	}
	if len(srv.Requests()) != 0 {
		t.Errorf("the model was asked %d times", len(srv.Requests()))
	}
}

func TestUncommittedChangesIncludeUntrackedFiles(t *testing.T) {
	dir := repoWithBranch(t)
	put(t, dir, "calc.go", "package calc\n\n// Div divides.\nfunc Div(a, b int) int {\n\treturn a / b\n}\n")
	put(t, dir, "new/extra.go", "package extra\n")
	put(t, dir, ".gitignore", "*.log\n")
	put(t, dir, "debug.log", "ignored\n")
	put(t, dir, ".openseek/sessions/x/log.jsonl", "{}\n") // the agent's own state
	ch, err := changes(context.Background(), dir, "", true)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"+// Div divides.", "+++ b/new/extra.go", "+package extra", "+++ b/.gitignore"} {
		if !strings.Contains(ch.Diff, want) {
			t.Errorf("diff lacks %q:\n%s", want, ch.Diff)
		}
	}
	if strings.Contains(ch.Diff, "debug.log") || strings.Contains(ch.Diff, ".openseek") {
		t.Errorf("an ignored file or the agent's state is in the diff:\n%s", ch.Diff)
	}
	// With nothing changed there is nothing to ask the model.
	clean := repoWithBranch(t)
	srv := llmtest.NewServer(t)
	o := options(t, clean, srv)
	o.Uncommitted = true
	rep, err := Run(context.Background(), o)
	if err != nil || rep.Verdict != Approve || len(rep.Findings) != 0 || !strings.Contains(rep.Summary, "Nothing to review") {
		t.Errorf("clean tree: %+v %v", rep, err)
	}
}

func TestTextFormat(t *testing.T) {
	rep := &Report{Verdict: RequestChanges, Summary: "Two things.", Findings: []Finding{
		{File: "a.go", LineStart: 7, LineEnd: 7, Severity: Low, Title: "naming", Body: "x"},
		{File: "b.go", LineStart: 1, LineEnd: 3, Severity: High, Title: "crash", Body: "line one\nline two"},
	}}
	var b bytes.Buffer
	if err := WriteText(&b, rep); err != nil {
		t.Fatal(err)
	}
	want := "verdict: request changes\nTwo things.\n\n[high] b.go:1-3 crash\n    line one\n    line two\n\n[low] a.go:7 naming\n    x\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		in, err string
	}{
		{goodReport, ""},
		{"```\n" + goodReport + "\n```", ""},
		{`{"findings":[],"verdict":"approve"}`, ""},
		{`{"verdict":"comment"}`, ""},
		{"", "empty"},
		{`[` + goodReport + `]`, "one JSON object"},
		{goodReport + " and more", "text after the JSON object"},
		{`{"findings":[{"file":"/etc/passwd","line_start":1,"line_end":1,"severity":"low","title":"t"}],"verdict":"comment"}`, "relative to the repository root"},
		{`{"findings":[{"file":"a.go","line_start":0,"line_end":1,"severity":"low","title":"t"}],"verdict":"comment"}`, `"line_start" must be a line number from 1`},
		{`{"findings":[{"file":"a.go","line_start":5,"line_end":2,"severity":"low","title":"t"}],"verdict":"comment"}`, `"line_end" 2 is before`},
		{`{"findings":[{"file":"a.go","line_start":1,"line_end":1,"severity":"low","title":" "}],"verdict":"comment"}`, `"title" is missing`},
		{`{"findings":[]}`, `"verdict" is missing`},
	} {
		rep, err := Parse(tc.in)
		if tc.err == "" {
			if err != nil || rep.Findings == nil {
				t.Errorf("Parse(%q): %+v %v", tc.in, rep, err)
			}
			continue
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Parse(%q): %v, want %q", tc.in, err, tc.err)
		}
	}
}

func FuzzParse(f *testing.F) {
	f.Add(goodReport)
	f.Add("```json\n{}\n```")
	f.Fuzz(func(t *testing.T, s string) {
		rep, err := Parse(s)
		if err == nil {
			if verr := rep.Validate(); verr != nil || rep.Findings == nil {
				t.Errorf("Parse accepted an invalid report %q: %v", s, verr)
			}
		}
	})
}

func TestPromptCutsALongDiffAtALine(t *testing.T) {
	diff := strings.Repeat("+a line of the diff\n", 100)
	p := prompt(Changes{Range: "main...HEAD", Stat: " x | 100 +\n", Diff: diff}, 510) // 25.5 lines
	if !strings.Contains(p, "[the diff is cut here: 500 of 2000 bytes shown;") {
		t.Errorf("no cut note:\n%s", p)
	}
	if strings.Count(p, "+a line of the diff\n") != 25 || !strings.Contains(p, "main...HEAD") {
		t.Errorf("prompt:\n%s", p)
	}
}

// A goal's audit shows the goal and the work since its baseline commit,
// committed or not, untracked files included; says when the baseline had
// changes not committed, and when nothing changed since; refuses a
// baseline the repository does not have.
func TestGoalTask(t *testing.T) {
	dir := repoWithBranch(t)
	base := strings.TrimSpace(string(must(exec.Command("git", "-C", dir, "rev-parse", "main").Output())))
	put(t, dir, "new.go", "package calc\n")
	task, err := GoalTask(context.Background(), dir, "make Div safe", session.Baseline{SHA: base, Dirty: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"<goal>\nmake Div safe\n</goal>", "at commit " + base + " with changes not committed then", "-\tif b == 0 {", "+++ b/new.go"} {
		if !strings.Contains(task, want) {
			t.Errorf("the audit's task lacks %q:\n%s", want, task)
		}
	}
	head := strings.TrimSpace(string(must(exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output())))
	os.Remove(filepath.Join(dir, "new.go"))
	task, err = GoalTask(context.Background(), dir, "make Div safe", session.Baseline{SHA: head})
	if err != nil || !strings.Contains(task, "Nothing has changed since that commit") || strings.Contains(task, "not committed then") {
		t.Errorf("no work since: %v\n%s", err, task)
	}
	if _, err := GoalTask(context.Background(), dir, "x", session.Baseline{SHA: strings.Repeat("0", 40)}); err == nil || !strings.Contains(err.Error(), "is not in this repository") {
		t.Errorf("an unknown baseline: %v", err)
	}
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// The review's session is opened through a host like every face's, so
// its progress is the session's event stream, whole and in order: the
// turn's tool calls and the turn summary with its totals, all of it
// shown before Run returns.
func TestReviewProgressIsTheSessionStream(t *testing.T) {
	dir := repoWithBranch(t)
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{Name: "read", Args: `{"path":"calc.go"}`}),
		llmtest.Text(goodReport),
	)
	o := options(t, dir, srv)
	var seen []string
	o.Progress = func(e protocol.Event) { seen = append(seen, e.EventName()) }
	if _, err := Run(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	got := strings.Join(seen, " ")
	for _, want := range []string{"tool_started", "tool_result", "agent_finished", "turn_summary"} {
		if !strings.Contains(got, want) {
			t.Errorf("the progress lacks %s: %s", want, got)
		}
	}
	if seen[len(seen)-1] != "turn_summary" {
		t.Errorf("the progress ends with %s, not the turn's summary: %s", seen[len(seen)-1], got)
	}
}
