package editprog

import (
	"fmt"
	"path/filepath"

	"github.com/openseek/openseek/internal/patch"
	"github.com/openseek/openseek/internal/tool"
)

// ApplyPatch applies text, a patch in the apply_patch format (*** Begin
// Patch … *** End Patch), to the files under dir, as `openseek
// apply-patch` does: every hunk is checked before any file is written, so
// a patch that fails anywhere changes nothing, and no path resolves
// outside dir. It returns the summary of the files added (A), modified
// (M) and deleted (D).
func ApplyPatch(dir, text string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real
	}
	p, err := patch.Parse(text)
	if err != nil {
		return "", err
	}
	env := &tool.Env{Workspace: dir}
	changes, err := p.Apply(patch.Files{Resolve: env.Resolve})
	if err != nil {
		return "", fmt.Errorf("%w; no file was changed", err)
	}
	return patch.Summary(changes), nil
}
