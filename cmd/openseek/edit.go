package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/subrun"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/internal/tool/fs"
)

func (c *cli) editCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "edit [JSON]",
		Short: "The edit tool as a program: one JSON object of edit arguments (argument or stdin)",
		Long: `Run the agent's edit tool once, outside any session (reference §11). The
argument is one JSON object of the tool's arguments, or stdin when none is
given: {"path","old_string","new_string","start_line"?,"end_line"?,
"revert_on_parse_errors"?}. The same decoder, executor and messages as the
in-process tool. Success prints "ok: …" on stdout, exit 0; any failure
prints its message on stderr, exit 1.

Confinement: OPENSEEK_EDIT_ROOT is the writable root (default: the current
directory); nothing outside it is written, through a symlink or "..".
OPENSEEK_EDIT_ALLOWED_PATHS (comma- or list-separated, relative to the
root) narrows the writable paths further.

  openseek edit '{"path":"a.txt","old_string":"two","new_string":"2"}'`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 1 {
				return fmt.Errorf("unexpected value '%s' found; no more were expected", args[1])
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var raw []byte
			if len(args) == 1 {
				raw = []byte(args[0])
			} else {
				data, err := io.ReadAll(c.stdin)
				if err != nil {
					return fmt.Errorf("read the edit arguments from stdin: %w", err)
				}
				raw = data
			}
			fail := func(msg string) error {
				fmt.Fprintln(c.stderr, msg)
				return exitError(1)
			}
			raw = bytes.TrimSpace(raw)
			var v any
			if err := json.Unmarshal(raw, &v); err != nil {
				return fail("error: " + subrun.JSONError(raw, err))
			}
			root, err := c.editRoot()
			if err != nil {
				return err
			}
			pol := &policy.Policy{Mode: policy.ModeNever, Workspace: root}
			pol.Pin()
			env := &tool.Env{Workspace: root, Files: tool.NewFileState(), Guard: &policy.Guard{Policy: pol}}
			if obj, ok := v.(map[string]any); ok {
				if p, ok := obj["path"].(string); ok && strings.TrimSpace(p) != "" {
					if msg := c.editConfined(env, p); msg != "" {
						return fail(fmt.Sprintf("error editing %s: write blocked: %s", p, msg))
					}
				}
			}
			res, _ := fs.Edit().Run(cmd.Context(), env, raw)
			text := strings.TrimRight(res.Content.Text(), "\n")
			if res.IsError {
				return fail(text)
			}
			fmt.Fprintln(c.stdout, text)
			return nil
		},
	}
}

// editRoot is the edit program's writable root: OPENSEEK_EDIT_ROOT, else
// the current directory, with its symlinks resolved.
func (c *cli) editRoot() (string, error) {
	root := c.getenv("OPENSEEK_EDIT_ROOT")
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

// editConfined says why path may not be written ("" = it may): outside
// the writable root, or outside OPENSEEK_EDIT_ALLOWED_PATHS.
func (c *cli) editConfined(env *tool.Env, path string) string {
	real, err := env.Resolve(path)
	if err != nil {
		return fmt.Sprintf("path resolves outside the writable root %s (through a symlink or ..)", env.Workspace)
	}
	list := c.getenv("OPENSEEK_EDIT_ALLOWED_PATHS")
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
