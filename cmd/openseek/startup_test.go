package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestSandboxDispatchPrecedesHeavyPackages checks that a re-execution of
// the binary as the sandbox's helper (or a sandboxed command) is decided
// before the packages a helper never uses initialise: the blank import of
// internal/sandbox/reexec must stay, and the sandbox package must not
// come to depend on packages that initialise late.
func TestSandboxDispatchPrecedesHeavyPackages(t *testing.T) {
	t.Parallel()
	cmd := exec.Command(os.Args[0], "--help")
	cmd.Env = append(os.Environ(), "OPENSEEK_TEST_MAIN=1", "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("openseek --help: %v\n%s", err, out)
	}
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
