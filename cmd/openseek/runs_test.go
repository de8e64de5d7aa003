package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/openseek/openseek/internal/fleet"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

// writeValue is a run's scripted turn pair: write value.txt, then answer.
func writeValue(content, answer string) []llmtest.Turn {
	args, _ := json.Marshal(map[string]string{"path": "value.txt", "content": content})
	return []llmtest.Turn{
		llmtest.Calls(llmtest.Call{Name: "write", Args: string(args)}),
		llmtest.Text(answer),
	}
}

func bestOfReport(t *testing.T, r result) fleet.LocalReport {
	t.Helper()
	var rep fleet.LocalReport
	if err := json.Unmarshal([]byte(r.stdout), &rep); err != nil {
		t.Fatalf("the report is not JSON: %v\nstdout: %s\nstderr: %s", err, r.stdout, r.stderr)
	}
	return rep
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(data)
}

// Three attempts make three different edits in three worktrees; the one
// that passes --verify is chosen; all three are reported with their
// diffs; the user's working tree is not touched without --apply.
func TestRunRunsVerifyPicksThePassingRun(t *testing.T) {
	t.Parallel()
	var turns []llmtest.Turn
	turns = append(turns, writeValue("1\n", "wrote one")...)
	turns = append(turns, writeValue("2\n", "wrote two")...)
	turns = append(turns, writeValue("3\nand more\n", "wrote three")...)
	srv := llmtest.NewServer(t, turns...)
	srv.MultiConversation()
	repo := fleetRepo(t, map[string]string{"value.txt": "0\n"})
	home := t.TempDir()
	r := openseek(t, repo, "", []string{"HOME=" + home}, append(modelArgs(srv), "--no-sandbox", "--no-verify",
		"run", "--runs", "3", "--concurrency", "1", "--verify", "grep -qx 2 value.txt", "--format", "json", "set", "the", "value")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s\nstdout: %s", r.code, r.stderr, r.stdout)
	}
	rep := bestOfReport(t, r)
	if rep.Chosen != 2 || rep.By != "verify" || len(rep.Runs) != 3 || rep.Applied {
		t.Fatalf("chosen %d by %q, %d runs, applied %v; verdict %q", rep.Chosen, rep.By, len(rep.Runs), rep.Applied, rep.Verdict)
	}
	for i, want := range []struct {
		line   string
		passed bool
		lines  int
	}{{"+1", false, 2}, {"+2", true, 2}, {"+and more", false, 3}} {
		a := rep.Runs[i]
		if a.Run != i+1 || a.State != fleet.Completed || a.VerifyOK == nil || *a.VerifyOK != want.passed || a.ChangedLines != want.lines || !strings.Contains(a.Diff, want.line) || !strings.Contains(a.Stat, "value.txt") {
			t.Errorf("run %d: %+v", i+1, a)
		}
		if a.Patch == "" || !strings.Contains(readFile(t, a.Patch), want.line) {
			t.Errorf("run %d: patch %q lacks %q", i+1, a.Patch, want.line)
		}
		if a.SessionLog == "" || !strings.Contains(readFile(t, a.SessionLog), "set the value") {
			t.Errorf("run %d: no session log at %q", i+1, a.SessionLog)
		}
		if _, err := os.Stat(filepath.Join(rep.Root, "run-"+string(rune('1'+i)))); err == nil {
			t.Errorf("run %d: its workspace was kept without --keep", i+1)
		}
	}
	if got := readFile(t, filepath.Join(repo, "value.txt")); got != "0\n" {
		t.Errorf("the working tree changed without --apply: value.txt = %q", got)
	}
	if wt := gitRun(t, repo, "worktree", "list"); strings.Count(wt, "\n") != 1 {
		t.Errorf("worktrees left behind:\n%s", wt)
	}
	if !strings.HasPrefix(rep.Root, filepath.Join(home, ".openseek", "runs")) {
		t.Errorf("runs kept in %s, want under ~/.openseek/runs", rep.Root)
	}

	// The text report says the same, and how to apply.
	srv.Push(turns...)
	r = openseek(t, repo, "", []string{"HOME=" + home}, append(modelArgs(srv), "--no-sandbox", "--no-verify",
		"run", "--runs", "3", "--concurrency", "1", "--verify", "grep -qx 2 value.txt", "set", "the", "value")...)
	for _, want := range []string{"run 2: completed  ← chosen", "verify:  failed (grep -qx 2 value.txt)", "verdict: run 2, the only run that completed and passed the verify command", "apply it with: git -C " + repo + " apply "} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("text report lacks %q:\n%s", want, r.stdout)
		}
	}
}

