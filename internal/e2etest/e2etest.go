// Package e2etest is for tests that need a program besides Go and git
// (chromium, curl, tmux, node…): on a machine without it they skip,
// naming how to install it, unless OPENSEEK_E2E=1 (set by CI), where a
// missing program is a failure.
package e2etest

import (
	"os"
	"os/exec"
	"testing"
)

// Need returns the path of the first of names found in $PATH (an empty
// name is ignored, so an override variable can come first). Without one
// it skips t with install (the command that installs it), or fails t
// when OPENSEEK_E2E=1.
func Need(t testing.TB, install string, names ...string) string {
	t.Helper()
	for _, n := range names {
		if n == "" {
			continue
		}
		if path, err := exec.LookPath(n); err == nil {
			return path
		}
	}
	msg := "this test needs " + names[len(names)-1] + ": install it (" + install + ")"
	if os.Getenv("OPENSEEK_E2E") == "1" {
		t.Fatal(msg + "; with OPENSEEK_E2E=1 a missing program is a failure")
	}
	t.Skip(msg)
	return ""
}
