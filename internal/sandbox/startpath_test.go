package sandbox

import (
	"strings"
	"testing"
)

// TestGoTested: the helper is known good only for a gc build of a listed
// major.minor release, whatever its patch or pre-release.
func TestGoTested(t *testing.T) {
	for _, c := range []struct {
		compiler, version, tested string
		want                      bool
	}{
		{"gc", "go1.26.8", "go1.26", true},
		{"gc", "go1.26", "go1.25 go1.26", true},
		{"gc", "go1.26rc1", "go1.25,go1.26", true},
		{"gc", "go1.27.0", "go1.26", false},
		{"gc", "go1.2", "go1.26", false},
		{"gc", "go1.260", "go1.26", false},
		{"gc", "devel go1.27-1b2c3d4 Tue Jan 1 00:00:00 2026 +0000", "go1.26", false},
		{"gc", "go1.26.8 X:nocoverageredesign", "go1.26", true},
		{"gccgo", "go1.26.8", "go1.26", false},
		{"gc", "go1.26.8", "", false},
	} {
		got, why := goTested(c.compiler, c.version, c.tested)
		if got != c.want || got == (why != "") {
			t.Errorf("goTested(%q, %q, %q) = %v, %q; want %v", c.compiler, c.version, c.tested, got, why, c.want)
		}
		if !got && c.compiler == "gc" && !strings.Contains(why, c.version) {
			t.Errorf("the reason %q does not name the version %q", why, c.version)
		}
	}
}