// --apply brings the chosen change into the working tree, over its
// uncommitted changes, which the attempts started from; outside a git
// repository the attempts work in copies.
func TestRunRunsApply(t *testing.T) {
	t.Parallel()
	for _, inGit := range []bool{true, false} {
		name := map[bool]string{true: "git", false: "plain directory"}[inGit]
		t.Run(name, func(t *testing.T) {
			srv := llmtest.NewServer(t, writeValue("2\n", "done")...)
			var dir string
			if inGit {
				dir = fleetRepo(t, map[string]string{"value.txt": "0\n", "README.md": "# r\n"})
				// Uncommitted: a changed file and an untracked one.
				if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# r\nlocal edit\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			} else {
				dir = t.TempDir()
				if err := os.WriteFile(filepath.Join(dir, "README.md"), []byte("# r\n"), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, "value.txt"), []byte("1\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			r := openseek(t, dir, "", nil, append(modelArgs(srv), "--no-sandbox", "--no-verify",
				"run", "--runs", "1", "--apply", "--format", "json", "set the value")...)
			rep := bestOfReport(t, r)
			if r.code != 0 || rep.Chosen != 1 || !rep.Applied || rep.Runs[0].ChangedLines != 2 {
				t.Fatalf("exit %d, report %+v\nstderr: %s", r.code, rep, r.stderr)
			}
			if got := readFile(t, filepath.Join(dir, "value.txt")); got != "2\n" {
				t.Errorf("value.txt = %q after --apply, want 2", got)
			}
			if inGit {
				if got := readFile(t, filepath.Join(dir, "README.md")); got != "# r\nlocal edit\n" {
					t.Errorf("the uncommitted change was lost: %q", got)
				}
				if !strings.Contains(rep.Runs[0].Diff, "-1\n+2") {
					t.Errorf("the run did not start from the working tree's state: %s", rep.Runs[0].Diff)
				}
			}
		})
	}
}

// --judge: a judging model sees the task and every run's diff and picks
// one; a reply that is not a verdict falls back to the rule with a
// warning.
func TestRunRunsJudge(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, reply string
		chosen      int
		by, warning string
	}{
		{"verdict", "```json\n{\"best\": 2, \"reason\": \"it also explains the value\"}\n```", 2, "judge", ""},
		{"malformed", "I prefer the second one.", 1, "fewest-lines", "the judge could not choose"},
		{"not a candidate", `{"best": 7, "reason": "x"}`, 1, "fewest-lines", "it chose attempt 7, which is not one of the candidates"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var turns []llmtest.Turn
			turns = append(turns, writeValue("1\n", "short")...)
			turns = append(turns, writeValue("1\nthe value, explained\n", "long")...)
			turns = append(turns, llmtest.Text(tc.reply))
			srv := llmtest.NewServer(t, turns...)
			srv.MultiConversation()
			repo := fleetRepo(t, map[string]string{"value.txt": "0\n"})
			r := openseek(t, repo, "", nil, append(modelArgs(srv), "--no-sandbox", "--no-verify",
				"run", "--runs", "2", "--concurrency", "1", "--judge", "--format", "json", "set the value")...)
			rep := bestOfReport(t, r)
			if r.code != 0 || rep.Chosen != tc.chosen || rep.By != tc.by {
				t.Fatalf("exit %d: chosen %d by %q (verdict %q, warning %q), want %d by %q\nstderr: %s", r.code, rep.Chosen, rep.By, rep.Verdict, rep.Warning, tc.chosen, tc.by, r.stderr)
			}
			if !strings.Contains(rep.Warning, tc.warning) || tc.warning != "" && !strings.Contains(r.stderr, "warning: "+rep.Warning) {
				t.Errorf("warning %q (stderr %q), want %q", rep.Warning, r.stderr, tc.warning)
			}
			if tc.by == "judge" && !strings.Contains(rep.Verdict, "it also explains the value") {
				t.Errorf("verdict %q lacks the judge's reason", rep.Verdict)
			}
			reqs := srv.Requests()
			judge := string(reqs[len(reqs)-1].Body)
			for _, want := range []string{"set the value", `<attempt number=\"1\"`, `<attempt number=\"2\"`, "+the value, explained"} {
				if !strings.Contains(judge, want) {
					t.Errorf("the judge's request lacks %q", want)
				}
			}
		})
	}
}

