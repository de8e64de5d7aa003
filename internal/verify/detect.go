package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// ScratchVar names the scratch directory a check may write in: outside
// the workspace, made before the check runs and removed after it.
const ScratchVar = "OPENSEEK_VERIFY_SCRATCH"

// Check is a command the verifier runs; what it runs is what the
// frontends show.
type Check struct {
	Command string
	// Scratch gives the command $OPENSEEK_VERIFY_SCRATCH, where a tool
	// that would write its build output into the project (cargo's
	// target/, Python's __pycache__, tsc's build info) is sent instead.
	Scratch bool
}

// NewCheck is the check of a configured command: it gets the scratch
// directory when it names $OPENSEEK_VERIFY_SCRATCH.
func NewCheck(command string) Check {
	return Check{Command: command, Scratch: strings.Contains(command, ScratchVar)}
}

// Detect returns the check for the project rooted at dir, from its
// files, or a zero Check when none is known. Every detected check leaves
// the workspace as it found it: a Go module (or workspace) builds with
// its binaries sent to /dev/null, and vets; a Rust crate runs cargo check
// with its target directory in the scratch directory; a Node package
// runs its typecheck script, else the TypeScript compiler with --noEmit
// (a build script writes the build into the project, so it is never
// chosen); a Python project byte-compiles its sources with the compiled
// files in the scratch directory.
func Detect(dir string) Check {
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	switch {
	case exists("go.mod"), exists("go.work"):
		// One main package would otherwise be linked into the
		// workspace; -o /dev/null links every main and keeps none.
		return Check{Command: "go build -o /dev/null ./... && go vet ./..."}
	case exists("Cargo.toml"):
		return NewCheck(`CARGO_TARGET_DIR="$` + ScratchVar + `/target" cargo check --quiet`)
	case exists("package.json"):
		return NewCheck(nodeCheck(dir, exists))
	case exists("pyproject.toml"), exists("setup.py"), exists("setup.cfg"):
		return NewCheck(`PYTHONPYCACHEPREFIX="$` + ScratchVar + `" python3 -m compileall -q -x '(^|/)(\.git|\.venv|venv|node_modules|build|dist)/' .`)
	}
	return Check{}
}

// nodeCheck picks the typecheck script of package.json (run with the
// package manager its lock file names), else the project's own tsc.
func nodeCheck(dir string, exists func(string) bool) string {
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err != nil {
		return ""
	}
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	if json.Unmarshal(b, &pkg) != nil {
		return ""
	}
	runner := "npm run --silent"
	switch {
	case exists("pnpm-lock.yaml"):
		runner = "pnpm run --silent"
	case exists("yarn.lock"):
		runner = "yarn run --silent"
	case exists("bun.lockb"), exists("bun.lock"):
		runner = "bun run"
	}
	for _, script := range []string{"typecheck", "type-check"} {
		if pkg.Scripts[script] != "" {
			return runner + " " + script
		}
	}
	if exists("tsconfig.json") && exists(filepath.Join("node_modules", ".bin", "tsc")) {
		// An incremental or composite project writes its build info
		// even with --noEmit.
		return `node_modules/.bin/tsc --noEmit --tsBuildInfoFile "$` + ScratchVar + `/tsbuildinfo"`
	}
	return ""
}
