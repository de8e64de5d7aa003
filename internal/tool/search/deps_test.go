package search

import (
	"os/exec"
	"strings"
	"testing"
)

// TestLinksNoCommandRunner: the search tools see the engine through
// tool.Env's small interfaces, so they link neither the sandbox, nor the
// job runtime, nor the command policy.
func TestLinksNoCommandRunner(t *testing.T) {
	out, err := exec.Command("go", "list", "-deps", ".").Output()
	if err != nil {
		t.Fatalf("go list -deps: %v", err)
	}
	for _, p := range strings.Fields(string(out)) {
		for _, banned := range []string{"/internal/sandbox", "/internal/jobs", "/internal/policy"} {
			if strings.HasSuffix(p, banned) {
				t.Errorf("package search links %s", p)
			}
		}
	}
}
