package main

import (
	"os"
	"os/exec"
	"strconv"
	"strings"
	"testing"
)

// TestSandboxDispatchPrecedesHeavyPackages checks that a re-execution of
// the binary as the sandbox's helper (or a sandboxed command) is decided
// before the packages a helper never uses initialise: the blank import of
// internal/engine/entry (which imports internal/sandbox/reexec) must stay,
// and the sandbox package must not
// come to depend on packages that initialise late.
func TestSandboxDispatchPrecedesHeavyPackages(t *testing.T) {
	t.Parallel()
	out := initTrace(t)
	order := map[string]int{}
	n := 0
	for line := range strings.Lines(string(out)) {
		if f := strings.Fields(line); len(f) > 1 && f[0] == "init" {
			order[f[1]] = n
			n++
		}
	}
	const dispatch = "github.com/openseek/openseek/internal/sandbox/reexec"
	at, ok := order[dispatch]
	if !ok {
		t.Fatalf("%s is not initialised: the binary no longer imports it (inittrace:\n%s)", dispatch, out)
	}
	for _, heavy := range []string{
		"github.com/nats-io/nats-server/v2/server",
		"github.com/modelcontextprotocol/go-sdk/mcp",
		"charm.land/lipgloss/v2", // the terminal UI
		"github.com/openseek/openseek/internal/llm",
	} {
		i, ok := order[heavy]
		if !ok {
			t.Errorf("%s is not in the init trace", heavy)
			continue
		}
		if i < at {
			t.Errorf("%s initialises (#%d) before the sandbox dispatch (#%d): a helper would pay for it", heavy, i, at)
		}
	}
}

// TestOwnPackagesInitAllocateLittle checks that none of OpenSeek's own
// packages does at package initialisation work that every start of the
// binary pays for, whatever the command: a regexp, a table or a template
// that only some commands need is built on first use (sync.OnceValue).
// The evidence, export and replay packages' regexps were 240 KB of the
// binary's 1.16 MB of init allocations, and live heap for the whole run.
func TestOwnPackagesInitAllocateLittle(t *testing.T) {
	t.Parallel()
	out := initTrace(t)
	const limit = 32 << 10
	seen := 0
	for line := range strings.Lines(string(out)) {
		// init <package> @<t> ms, <clock> ms clock, <bytes> bytes, <n> allocs
		f := strings.Fields(line)
		if len(f) < 8 || f[0] != "init" || !strings.HasPrefix(f[1], "github.com/openseek/openseek/") {
			continue
		}
		seen++
		bytes, err := strconv.Atoi(f[7])
		if err != nil {
			t.Fatalf("cannot read the init trace line %q: %v", line, err)
		}
		if bytes > limit {
			t.Errorf("package %s allocates %d bytes at init (limit %d): build what it needs on first use", f[1], bytes, limit)
		}
	}
	if seen == 0 {
		t.Fatalf("no OpenSeek package in the init trace:\n%s", out)
	}
}

// initTrace is the output of `openseek --help` with the runtime's package
// init trace (GODEBUG=inittrace=1) on.
func initTrace(t *testing.T) []byte {
	t.Helper()
	cmd := exec.Command(os.Args[0], "--help")
	cmd.Env = append(os.Environ(), "OPENSEEK_TEST_MAIN=1", "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("openseek --help: %v\n%s", err, out)
	}
	return out
}
