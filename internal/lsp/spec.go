package lsp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Spec describes one language server.
type Spec struct {
	Name    string   // shown to the model ("gopls")
	Command []string // program and arguments; the program is looked up
	// Languages maps a file extension (with the dot) to the LSP language
	// id sent in didOpen.
	Languages map[string]string
}

// DefaultSpecs are the servers a Manager knows unless told otherwise.
func DefaultSpecs() []Spec {
	return []Spec{
		{Name: "gopls", Command: []string{"gopls"}, Languages: map[string]string{".go": "go"}},
		{Name: "pyright", Command: []string{"pyright-langserver", "--stdio"}, Languages: map[string]string{".py": "python", ".pyi": "python"}},
		{Name: "typescript-language-server", Command: []string{"typescript-language-server", "--stdio"}, Languages: map[string]string{
			".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "typescriptreact",
			".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascriptreact",
		}},
		{Name: "rust-analyzer", Command: []string{"rust-analyzer"}, Languages: map[string]string{".rs": "rust"}},
		{Name: "clangd", Command: []string{"clangd"}, Languages: map[string]string{
			".c": "c", ".h": "c", ".cc": "cpp", ".cpp": "cpp", ".cxx": "cpp", ".hh": "cpp", ".hpp": "cpp", ".hxx": "cpp",
		}},
	}
}

// language returns the language id of path under spec, or "".
func (s Spec) language(path string) string {
	return s.Languages[strings.ToLower(filepath.Ext(path))]
}

// lookPath finds a server's program on PATH, then in the folders `go
// install`, `cargo install` and `npm install -g` use when they are not
// on PATH.
func lookPath(name, home string) (string, error) {
	p, err := exec.LookPath(name)
	if err == nil || strings.ContainsRune(name, filepath.Separator) {
		return p, err
	}
	var dirs []string
	if d := os.Getenv("GOBIN"); d != "" {
		dirs = append(dirs, d)
	}
	for _, gp := range filepath.SplitList(os.Getenv("GOPATH")) {
		dirs = append(dirs, filepath.Join(gp, "bin"))
	}
	if home != "" {
		dirs = append(dirs, filepath.Join(home, "go", "bin"), filepath.Join(home, ".cargo", "bin"), filepath.Join(home, ".local", "bin"))
	}
	for _, d := range dirs {
		c := filepath.Join(d, name)
		if fi, err := os.Stat(c); err == nil && fi.Mode().IsRegular() && fi.Mode()&0o111 != 0 {
			return c, nil
		}
	}
	return "", err
}
