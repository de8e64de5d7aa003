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

// everythingDir is the npm prefix the server is installed under:
// $XDG_CACHE_HOME/openseek-test/mcp, or ~/.cache/openseek-test/mcp.
func everythingDir(t testing.TB) string {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			t.Fatalf("no cache dir for the npm install: %v", err)
		}
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "openseek-test", "mcp")
}

// Everything installs the pinned server when it is missing and returns
// the path of its dist/index.js (run it with node). Without node or npm
// it skips, or fails under OPENSEEK_E2E=1 (see Need); an unreachable npm
// registry fails the test.
func Everything(t testing.TB) string {
	t.Helper()
	Need(t, "apt-get install nodejs npm", "node")
	Need(t, "apt-get install npm", "npm")
	dir := everythingDir(t)
	pkgDir := filepath.Join(dir, "node_modules", filepath.FromSlash(EverythingPkg))
	var pkg struct{ Version string }
	if data, err := os.ReadFile(filepath.Join(pkgDir, "package.json")); err == nil && json.Unmarshal(data, &pkg) == nil && pkg.Version == EverythingVersion {
		return filepath.Join(pkgDir, "dist", "index.js")
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	args := []string{"npm", "install", "--prefix", dir, "--no-audit", "--no-fund", EverythingPkg + "@" + EverythingVersion}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	out, err := exec.CommandContext(ctx, args[0], args[1:]...).CombinedOutput()
	if err != nil {
		t.Fatalf("installing %s failed (is the npm registry reachable?)\n$ %s\n%s\n%v", EverythingPkg, strings.Join(args, " "), out, err)
	}
	main := filepath.Join(pkgDir, "dist", "index.js")
	if _, err := os.Stat(main); err != nil {
		t.Fatalf("%s installed without dist/index.js: %v", EverythingPkg, err)
	}
	return main
}
