package sandboxtest

import (
	"flag"
	"testing"
)

// With -short the reruns are left out: each helper skips its test instead
// of starting a second run of the test binary.
func TestShortLeavesOutTheReruns(t *testing.T) {
	if err := flag.Set("test.short", "true"); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { flag.Set("test.short", "false") })
	for name, rerun := range map[string]func(*testing.T){
		"AsOrdinaryUser": func(t *testing.T) { AsOrdinaryUser(t, "^TestNoSuchTest$") },
		"OnReexecPath":   func(t *testing.T) { OnReexecPath(t, "^TestNoSuchTest$") },
	} {
		var skipped bool
		t.Run(name, func(t *testing.T) {
			t.Cleanup(func() { skipped = t.Skipped() })
			rerun(t)
		})
		if !skipped {
			t.Errorf("%s under -short did not skip", name)
		}
	}
}
