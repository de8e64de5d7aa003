package sandbox

import (
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
)

// Two paths start a sandboxed command, with the same guarantees:
//
//   - the helper (helper_linux.go, fork_linux.go): one sandbox built per
//     policy, whose supervisors run hand-written raw code between clone
//     and exec and, on amd64, are entered from assembly through Go's
//     internal calling convention (clonevm_linux_amd64.s) — which is no
//     stable ABI, so a new Go release may break it;
//   - re-exec ([Policy.Wrap]): this program started again for each
//     command through os/exec, ordinary Go throughout, a few milliseconds
//     slower.
//
// The helper is used only where it is known good: a build by the gc
// compiler of a Go release the sandbox suite passed with (testedGo), and
// ReexecEnv unset. Everywhere else commands take the re-exec path.

// ReexecEnv, set to anything in the environment of the program that
// starts sandboxed commands, makes every command take the re-exec path
// (a sandbox of its own, [Policy.Wrap]) instead of the helper: a way
// round a helper that misbehaves, and how the tests run the sandbox
// suite against both paths.
const ReexecEnv = "OPENSEEK_SANDBOX_REEXEC"

// testedGo lists, separated by spaces or commas, the Go releases
// (major.minor) the helper's raw code and assembly were tested with. A
// build can name others once the suite has passed with them:
//
//	go build -ldflags "-X github.com/openseek/openseek/internal/sandbox.testedGo=go1.26,go1.27" ./cmd/openseek
//
// It is set at link time only, never changed at run time.
var testedGo = "go1.26"

// helperKnownGood reports whether this build's compiler is one the
// helper was tested with, and the reason when it is not.
var helperKnownGood = sync.OnceValues(func() (bool, string) {
	return goTested(runtime.Compiler, runtime.Version(), testedGo)
})

// goTested reports whether a build by compiler at version (as
// runtime.Version gives it) is among the releases listed in tested; when
// not, why, in words.
func goTested(compiler, version, tested string) (bool, string) {
	list := strings.FieldsFunc(tested, func(r rune) bool { return r == ',' || r == ' ' })
	if compiler != "gc" {
		return false, "this program was built by " + compiler + ", and the fast path is tested with the gc compiler only"
	}
	if rel := goRelease(version); rel != "" && slices.Contains(list, rel) {
		return true, ""
	}
	return false, "this program was built with " + version + ", and the fast path's assembly relies on Go's internal calling convention, which it was tested with in " + strings.Join(list, ", ") + " only"
}

// goRelease is the major.minor release of a runtime.Version string
// ("go1.26" of "go1.26.8" or "go1.26rc1"), or "" for a development
// build.
func goRelease(v string) string {
	rest, ok := strings.CutPrefix(v, "go")
	if !ok {
		return ""
	}
	major, rest, ok := strings.Cut(rest, ".")
	if !ok || !digits(major) {
		return ""
	}
	end := 0
	for end < len(rest) && rest[end] >= '0' && rest[end] <= '9' {
		end++
	}
	if end == 0 {
		return ""
	}
	return "go" + major + "." + rest[:end]
}

func digits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// StartPath says how sandboxed commands start in this program: helper
// is true for the sandbox helper (the fast path), false for re-exec;
// how says which, and why, in a sentence for `openseek doctor`.
func StartPath() (helper bool, how string) {
	switch ok, why := helperKnownGood(); {
	case runtime.GOOS != "linux":
		return false, "The OS sandbox needs Linux."
	case os.Getenv(ReexecEnv) != "":
		return false, "Commands start by re-executing openseek for each (" + ReexecEnv + " is set), not through the sandbox helper."
	case !ok:
		return false, "Commands start by re-executing openseek for each, a few milliseconds slower than the sandbox helper: " + why + "."
	}
	return true, "Commands start through the sandbox helper (the fast path; built with " + runtime.Version() + ", a release it was tested with)."
}
