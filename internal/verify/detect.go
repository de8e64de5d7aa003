package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Check is a command the verifier runs, and what keeps it from leaving
// files in the workspace.
type Check struct {
	Command string
	// Scratch names environment variables that point, for this run only,
	// at directories inside a scratch directory outside the workspace,
	// removed when the run ends: where the tool would otherwise write its
	// build output into the project (cargo's target/, Python's
	// __pycache__).
	Scratch []string
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
		return Check{Command: "cargo check --quiet", Scratch: []string{"CARGO_TARGET_DIR"}}
	case exists("package.json"):
		return Check{Command: nodeCheck(dir, exists)}
	case exists("pyproject.toml"), exists("setup.py"), exists("setup.cfg"):
		return Check{
			Command: `python3 -m compileall -q -x '(^|/)(\.git|\.venv|venv|node_modules|build|dist)/' .`,
			Scratch: []string{"PYTHONPYCACHEPREFIX"},
		}
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
		return "node_modules/.bin/tsc --noEmit"
	}
	return ""
}
