package engine

import (
	"context"

	"github.com/openseek/openseek/internal/editprog"
)

// EditFailure is a failure of the edit program the tool itself reports
// (its message is the tool's, for the user as it is).
type EditFailure = editprog.Failure

// RunEditProgram runs the edit tool once, outside any session, on raw
// (one JSON object of the tool's arguments), confined as the environment
// says (OPENSEEK_EDIT_ROOT, OPENSEEK_EDIT_ALLOWED_PATHS); it returns the
// tool's "ok: …" text.
func RunEditProgram(ctx context.Context, raw []byte, getenv func(string) string) (string, error) {
	return editprog.Run(ctx, raw, getenv)
}

// ApplyPatchProgram applies a patch (the apply_patch tool's format) to
// the files under dir, outside any session, and returns its summary.
func ApplyPatchProgram(dir, text string) (string, error) { return editprog.ApplyPatch(dir, text) }
