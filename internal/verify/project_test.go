package verify

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestDetectProject(t *testing.T) {
	for _, tc := range []struct {
		name  string
		files map[string]string
		want  Project
	}{
		{"go", map[string]string{"go.mod": "module x\n"}, Project{Build: "go build -o /dev/null ./... && go vet ./...", Test: "go test ./...", Format: `test -z "$(gofmt -l . | tee /dev/stderr)"`}},
		{"node", map[string]string{"package.json": `{"scripts":{"test":"jest","format:check":"prettier -c ."}}`}, Project{Test: "npm test --silent", Format: "npm run --silent format:check"}},
		{"makefile", map[string]string{"Makefile": "build:\n\ttrue\ntest:\n\ttrue\nfmt-check:\n\ttrue\n"}, Project{Build: "make build", Test: "make test", Format: "make fmt-check"}},
		{"go with a Makefile", map[string]string{"go.mod": "module x\n", "Makefile": "test:\n\ttrue\n"}, Project{Build: "go build -o /dev/null ./... && go vet ./...", Test: "go test ./...", Format: `test -z "$(gofmt -l . | tee /dev/stderr)"`}},
		{"nothing", nil, Project{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			for name, body := range tc.files {
				os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644)
			}
			if got := DetectProject(dir); got != tc.want {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
	// A build that needs the scratch directory makes its own.
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "Cargo.toml"), []byte("[package]\n"), 0o644)
	if p := DetectProject(dir); !strings.HasPrefix(p.Build, "export "+ScratchVar+`="$(mktemp -d)"`) || p.Test != "cargo test --quiet" {
		t.Errorf("cargo: %+v", p)
	}
}
