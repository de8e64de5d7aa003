package engine

import (
	"errors"
	"os"

	"github.com/openseek/openseek/internal/trust"
)

// TrustedFile is a file the user trusted: Changed when its content is no
// longer what was trusted.
type TrustedFile struct {
	Path    string
	Changed bool
}

// TrustedFiles are the files the user (home) trusted.
func TrustedFiles(home string) ([]TrustedFile, error) {
	store := trust.Open(home)
	entries, err := store.List()
	if err != nil {
		return nil, err
	}
	out := make([]TrustedFile, len(entries))
	for i, e := range entries {
		out[i] = TrustedFile{Path: e.Path, Changed: !store.Trusted(e.Path)}
	}
	return out, nil
}

// TrustFiles trusts files, as they are now, for the user (home). No files
// trusts the repository files of workspace dir that run programs or send
// data elsewhere (.mcp.json, .openseek/hooks.json, .openseek/config.toml)
// that exist. It returns the files trusted.
func TrustFiles(home, dir string, files []string) ([]string, error) {
	if len(files) == 0 {
		for _, f := range trust.WorkspaceFiles(dir) {
			if _, err := os.Stat(f); err == nil {
				files = append(files, f)
			}
		}
		if len(files) == 0 {
			return nil, errors.New("nothing to trust: this workspace has no .mcp.json, .openseek/hooks.json or .openseek/config.toml")
		}
	}
	if err := trust.Open(home).Trust(files...); err != nil {
		return nil, err
	}
	return files, nil
}