func TestRunRunsBadInput(t *testing.T) {
	t.Parallel()
	repo := fleetRepo(t, nil)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--runs", "0", "x"}, "--runs must be between 1 and 32, not 0"},
		{[]string{"run", "--runs", "33", "x"}, "--runs must be between 1 and 32, not 33"},
		{[]string{"run", "--runs", "1", "--judge", "x"}, "--judge picks the best of several runs"},
		{[]string{"run", "--apply", "x"}, "go with --runs N"},
		{[]string{"run", "--runs", "2", "--continue", "x"}, "--continue does not go with --runs"},
		{[]string{"run", "--runs", "2", "--format", "jsonl", "x"}, "--format with --runs must be text or json"},
		{[]string{"run", "--runs", "2", "--concurrency", "-1", "x"}, "--concurrency must be at least 1"},
		{[]string{"run", "--runs", "2"}, "a task is required"},
	} {
		r := openseek(t, repo, "", nil, tc.args...)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %q", tc.args, r.code, r.stderr, tc.want)
		}
	}
}

// Three runs at once against a model that answers slowly take about as
// long as one run (the figure is logged; no timed assertion).
func TestRunRunsConcurrently(t *testing.T) {
	t.Parallel()
	slow := llmtest.Reply{Text: "done slowly", ChunkSize: 1, Delay: 20 * time.Millisecond}
	srv := llmtest.NewServer(t, slow, slow, slow, slow)
	srv.MultiConversation()
	repo := fleetRepo(t, map[string]string{"value.txt": "0\n"})
	t0 := time.Now()
	if r := openseek(t, repo, "", nil, append(modelArgs(srv), "--no-sandbox", "--no-verify", "run", "x")...); r.code != 0 {
		t.Fatalf("run: %d %s", r.code, r.stderr)
	}
	one := time.Since(t0)
	t0 = time.Now()
	r := openseek(t, repo, "", nil, append(modelArgs(srv), "--no-sandbox", "--no-verify", "run", "--runs", "3", "--concurrency", "3", "--format", "json", "x")...)
	three := time.Since(t0)
	rep := bestOfReport(t, r)
	if r.code != 0 || len(rep.Runs) != 3 || rep.Chosen != 1 || rep.By != "fewest-lines" {
		t.Fatalf("exit %d, report %+v", r.code, rep)
	}
	for _, a := range rep.Runs {
		if a.State != fleet.Completed || a.Result != "done slowly" {
			t.Errorf("run %d: %s %q %q", a.Run, a.State, a.Result, a.Error)
		}
	}
	t.Logf("one run %v; run --runs 3 (3 at once) %v", one.Round(time.Millisecond), three.Round(time.Millisecond))
}

// When no run passes the check, nothing is chosen or applied: the report
// says why and the exit status is 1.
func TestRunRunsNoneQualifies(t *testing.T) {
	t.Parallel()
	srv := llmtest.NewServer(t, writeValue("1\n", "done")...)
	repo := fleetRepo(t, map[string]string{"value.txt": "0\n"})
	r := openseek(t, repo, "", nil, append(modelArgs(srv), "--no-sandbox", "--no-verify",
		"run", "--runs", "1", "--verify", "exit 3", "--apply", "--format", "json", "set the value")...)
	rep := bestOfReport(t, r)
	if r.code != 1 || rep.Chosen != 0 || rep.Applied || rep.Verdict != "none of the 1 runs completed and passed the verify command" {
		t.Fatalf("exit %d, report %+v", r.code, rep)
	}
	if got := readFile(t, filepath.Join(repo, "value.txt")); got != "0\n" {
		t.Errorf("value.txt = %q: a change was applied though none was chosen", got)
	}
}

// TestBestOfNamesAreTheFlags: asked (shared by both builds) knows every
// best-of-N flag addFlags defines, and no other.
func TestBestOfNamesAreTheFlags(t *testing.T) {
	t.Parallel()
	f := pflag.NewFlagSet("run", pflag.ContinueOnError)
	new(bestOfFlags).addFlags(f)
	var got []string
	f.VisitAll(func(fl *pflag.Flag) { got = append(got, fl.Name) })
	want := slices.Sorted(slices.Values(bestOfNames))
	if slices.Sort(got); !slices.Equal(got, want) {
		t.Errorf("addFlags defines %v, bestOfNames lists %v", got, want)
	}
}
