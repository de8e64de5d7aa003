package tool

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/openseek/openseek/internal/beneath"
	"github.com/openseek/openseek/protocol"
)

// The engine's facilities as the tools see them: small interfaces, so
// that a tool links only what it uses (the search tools neither the jobs
// nor the sandbox code). *jobs.Manager, *policy.Guard, *sandbox.Policy and
// *sandbox.Secrets are what the engine hands in.
type (
	// Jobs is the session's background-job runtime. The shell tools,
	// which start and read jobs, use more of it (package shell).
	Jobs interface {
		Generation() string
		Job(id string) (protocol.JobRecord, bool)
		Stop(generation, id string) string
	}
	// Guard is the permission check. The shell tool also has it judge
	// commands (package shell).
	Guard interface {
		// Write decides whether tool may write the resolved path.
		Write(ctx context.Context, tool, path string) error
		// Read decides whether tool may read the resolved path (secret
		// files are refused unless the user's config allows them).
		Read(ctx context.Context, tool, path string) error
		// Avoided are the protected directories no write may enter,
		// by device and inode (beneath.Open).
		Avoided() beneath.Set
	}
	// Sandbox confines the commands tools run; the shell tools hand it to
	// the jobs that run them.
	Sandbox interface {
		// Hides is the directory of path the sandbox hides, or "".
		Hides(path string) string
	}
	// Secrets are the credentials the process holds.
	Secrets interface {
		// Env is env without the secrets, but for the names in allow.
		Env(env, allow []string) []string
		// Redact replaces every secret value in text.
		Redact(text string) string
	}
)

// Env is the small runtime handle a tool gets: where it works and the
// shared facilities of the engine. It is owned by the engine and shared by
// every call of a session.
type Env struct {
	Workspace string // absolute, cleaned workspace root
	// Cwd is the absolute directory the user started in, inside the
	// workspace: shell commands start there. "" = the workspace root.
	Cwd   string
	Jobs  Jobs       // background jobs; nil when there is no background runtime
	Files *FileState // what the agent wrote this session (provenance for remove)
	// Roots are further absolute directories that paths may resolve into
	// besides Workspace (extra writable roots); nil means the workspace
	// only.
	Roots []string
	// Guard is the permission check: shell asks it before running a
	// command, the write tools before writing a resolved path (protected
	// paths, plan mode). nil checks nothing.
	Guard Guard
	// Sandbox confines the commands tools run (shell, background jobs);
	// nil runs them unsandboxed. The engine decides, from what the kernel
	// offers and the user's explicit choice.
	Sandbox Sandbox
	// Diagnostics, when set, lets the file tools report what a change did
	// to the language servers' diagnostics (see DiagnoseChange).
	Diagnostics Diagnostics
	// Editor, when set, reads files through the user's editor (see
	// EditorRead); nil reads the disk.
	Editor EditorRead
	// Secrets are the credentials the process holds: withheld from the
	// commands tools run and redacted from every tool result ([Env.Redact]).
	// nil holds none.
	Secrets Secrets
}

// CheckWrite asks the guard whether tool may write the resolved path; nil
// (go ahead) when there is no guard.
func (e *Env) CheckWrite(ctx context.Context, tool, path string) error {
	if e.Guard == nil {
		return nil
	}
	return e.Guard.Write(ctx, tool, path)
}

// CheckRead asks the guard whether tool may read the resolved path; nil
// (go ahead) when there is no guard.
func (e *Env) CheckRead(ctx context.Context, tool, path string) error {
	if e.Guard == nil {
		return nil
	}
	return e.Guard.Read(ctx, tool, path)
}

// Avoided are the guard's protected directories (none without a guard).
func (e *Env) Avoided() beneath.Set {
	if e.Guard == nil {
		return beneath.Set{}
	}
	return e.Guard.Avoided()
}

