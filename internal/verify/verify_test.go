package verify

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func write(t *testing.T, dir, name, content string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDetect(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  string
	}{
		{"go module", map[string]string{"go.mod": "module x\n"}, "go build ./... && go vet ./..."},
		{"go workspace", map[string]string{"go.work": "go 1.22\n"}, "go build ./... && go vet ./..."},
		{"rust", map[string]string{"Cargo.toml": "[package]\n"}, "cargo check --quiet"},
		{"node typecheck", map[string]string{"package.json": `{"scripts":{"build":"tsc -b","typecheck":"tsc --noEmit"}}`}, "npm run --silent typecheck"},
		{"node build with pnpm", map[string]string{"package.json": `{"scripts":{"build":"vite build"}}`, "pnpm-lock.yaml": ""}, "pnpm run --silent build"},
		{"node without scripts", map[string]string{"package.json": `{"name":"x"}`}, ""},
		{"broken package.json", map[string]string{"package.json": `{`}, ""},
		{"python", map[string]string{"pyproject.toml": "[project]\n"}, `python3 -m compileall -q -x '(^|/)(\.git|\.venv|venv|node_modules|build|dist)/' .`},
		{"nothing known", map[string]string{"README.md": "hi"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for n, c := range tc.files {
				write(t, dir, n, c)
			}
			if got := Detect(dir); got != tc.want {
				t.Errorf("Detect = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestScanSeesEveryKindOfChange(t *testing.T) {
	for _, tc := range []struct {
		name    string
		change  func(dir string)
		changed bool
	}{
		{"nothing", func(string) {}, false},
		{"content", func(d string) { os.WriteFile(filepath.Join(d, "a.go"), []byte("package a // more\n"), 0o644) }, true},
		{"new file", func(d string) { os.WriteFile(filepath.Join(d, "sub", "b.go"), []byte("x"), 0o644) }, true},
		{"removed", func(d string) { os.Remove(filepath.Join(d, "a.go")) }, true},
		{"mode", func(d string) { os.Chmod(filepath.Join(d, "a.go"), 0o755) }, true},
		{"inside .git", func(d string) { os.WriteFile(filepath.Join(d, ".git", "index"), []byte("y"), 0o644) }, false},
		{"inside node_modules", func(d string) { os.WriteFile(filepath.Join(d, "node_modules", "m.js"), []byte("y"), 0o644) }, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			write(t, dir, "a.go", "package a\n")
			write(t, dir, "sub/keep.txt", "k")
			write(t, dir, ".git/index", "x")
			write(t, dir, "node_modules/m.js", "x")
			before := Scan(dir)
			// mtimes have coarse resolution on some file systems; a
			// changed size or a new name is seen whatever it is.
			tc.change(dir)
			if got := before.Changed(Scan(dir)); got != tc.changed {
				t.Errorf("Changed = %v, want %v", got, tc.changed)
			}
		})
	}
}

func TestRunKeepsTheTailAndTimesOut(t *testing.T) {
	dir := t.TempDir()
	r := Run(context.Background(), dir, "for i in $(seq 1 2000); do echo line $i; done; exit 3", time.Minute, nil, 100)
	if r.OK || r.ExitCode != 3 || r.TimedOut {
		t.Fatalf("result %+v", r)
	}
	if !strings.HasSuffix(r.Output, "line 2000\n") || !strings.HasPrefix(r.Output, "[… ") || len(r.Output) > 160 {
		t.Errorf("output %q", r.Output)
	}
	r = Run(context.Background(), dir, "echo started; sleep 60", 200*time.Millisecond, nil, 100)
	if r.OK || !r.TimedOut || r.ExitCode != -1 || !strings.Contains(r.Output, "started") || !strings.Contains(r.Output, "timed out after 200ms") {
		t.Errorf("timed-out result %+v", r)
	}
	if r.Duration > 30*time.Second {
		t.Errorf("the timeout did not stop the check: %v", r.Duration)
	}
}

func TestTurnVerifiesOnlyChangedWork(t *testing.T) {
	dir := t.TempDir()
	var runs []int
	v := New(dir, Settings{Command: "test -f ok", MaxRepairs: 1}, nil, func(_ Result, attempt int) { runs = append(runs, attempt) })
	turn := v.Begin()
	if got := turn.Check(context.Background()); got != (Verdict{}) || len(runs) != 0 {
		t.Fatalf("unchanged turn: %+v, runs %v", got, runs)
	}
	write(t, dir, "x.txt", "x")
	got := turn.Check(context.Background())
	if !strings.HasPrefix(got.Repair, "[verify] The project's check `test -f ok` failed (exit 1) after your changes (repair 1 of 1)") || got.Reject != "" {
		t.Fatalf("first failure: %+v", got)
	}
	got = turn.Check(context.Background())
	if got.Repair != "" || !strings.HasPrefix(got.Reject, "verification failed: `test -f ok` failed (exit 1) after 1 repair attempt(s)") {
		t.Fatalf("second failure: %+v", got)
	}
	write(t, dir, "ok", "")
	turn = v.Begin()
	write(t, dir, "y.txt", "y")
	if got := turn.Check(context.Background()); got.Repair != "" || got.Reject != "" || !strings.Contains(got.Note, "passed") {
		t.Fatalf("passing check: %+v", got)
	}
	if len(runs) != 3 || runs[2] != 1 {
		t.Errorf("attempts %v", runs)
	}
}
