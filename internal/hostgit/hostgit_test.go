package hostgit

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// plainGit runs the git binary as a user's shell would: the repository's
// configuration in force, no global one.
func plainGit(t *testing.T, dir string, args ...string) (string, error) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func mustGit(t *testing.T, dir string, args ...string) {
	t.Helper()
	if out, err := plainGit(t, dir, args...); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// hostileRepo is a repository whose config, attributes and hooks name a
// program for every way git has of running one; each writes a file named
// after itself into marks.
func hostileRepo(t *testing.T, marks string) string {
	t.Helper()
	repo := t.TempDir()
	mustGit(t, repo, "init", "-q", "-b", "main")
	for name, body := range map[string]string{
		"a.txt":          "one\n",
		"b.bin":          "two\n",
		"p.txt":          "three\n",
		".gitattributes": "*.txt filter=evil diff=evil merge=evil\nb.bin filter=Evil.Sub diff=evil\np.txt filter=proc\n",
	} {
		if err := os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	mustGit(t, repo, "add", ".")
	mustGit(t, repo, "commit", "-q", "-m", "start")
	mark := func(name string) string { return "touch " + filepath.Join(marks, name) }
	hooks := filepath.Join(repo, ".git", "hooks")
	os.MkdirAll(hooks, 0o755)
	for _, h := range []string{"pre-commit", "post-commit", "post-checkout", "post-index-change", "reference-transaction", "pre-auto-gc"} {
		if err := os.WriteFile(filepath.Join(hooks, h), []byte("#!/bin/sh\n"+mark("hook-"+h)+"\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	config := fmt.Sprintf(`[core]
	fsmonitor = %q
	pager = %q
	editor = %q
	sshCommand = %q
	askPass = %q
[filter "evil"]
	clean = %q
	smudge = %q
	required = true
[filter "Evil.Sub"]
	clean = %q
	smudge = %q
[filter "proc"]
	process = %q
[diff "evil"]
	textconv = %q
	command = %q
[diff]
	external = %q
[merge "evil"]
	driver = %q
[credential]
	helper = %q
[credential "https://example.com"]
	helper = %q
[log]
	showSignature = true
[gpg]
	program = %q
`,
		mark("fsmonitor")+"; exit 1", mark("pager"), mark("editor"), mark("ssh"), mark("askpass"),
		mark("clean")+"; cat", mark("smudge")+"; cat",
		mark("clean-sub")+"; cat", mark("smudge-sub")+"; cat",
		mark("process"),
		"sh -c '"+mark("textconv")+"; cat \"$1\"' -", mark("diff-command"),
		mark("external"),
		mark("merge-driver"),
		"!"+mark("credential"), "!"+mark("credential-url"),
		mark("gpg"),
	)
	f, err := os.OpenFile(filepath.Join(repo, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(config)
	f.Close()
	// Changed files, so that status, diff and add hash the work tree.
	for name, body := range map[string]string{"a.txt": "one changed\n", "b.bin": "two changed\n", "p.txt": "three changed\n", "new.txt": "new\n"} {
		os.WriteFile(filepath.Join(repo, name), []byte(body), 0o644)
	}
	return repo
}

// marked lists the marks the planted programs left.
func marked(dir string) []string {
	m, _ := filepath.Glob(filepath.Join(dir, "*"))
	return m
}

// What OpenSeek runs in a user's repository (review, worker worktrees,
// fleet workspaces), plus what would run a hook or a smudge filter.
var commands = [][]string{
	{"rev-parse", "--show-toplevel"},
	{"status", "--porcelain"},
	{"diff", "HEAD"},
	{"diff", "--stat", "HEAD"},
	{"diff", "--no-index", "--", os.DevNull, "new.txt"},
	{"log", "-p", "-1"},
	{"stash", "create"},
	{"ls-files", "--others", "--exclude-standard"},
	{"add", "-A"},
	{"diff", "--cached", "HEAD"},
	{"-c", "user.name=u", "-c", "user.email=u@x", "commit", "-q", "-m", "c"},
	{"checkout", "-q", "HEAD~1", "--", "."},
	{"gc", "--auto"},
}

// TestNothingInARepositoryRunsOnTheHost: a repository's config,
// attributes and hooks name programs for fsmonitor, hooks, filters
// (clean, smudge, process; a driver name with a dot too), textconv, diff
// commands, the pager, editors, ssh, askpass, credential helpers and
// signature checks. Plain git runs them (the payload is live); git run
// through this package runs none of them, and still works.
func TestNothingInARepositoryRunsOnTheHost(t *testing.T) {
	ctx := context.Background()

	marks := t.TempDir()
	repo := hostileRepo(t, marks)
	for _, args := range commands {
		plainGit(t, repo, args...)
	}
	live := marked(marks)
	for _, want := range []string{"fsmonitor", "clean", "clean-sub", "smudge", "textconv", "external", "hook-pre-commit"} {
		if !contains(live, filepath.Join(marks, want)) {
			t.Errorf("plain git did not run the planted %s (ran %v): the test's payload is not live", want, live)
		}
	}

	marks = t.TempDir()
	repo = hostileRepo(t, marks)
	g := Git{Dir: repo}
	for _, args := range commands {
		if _, stderr, err := g.Run(ctx, args...); err != nil && !(args[0] == "diff" && args[1] == "--no-index") {
			t.Errorf("git %v: %v\n%s", args, err, stderr)
		}
	}
	if ran := marked(marks); len(ran) != 0 {
		t.Errorf("git run through hostgit ran the repository's programs: %v", ran)
	}
	// A worktree of it (worker worktrees, fleet workspaces) checks out
	// with no smudge filter or hook either.
	wt := filepath.Join(t.TempDir(), "wt")
	if _, err := g.Output(ctx, "worktree", "add", "-q", "--detach", wt, "HEAD"); err != nil {
		t.Fatal(err)
	}
	if _, err := (Git{Dir: wt}).Output(ctx, "status", "--porcelain"); err != nil {
		t.Fatal(err)
	}
	if ran := marked(marks); len(ran) != 0 {
		t.Errorf("a worktree add ran the repository's programs: %v", ran)
	}
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

// The caller's GIT_* variables and the user's global and system
// configuration do not reach git: a global filter driver, a
// GIT_EXTERNAL_DIFF or GIT_CONFIG_PARAMETERS of the caller's run nothing.
func TestCallerEnvironmentAndGlobalConfigAreCutOff(t *testing.T) {
	ctx := context.Background()
	marks := t.TempDir()
	repo := t.TempDir()
	mustGit(t, repo, "init", "-q")
	os.WriteFile(filepath.Join(repo, ".gitattributes"), []byte("* filter=global\n"), 0o644)
	os.WriteFile(filepath.Join(repo, "f"), []byte("x\n"), 0o644)
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".gitconfig"), []byte("[filter \"global\"]\n\tclean = touch "+filepath.Join(marks, "global-clean")+"; cat\n"), 0o644)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("GIT_EXTERNAL_DIFF", "touch "+filepath.Join(marks, "env-external"))
	t.Setenv("GIT_CONFIG_PARAMETERS", "'core.fsmonitor'='touch "+filepath.Join(marks, "env-fsmonitor")+"'")
	t.Setenv("GIT_DIR", filepath.Join(t.TempDir(), "elsewhere"))
	g := Git{Dir: repo}
	for _, args := range [][]string{{"add", "-A"}, {"diff", "--cached"}, {"status"}} {
		if _, err := g.Output(ctx, args...); err != nil {
			t.Fatalf("git %v: %v", args, err)
		}
	}
	if ran := marked(marks); len(ran) != 0 {
		t.Errorf("ran %v", ran)
	}
}

func TestNeutralise(t *testing.T) {
	list := strings.Join([]string{
		"core.bare", "filter.lfs.clean", "filter.lfs.smudge", "filter.lfs.process", "filter.lfs.required",
		"filter.A.b.clean", "diff.x.textconv", "diff.x.command", "diff.external", "merge.m.driver",
		"credential.https://h.example.helper", "credential.helper", "remote.origin.uploadpack",
		"remote.origin.url", "filter.lfs.clean", "",
	}, "\x00")
	got, err := neutralise(list)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		"filter.lfs.clean=", "filter.lfs.smudge=", "filter.lfs.process=", "filter.lfs.required=false",
		"filter.A.b.clean=",
		"credential.https://h.example.helper=", "remote.origin.uploadpack=git-upload-pack",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	if _, err := neutralise("filter.a=b.clean\x00"); err == nil {
		t.Error("a driver -c cannot name was accepted")
	}
}

func TestErrors(t *testing.T) {
	ctx := context.Background()
	_, err := Git{Dir: t.TempDir()}.Output(ctx, "rev-parse", "--verify", "HEAD")
	var ge *Error
	if !errors.As(err, &ge) || ge.Code != 128 || !strings.HasPrefix(err.Error(), "git rev-parse: fatal: not a git repository") {
		t.Errorf("outside a repository: %v", err)
	}
	t.Setenv("PATH", t.TempDir())
	if _, err := (Git{Dir: t.TempDir()}).Output(ctx, "status"); !errors.Is(err, ErrNotInstalled) {
		t.Errorf("without git: %v", err)
	}
	if v := Verb([]string{"--no-pager", "-c", "a.b=c", "-C", "dir", "diff", "--stat"}); v != "diff" {
		t.Errorf("Verb = %q", v)
	}
}
