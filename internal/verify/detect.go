package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// Detect returns the check for the project rooted at dir, from its
// files, or "" when none is known. A Go module (or workspace) builds and
// vets; a Rust crate runs cargo check; a Node package runs its typecheck
// script, else its build script (with the package manager its lock file
// names); a Python project byte-compiles its sources.
func Detect(dir string) string {
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	switch {
	case exists("go.mod"), exists("go.work"):
		return "go build ./... && go vet ./..."
	case exists("Cargo.toml"):
		return "cargo check --quiet"
	case exists("package.json"):
		return nodeCheck(dir, exists)
	case exists("pyproject.toml"), exists("setup.py"), exists("setup.cfg"):
		return `python3 -m compileall -q -x '(^|/)(\.git|\.venv|venv|node_modules|build|dist)/' .`
	}
	return ""
}

// nodeCheck picks the typecheck or build script of package.json.
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
	for _, script := range []string{"typecheck", "type-check", "build"} {
		if pkg.Scripts[script] != "" {
			return runner + " " + script
		}
	}
	return ""
}
