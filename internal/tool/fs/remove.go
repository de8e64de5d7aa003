package fs

import (
	"context"
	"errors"
	"fmt"
	iofs "io/fs"
	"path/filepath"
	"strings"

	"github.com/openseek/openseek/internal/tool"
)

type removeArgs struct {
	Path   string `json:"path"`
	Reason string `json:"reason" jsonschema:"why it goes (recorded)"`
}

const removeDescription = "Delete a file you created this session that nobody has changed since; other files are refused."

// Remove is the remove tool.
func Remove() tool.Tool {
	return tool.Func("remove", removeDescription, runRemove)
}

func runRemove(ctx context.Context, env *tool.Env, a removeArgs) tool.Result {
	brief := "remove " + filepath.Base(a.Path)
	fail := func(real, outcome, msg string) tool.Result {
		return with(tool.Errorf("error removing %s: %s", a.Path, msg), brief, data{Outcome: outcome, Path: relPath(env, real, a.Path)})
	}
	if strings.TrimSpace(a.Reason) == "" {
		return with(tool.Errorf("error: remove requires arguments.reason to be a non-empty explanation"), brief, data{Outcome: "error"})
	}
	if err := ctx.Err(); err != nil {
		return fail("", "error", err.Error())
	}
	// The path must resolve inside the workspace, and so must its
	// directory: the file itself is then looked at without following it,
	// so a symlink is refused rather than its target deleted.
	if _, err := env.Resolve(a.Path); err != nil {
		return fail("", "error", err.Error())
	}
	clean := filepath.Clean(a.Path)
	dir, err := env.Resolve(filepath.Dir(clean))
	if err != nil {
		return fail("", "error", err.Error())
	}
	target := filepath.Join(dir, filepath.Base(clean))
	if err := env.CheckWrite(ctx, "remove", target); err != nil {
		return fail(target, "refused", err.Error())
	}
	fi, err := safeLstat(env, target)
	switch {
	case errors.Is(err, iofs.ErrNotExist):
		return fail(target, "not_found", "no such file")
	case err != nil:
		return fail(target, "error", describeErr(err))
	case !fi.Mode().IsRegular():
		return fail(target, "refused", "not a regular file; remove deletes regular files")
	}
	content, err := safeReadFile(env, target)
	if err != nil {
		return fail(target, "error", describeErr(err))
	}
	if !env.Files.CreatedUnchanged(target, content) {
		return fail(target, "refused", "not created by the agent this session — or changed since; remove deletes only files the agent created and nobody changed. Leave it, or ask the user")
	}
	if err := safeRemove(env, target); err != nil {
		return fail(target, "error", describeErr(err))
	}
	env.Files.Forget(target)
	res := tool.TextResult(fmt.Sprintf("ok: removed %s (reason: %s)", a.Path, a.Reason))
	return with(res, brief, data{Outcome: "removed", Path: env.Rel(target)})
}