// Redact is res with every secret value the environment holds replaced,
// in what the model sees, the display summary, the machine-readable
// detail and the notices: tool output reaches the model, the event
// stream and the session log only through it.
func (e *Env) Redact(res Result) Result {
	if e == nil || e.Secrets == nil {
		return res
	}
	s := e.Secrets
	if len(res.Content) > 0 {
		c := make(protocol.Content, len(res.Content))
		copy(c, res.Content)
		for i := range c {
			c[i].Text = s.Redact(c[i].Text)
		}
		res.Content = c
	}
	res.Brief = s.Redact(res.Brief)
	if len(res.Data) > 0 {
		res.Data = []byte(s.Redact(string(res.Data)))
	}
	if len(res.Notices) > 0 {
		n := make([]string, len(res.Notices))
		for i, v := range res.Notices {
			n[i] = s.Redact(v)
		}
		res.Notices = n
	}
	return res
}

// maxSymlinkHops bounds symlink chains (and breaks cycles) in Resolve.
const maxSymlinkHops = 40

// Resolve turns a model-supplied path into the absolute path to use.
// Relative paths join the workspace. Every symlink on the way — including
// a dangling one at the end — is followed, and the result must lie inside
// the workspace or one of Roots; otherwise Resolve fails with
// `path "<path>" is outside the workspace <root>`. The returned path has
// no symlinks in its existing part, so writing through it cannot escape.
func (e *Env) Resolve(path string) (string, error) {
	if e == nil || e.Workspace == "" {
		return "", errors.New("no workspace configured")
	}
	if strings.TrimSpace(path) == "" {
		return "", errors.New("empty path")
	}
	p := path
	if !filepath.IsAbs(p) {
		p = filepath.Join(e.Workspace, p)
	}
	real, err := realPath(filepath.Clean(p))
	if err != nil {
		return "", fmt.Errorf("resolve %q: %w", path, err)
	}
	for _, root := range append([]string{e.Workspace}, e.Roots...) {
		rr, err := realPath(filepath.Clean(root))
		if err != nil {
			continue
		}
		if within(real, rr) {
			return real, nil
		}
	}
	return "", fmt.Errorf("path %q is outside the workspace %s", path, e.Workspace)
}

// Rel is path (absolute, as Resolve returns it) relative to the workspace
// with forward slashes, or path itself when it lies elsewhere.
func (e *Env) Rel(path string) string {
	if e == nil {
		return path
	}
	root, err := realPath(filepath.Clean(e.Workspace))
	if err != nil {
		root = e.Workspace
	}
	if rel, err := filepath.Rel(root, path); err == nil && within(path, root) {
		return filepath.ToSlash(rel)
	}
	return path
}

// within reports whether p is root or below it; both are clean.
func within(p, root string) bool {
	if p == root {
		return true
	}
	if !strings.HasSuffix(root, string(filepath.Separator)) {
		root += string(filepath.Separator)
	}
	return strings.HasPrefix(p, root)
}

// realPath resolves every symlink of the absolute clean path p, component
// by component, so a link whose target does not exist yet still counts
// where it points. The part of p that does not exist is appended as is.
func realPath(p string) (string, error) {
	vol := filepath.VolumeName(p)
	resolved := vol + string(filepath.Separator)
	rest := splitPath(p[len(vol):])
	hops := 0
	for len(rest) > 0 {
		next := filepath.Join(resolved, rest[0])
		fi, err := os.Lstat(next)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ENOTDIR) {
				return filepath.Join(append([]string{resolved}, rest...)...), nil
			}
			return "", err
		}
		rest = rest[1:]
		if fi.Mode()&fs.ModeSymlink == 0 {
			resolved = next
			continue
		}
		if hops++; hops > maxSymlinkHops {
			return "", fmt.Errorf("too many levels of symbolic links at %s", next)
		}
		target, err := os.Readlink(next)
		if errors.Is(err, syscall.EINVAL) {
			// No longer a symlink: something renamed it since the Lstat.
			// Look at the component again (hops bounds the retries).
			rest = append([]string{filepath.Base(next)}, rest...)
			continue
		}
		if err != nil {
			return "", err
		}
		if !filepath.IsAbs(target) {
			target = filepath.Join(resolved, target)
		}
		target = filepath.Clean(target)
		vol = filepath.VolumeName(target)
		resolved = vol + string(filepath.Separator)
		rest = append(splitPath(target[len(vol):]), rest...)
	}
	return resolved, nil
}

func splitPath(p string) []string {
	var out []string
	for _, c := range strings.Split(p, string(filepath.Separator)) {
		if c != "" && c != "." {
			out = append(out, c)
		}
	}
	return out
}
