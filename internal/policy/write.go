package policy

import (
	"fmt"
	"path/filepath"
	"strings"

	"github.com/openseek/openseek/internal/beneath"
)

// protectedDir: a directory name no write may enter, in any mode: the
// repository's history and hooks, and OpenSeek's own state and config
// (.openseek/config.toml holds these very rules). Case is ignored, for
// case-insensitive file systems.
func protectedDir(name string) bool {
	return strings.EqualFold(name, ".git") || strings.EqualFold(name, ".openseek")
}

// CheckWrite judges a write to path, an absolute path as tool.Env.Resolve
// returns it (symlinks already followed, inside a writable root). Writes
// into a protected path are denied in every mode; plan mode denies every
// write. Anything else is allowed: the file tools have no approval step.
func (p *Policy) CheckWrite(path string) Verdict {
	v := Verdict{Reason: "inside the workspace"}
	path = filepath.Clean(path)
	if why := p.protected(path); why != "" {
		v.Decision = Deny
		v.Reason = fmt.Sprintf("%s is protected (%s): the agent never writes there, in any mode; the user can make this change themselves", path, why)
		return v
	}
	if why := p.secretPath(path); why != "" {
		v.Decision, v.Reason = Deny, why
		return v
	}
	if p.Mode == ModePlan {
		v.Decision = Deny
		v.Reason = fmt.Sprintf("plan mode is read-only: %s cannot be written; only read, search and plan, and ask the user to leave plan mode to make changes", path)
	}
	return v
}

// protected names why path may not be written, or "".
func (p *Policy) protected(path string) string {
	for _, pp := range p.Protected {
		if pp = filepath.Clean(pp); path == pp || strings.HasPrefix(path, pp+string(filepath.Separator)) {
			return "a config file"
		}
	}
	rel := path
	if p.Workspace != "" {
		ws := filepath.Clean(p.Workspace)
		if r, err := filepath.Rel(ws, path); err == nil && r != ".." && !strings.HasPrefix(r, ".."+string(filepath.Separator)) {
			rel = r
		}
	}
	for _, part := range strings.Split(filepath.ToSlash(rel), "/") {
		if protectedDir(part) {
			return "inside " + part
		}
	}
	return ""
}

// Pin records the protected directories as they are now — the
// workspace's .git and .openseek, and those of Protected — in Pinned.
// Call it when the session starts, before any command runs: a command
// could exchange a directory into a protected name later, and a set taken
// then would hold the impostor.
func (p *Policy) Pin() {
	var paths []string
	if p.Workspace != "" {
		paths = append(paths, filepath.Join(p.Workspace, ".git"), filepath.Join(p.Workspace, ".openseek"))
	}
	p.Pinned = beneath.Identify(append(paths, p.Protected...)...)
}
