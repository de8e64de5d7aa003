package sandboxtest

import (
	"flag"
	"strconv"
	"testing"
)

// DefaultParallel raises -test.parallel unless the command line set it.
func TestDefaultParallel(t *testing.T) {
	f := flag.Lookup("test.parallel")
	before := f.Value.String()
	t.Cleanup(func() { f.Value.Set(before) })
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	n, _ := strconv.Atoi(before)
	want := strconv.Itoa(n + 3)
	if set {
		want = before // the command line's -parallel stands
	}
	DefaultParallel(n + 3)
	if got := f.Value.String(); got != want {
		t.Errorf("-test.parallel %s after DefaultParallel(%d), want %s (set on the command line: %v)", got, n+3, want, set)
	}
}
