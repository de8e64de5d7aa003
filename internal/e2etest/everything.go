package e2etest

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The reference MCP server from the npm registry, pinned. CI pre-installs
// it (.ci/run); Everything installs it itself when missing.
const (
	EverythingPkg     = "@modelcontextprotocol/server-everything"
	EverythingVersion = "2026.8.31"
)

// Everything returns the path of the pinned MCP "everything" server's
// dist/index.js (run it with node), installing it when missing (see NPM).
func Everything(t testing.TB) string {
	t.Helper()
	return NPM(t, "mcp", EverythingPkg, EverythingVersion, "dist/index.js")
}

// NPM returns the path of entry (slash-separated, inside the package) of
// the npm package pkg at version, installed under the test cache
// ($XDG_CACHE_HOME/openseek-test/<cache>, or ~/.cache/...) and installed
// there first when missing or of another version. Without node or npm it
// skips, or fails under OPENSEEK_E2E=1 (see Need); an unreachable npm
// registry fails the test.
func NPM(t testing.TB, cache, pkg, version, entry string) string {
	t.Helper()
	Need(t, "apt-get install nodejs npm", "node")
	Need(t, "apt-get install npm", "npm")
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatalf("no cache dir for the npm install: %v", err)
		}
		base = filepath.Join(home, ".cache")
	}
	dir := filepath.Join(base, "openseek-test", cache)
	pkgDir := filepath.Join(dir, "node_modules", filepath.FromSlash(pkg))
	path := filepath.Join(pkgDir, filepath.FromSlash(entry))
	var meta struct{ Version string }
	if data, err := os.ReadFile(filepath.Join(pkgDir, "package.json")); err == nil && json.Unmarshal(data, &meta) == nil && meta.Version == version {
		return path
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"npm", "install", "--prefix", dir, "--no-audit", "--no-fund", pkg + "@" + version}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	if out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput(); err != nil {
		t.Fatalf("installing %s failed (is the npm registry reachable?)\n$ %s\n%s\n%v", pkg, strings.Join(args, " "), out, err)
	}
	if _, err := os.Stat(path); err != nil {
		t.Fatalf("%s installed without %s: %v", pkg, entry, err)
	}
	return path
}
