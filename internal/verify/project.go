package verify

import (
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
)

// Project is what a project builds, tests and checks its formatting
// with, detected from its files; "" where nothing is known. Every
// command is a shell command line to run at the project's root. A build
// that needs the scratch directory (Check.Scratch) makes its own.
type Project struct {
	Build, Test, Format string
}

// DetectProject detects dir's build (Detect's check), tests and
// formatter check. A Makefile's test and check targets are used when
// the language's files name no other.
func DetectProject(dir string) Project {
	exists := func(name string) bool {
		_, err := os.Stat(filepath.Join(dir, name))
		return err == nil
	}
	var p Project
	if c := Detect(dir); c.Command != "" {
		p.Build = c.Command
		if c.Scratch {
			p.Build = `export ` + ScratchVar + `="$(mktemp -d)"; trap 'rm -rf "$` + ScratchVar + `"' EXIT; ` + c.Command
		}
	}
	switch {
	case exists("go.mod"), exists("go.work"):
		p.Test = "go test ./..."
		p.Format = `test -z "$(gofmt -l . | tee /dev/stderr)"`
	case exists("Cargo.toml"):
		p.Test = "cargo test --quiet"
		p.Format = "cargo fmt --check"
	case exists("package.json"):
		s := nodeScripts(dir)
		if s["test"] != "" {
			p.Test = "npm test --silent"
		}
		if s["format:check"] != "" {
			p.Format = "npm run --silent format:check"
		}
	case exists("pyproject.toml"), exists("setup.py"), exists("setup.cfg"):
		p.Test = "python3 -m pytest -q"
	}
	if data, err := os.ReadFile(filepath.Join(dir, "Makefile")); err == nil {
		target := func(name string) bool {
			return regexp.MustCompile(`(?m)^` + name + `\s*:`).Match(data)
		}
		if p.Test == "" && target("test") {
			p.Test = "make test"
		}
		if p.Build == "" && target("build") {
			p.Build = "make build"
		}
		if p.Format == "" && target("fmt-check") {
			p.Format = "make fmt-check"
		}
	}
	return p
}

func nodeScripts(dir string) map[string]string {
	var pkg struct {
		Scripts map[string]string `json:"scripts"`
	}
	b, err := os.ReadFile(filepath.Join(dir, "package.json"))
	if err == nil {
		_ = json.Unmarshal(b, &pkg)
	}
	return pkg.Scripts
}
