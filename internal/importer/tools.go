package importer

import (
	"encoding/json"
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// mapped is a tool call as OpenSeek records it: one of its tools, or the
// source's call kept as it was (foreign).
type mapped struct{ name, args string }

func foreign(name, args string) mapped {
	if strings.TrimSpace(args) == "" {
		args = "{}"
	}
	return mapped{name, args}
}

func encode(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

type shellCall struct {
	Cmd         string `json:"cmd"`
	Cwd         string `json:"cwd,omitempty"`
	TimeoutMs   int    `json:"timeout_ms,omitempty"`
	Description string `json:"description,omitempty"`
}

// shell is our shell tool running line in dir (relative to the source's
// cwd when under it). A command that is apply_patch with its patch inline
// (Codex runs `apply_patch <<'EOF' … EOF` itself) becomes our apply_patch.
func shell(line, dir, cwd string) mapped {
	return shellWith(shellCall{Cmd: line, Cwd: relDir(dir, cwd)})
}

func shellWith(c shellCall) mapped {
	if p, ok := inlinePatch(c.Cmd); ok {
		return applyPatch(p)
	}
	return mapped{"shell", encode(c)}
}

func applyPatch(patch string) mapped {
	return mapped{"apply_patch", encode(struct {
		Input string `json:"input"`
	}{patch})}
}

// inlinePatch finds the patch in a command line that runs apply_patch
// (or applypatch) on a here-document or argument.
func inlinePatch(line string) (string, bool) {
	f := strings.Fields(line)
	if len(f) == 0 || (f[0] != "apply_patch" && f[0] != "applypatch") {
		return "", false
	}
	start := strings.Index(line, "*** Begin Patch")
	end := strings.LastIndex(line, "*** End Patch")
	if start < 0 || end < start {
		return "", false
	}
	return line[start:end+len("*** End Patch")] + "\n", true
}

// argv is a command vector as one shell line: the script of
// ["bash","-lc",script], else the words quoted for a POSIX shell.
func argv(words []string) string {
	if len(words) == 3 && (words[1] == "-lc" || words[1] == "-c") && strings.HasSuffix(words[0], "sh") {
		return words[2]
	}
	quoted := make([]string, len(words))
	for i, w := range words {
		q, err := syntax.Quote(w, syntax.LangBash)
		if err != nil {
			q = w
		}
		quoted[i] = q
	}
	return strings.Join(quoted, " ")
}

// relPath makes p relative to cwd when it lies under it, so the call
// reads the same in the workspace it is imported into.
func relPath(p, cwd string) string {
	if cwd == "" || !filepath.IsAbs(p) {
		return p
	}
	if rel, err := filepath.Rel(cwd, p); err == nil && filepath.IsLocal(rel) {
		return rel
	}
	return p
}

func relDir(dir, cwd string) string {
	if dir == "" {
		return ""
	}
	if r := relPath(dir, cwd); r != "." && r != cwd {
		return r
	}
	return ""
}
