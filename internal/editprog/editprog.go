// Package editprog is the editing tools as programs, run once outside
// any session with the same decoders, executors and messages as the
// in-process tools: Run is `openseek edit` (reference §11), one JSON
// object of the edit tool's arguments; ApplyPatch is `openseek
// apply-patch`, a patch in the apply_patch format.
//
// Invariant: nothing outside the writable root is written, through a
// symlink or "..". For Run, OPENSEEK_EDIT_ROOT names the root (default:
// the current directory) and OPENSEEK_EDIT_ALLOWED_PATHS (comma- or
// list-separated, relative to the root) narrows the writable paths; for
// ApplyPatch the root is the directory it is given.
package editprog

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/subrun"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/internal/tool/fs"
)

// Failure is an edit that did not happen: Msg is what the program prints
// on stderr before it exits with status 1.
type Failure struct{ Msg string }

func (f *Failure) Error() string { return f.Msg }

// Run decodes raw, the edit's arguments, and runs the edit confined as
// getenv's OPENSEEK_EDIT_ROOT and OPENSEEK_EDIT_ALLOWED_PATHS say. It
// returns the tool's "ok: …" message; an edit that failed (bad JSON, a
// path outside the confinement, the tool's own errors) is a *Failure, and
// any other error is a root that cannot be resolved.
func Run(ctx context.Context, raw []byte, getenv func(string) string) (string, error) {
	raw = bytes.TrimSpace(raw)
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", &Failure{"error: " + subrun.JSONError(raw, err)}
	}
	root, err := Root(getenv("OPENSEEK_EDIT_ROOT"))
	if err != nil {
		return "", err
	}
	pol := &policy.Policy{Mode: policy.ModeNever, Workspace: root}
	pol.Pin()
	env := &tool.Env{Workspace: root, Files: tool.NewFileState(), Guard: &policy.Guard{Policy: pol}}
	if obj, ok := v.(map[string]any); ok {
		if p, ok := obj["path"].(string); ok && strings.TrimSpace(p) != "" {
			if msg := confined(env, p, getenv("OPENSEEK_EDIT_ALLOWED_PATHS")); msg != "" {
				return "", &Failure{fmt.Sprintf("error editing %s: write blocked: %s", p, msg)}
			}
		}
	}
	res, _ := fs.Edit().Run(ctx, env, raw)
	text := strings.TrimRight(res.Content.Text(), "\n")
	if res.IsError {
		return "", &Failure{text}
	}
	return text, nil
}

// Root is the writable root named root ("" = the current directory),
// absolute and with its symlinks resolved.
func Root(root string) (string, error) {
	if root == "" {
		root = "."
	}
	abs, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("OPENSEEK_EDIT_ROOT=%s: %w", root, err)
	}
	return real, nil
}

// confined says why path may not be written ("" = it may): outside the
// writable root, or outside the allowed paths of list.
func confined(env *tool.Env, path, list string) string {
	real, err := env.Resolve(path)
	if err != nil {
		return fmt.Sprintf("path resolves outside the writable root %s (through a symlink or ..)", env.Workspace)
	}
	if strings.TrimSpace(list) == "" {
		return ""
	}
	var allowed []string
	for _, part := range filepath.SplitList(list) {
		for _, a := range strings.Split(part, ",") {
			if a = strings.TrimSpace(a); a != "" {
				allowed = append(allowed, a)
			}
		}
	}
	for _, a := range allowed {
		p := a
		if !filepath.IsAbs(p) {
			p = filepath.Join(env.Workspace, p)
		}
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
		if rel, err := filepath.Rel(p, real); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
			return ""
		}
	}
	return fmt.Sprintf("path is outside allowed_paths (%s)", strings.Join(allowed, ", "))
}
