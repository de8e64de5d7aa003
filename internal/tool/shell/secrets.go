package shell

import (
	"context"
	"errors"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/secretfile"
	"github.com/openseek/openseek/internal/tool"
)

// secretNotes tells the model why the secret files a sandboxed command
// names read as empty (the sandbox hides them, package sandbox): a line
// per file, the guard's reason, which says how the user can allow it.
// The names are the command's literal words, relative to dir; a file the
// user allowed, or one that is no secret, gets no note.
func secretNotes(ctx context.Context, env *tool.Env, dir, cmd string) string {
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
	if err != nil {
		return ""
	}
	seen := map[string]bool{}
	var notes []string
	syntax.Walk(f, func(n syntax.Node) bool {
		w, ok := n.(*syntax.Word)
		if !ok {
			return true
		}
		lit := w.Lit()
		if lit == "" || seen[lit] {
			return true
		}
		seen[lit] = true
		if secret, token := secretfile.Named(filepath.Base(lit)); !secret && !token {
			return true
		}
		path := lit
		if !filepath.IsAbs(path) {
			path = filepath.Join(dir, path)
		}
		var r *policy.Refusal
		if errors.As(env.CheckRead(ctx, "shell", path), &r) {
			notes = append(notes, "note: "+r.Verdict.Reason)
		}
		return true
	})
	return strings.Join(notes, "\n")
}
