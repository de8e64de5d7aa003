package search

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"syscall"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/secretfile"
	"github.com/openseek/openseek/internal/tool"
)

// goSource is the tree the benchmarks search: Go's own sources (about
// 11,000 files, 150 MB), present wherever the tests are built.
const goSource = "/usr/local/go/src"

func goSourceEnv(b *testing.B) *tool.Env {
	b.Helper()
	root := os.Getenv("OPENSEEK_BENCH_TREE")
	if root == "" {
		root = goSource
	}
	if _, err := os.Stat(root); err != nil {
		b.Fatalf("benchmark tree %s: %v (set OPENSEEK_BENCH_TREE to a large source tree)", root, err)
	}
	// As in a session: the guard with the secret-file rules, which grep
	// consults for every file.
	return &tool.Env{Workspace: root, Guard: &policy.Guard{Policy: &policy.Policy{Workspace: root, Secrets: &secretfile.Rules{}}}}
}

// grepPatterns are the searches timed: a literal, a regexp with a
// required literal, and one without any.
var grepPatterns = []struct {
	name, pattern string
	ignoreCase    bool
}{
	{"literal", "ErrUnexpectedEOF", false},
	{"regexp", `func \(\w+ \*\w+\) Close\(\)`, false},
	{"ignorecase", "errunexpectedeof", true},
	{"weakliteral", `\bt\.Fatalf?\(`, false},
	{"noliteral", `[A-Z]{3}[0-9]{2}`, false},
}

// BenchmarkGoSource compares grep and glob with ripgrep and fd over the
// same tree. Both sides search every file (the tool bounds only what it
// prints); ripgrep's output goes to /dev/null.
func BenchmarkGoSource(b *testing.B) {
	env := goSourceEnv(b)
	for _, p := range grepPatterns {
		b.Run("grep/"+p.name, func(b *testing.B) {
			args, _ := json.Marshal(map[string]any{"pattern": p.pattern, "ignore_case": p.ignoreCase})
			cpu := selfCPU()
			for b.Loop() {
				res, err := Grep().Run(context.Background(), env, args)
				if err != nil || res.IsError {
					b.Fatalf("%v %s", err, res.Content.Text())
				}
			}
			reportCPU(b, selfCPU()-cpu)
		})
		b.Run("rg/"+p.name, func(b *testing.B) {
			rg := lookTool(b, "rg")
			var cpu time.Duration
			for b.Loop() {
				flags := []string{"-n", "--no-require-git"}
				if p.ignoreCase {
					flags = append(flags, "-i")
				}
				cmd := exec.Command(rg, append(flags, p.pattern, env.Workspace)...)
				if err := cmd.Run(); err != nil {
					b.Fatal(err)
				}
				cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
			}
			reportCPU(b, cpu)
		})
	}
	b.Run("glob/go", func(b *testing.B) {
		args, _ := json.Marshal(map[string]any{"pattern": "**/*_test.go"})
		cpu := selfCPU()
		for b.Loop() {
			res, err := Glob().Run(context.Background(), env, args)
			if err != nil || res.IsError {
				b.Fatalf("%v %s", err, res.Content.Text())
			}
		}
		reportCPU(b, selfCPU()-cpu)
	})
	b.Run("fd/go", func(b *testing.B) {
		fd := lookTool(b, "fdfind", "fd")
		var cpu time.Duration
		for b.Loop() {
			cmd := exec.Command(fd, "-t", "f", "--glob", "*_test.go", env.Workspace)
			if err := cmd.Run(); err != nil {
				b.Fatal(err)
			}
			cpu += cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
		}
		reportCPU(b, cpu)
	})
}

// selfCPU is the CPU time (user+system) this process used so far.
func selfCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportCPU adds CPU milliseconds per operation: on a shared machine
// wall time is noisy, CPU time much less so.
func reportCPU(b *testing.B, cpu time.Duration) {
	b.ReportMetric(float64(cpu.Milliseconds())/float64(b.N), "cpu-ms/op")
}

// lookTool finds the first of names on PATH or fails: CI installs them
// (Debian's ripgrep and fd-find).
func lookTool(b *testing.B, names ...string) string {
	b.Helper()
	for _, n := range names {
		if p, err := exec.LookPath(n); err == nil {
			return p
		}
	}
	b.Fatalf("%v not installed: apt-get install ripgrep fd-find", names)
	return ""
}
