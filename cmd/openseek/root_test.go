package main

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

func mkdirs(t *testing.T, root string, files map[string]string) {
	t.Helper()
	for p, body := range files {
		full := filepath.Join(root, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if body != "/" {
			if err := os.WriteFile(full, []byte(body), 0o644); err != nil {
				t.Fatal(err)
			}
		} else if err := os.MkdirAll(full, 0o755); err != nil {
			t.Fatal(err)
		}
	}
}

func TestProjectRoot(t *testing.T) {
	t.Parallel()
	base := t.TempDir()
	mkdirs(t, base, map[string]string{
		"stray/.openseek/sessions":         "/",
		"stray/proj/sub":                   "/",
		"configured/.openseek/config.toml": "",
		"configured/proj/sub":              "/",
		"repo/.git":                        "/",
		"repo/pkg/.openseek/sessions":      "/",
		"repo/pkg/deep":                    "/",
		"wt/.git":                          "gitdir: /elsewhere\n",
		"wt/a":                             "/",
		"tmp/.git":                         "/",
		"tmp/.openseek/config.toml":        "",
		"tmp/x/y":                          "/",
		"home/.openseek/config.toml":       "",
		"home/code/app":                    "/",
	})
	at := func(p string) string { return filepath.Join(base, p) }
	never := []string{at("tmp"), at("home")}
	for _, tc := range []struct{ start, want string }{
		{"stray/proj/sub", "stray/proj/sub"}, // a bare .openseek is no project
		{"configured/proj/sub", "configured"},
		{"repo/pkg/deep", "repo"}, // the git top level, not a bare .openseek below it
		{"repo/pkg", "repo"},
		{"wt/a", "wt"},         // a worktree's .git file
		{"tmp/x/y", "tmp/x/y"}, // the temporary directory never counts
		{"home/code/app", "home/code/app"},
	} {
		if got := projectRoot(at(tc.start), at("home"), never); got != at(tc.want) {
			t.Errorf("projectRoot(%s) = %s, want %s", tc.start, got, at(tc.want))
		}
	}
}

// TestSessionsLandInTheirProject runs openseek (no --dir) in directories
// below a tmp-like shared ancestor that holds a stray .openseek: the
// session lands in the directory started in, not in the ancestor, and
// the workspace (the sandbox's writable root) is that directory. With a
// config.toml the ancestor is the project; as $TMPDIR or $HOME it never
// is; below a git repository the project is the git top level.
func TestSessionsLandInTheirProject(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name       string
		files      map[string]string
		start      string
		env        func(base string) []string
		wantRoot   string
		notSession string
	}{
		{name: "stray", files: map[string]string{".openseek/sessions": "/", "proj/sub": "/"}, start: "proj/sub", wantRoot: "proj/sub", notSession: "."},
		{name: "configured", files: map[string]string{".openseek/config.toml": "", "proj/sub": "/"}, start: "proj/sub", wantRoot: ".", notSession: "proj/sub"},
		{name: "tmpdir", files: map[string]string{".openseek/config.toml": "", "proj": "/"}, start: "proj", wantRoot: "proj", notSession: ".",
			env: func(base string) []string { return []string{"TMPDIR=" + base} }},
		{name: "home", files: map[string]string{".openseek/config.toml": "", "proj": "/"}, start: "proj", wantRoot: "proj", notSession: ".",
			env: func(base string) []string { return []string{"HOME=" + base} }},
		{name: "git", files: map[string]string{"repo/.git": "/", "repo/pkg/.openseek/sessions": "/"}, start: "repo/pkg", wantRoot: "repo", notSession: "repo/pkg"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := t.TempDir()
			mkdirs(t, base, tc.files)
			var env []string
			if tc.env != nil {
				env = tc.env(base)
			}
			srv := llmtest.NewServer(t, llmtest.Text("ok"))
			r := openseek(t, filepath.Join(base, tc.start), "", env, append(modelArgs(srv), "--session", "s1", "run", "hello")...)
			if r.code != 0 {
				t.Fatalf("exit %d: %s", r.code, r.stderr)
			}
			want := filepath.Join(base, tc.wantRoot)
			started := find[protocol.SessionStarted](r.events)
			if len(started) != 1 || started[0].WorkspaceRoot == nil {
				t.Fatalf("session_started %+v", started)
			}
			if got := *started[0].WorkspaceRoot; got != want {
				t.Errorf("workspace root %s, want %s", got, want)
			}
			if _, err := os.Stat(filepath.Join(want, ".openseek", "sessions", "s1")); err != nil {
				t.Errorf("the session is not in %s: %v", want, err)
			}
			if _, err := os.Stat(filepath.Join(base, tc.notSession, ".openseek", "sessions", "s1")); err == nil {
				t.Errorf("the session landed in %s", tc.notSession)
			}
		})
	}
}
