package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/openseek/openseek/internal/secretfile"
)

// Policy is what a sandboxed command may do. Paths are absolute.
type Policy struct {
	// Workspace is the project directory; the command may write in it.
	Workspace string `json:"workspace"`
	// WritableRoots are further directories the command may write in:
	// temporary directories and well-known tool caches by default.
	WritableRoots []string `json:"writable_roots,omitempty"`
	// Caches are the host's language caches (Go's module and build
	// caches, npm's, cargo's registry): read-only to commands, so nothing
	// a command plants there reaches a build on the host.
	Caches []string `json:"caches,omitempty"`
	// CacheDir holds the command's own, writable caches; GOCACHE,
	// GOMODCACHE (filled from the host's module cache first), the npm
	// cache and XDG_CACHE_HOME point into it. It persists, so a workspace
	// keeps what its commands cached. Plan mode uses the private /tmp.
	CacheDir string `json:"cache_dir,omitempty"`
	// ReadOnly paths stay read-only even inside a writable root, and
	// cannot be replaced (renamed, removed, swapped for a symlink).
	ReadOnly []string `json:"read_only,omitempty"`
	// Network allows network access; false gives the command an empty
	// network namespace.
	Network bool `json:"network,omitempty"`
	// Proxy, when Network is false, is the commands' one way out: their
	// network namespace gets loopback and a listener at [ProxyAddr] that
	// Proxy serves from outside, and their environment points HTTP_PROXY
	// and its kin there. nil: no network at all.
	Proxy NetworkProxy `json:"-"`
	// Proxied is set by validation when Proxy takes effect, so that the
	// sandbox's init and the helper's key know; this program ignores it
	// without a Proxy.
	Proxied bool `json:"proxied,omitempty"`
	// ReadOnlyWorkspace makes the workspace read-only to the command, as
	// plan mode promises, and drops the writable roots but the temporary
	// directories: whatever its options or environment, the command
	// cannot change the project.
	ReadOnlyWorkspace bool `json:"read_only_workspace,omitempty"`
	// AllowEnv names secret-looking environment variables to pass to the
	// command anyway; a trailing or embedded '*' matches like path.Match.
	AllowEnv []string `json:"allow_env,omitempty"`
	// Session names the session (any string unique to it) the commands
	// belong to. Commands of one session share a sandbox helper, and with
	// it, without network, the private /tmp: a file one step leaves there
	// is there for the next. Commands of different sessions never share
	// one. [Policy.Release] ends the session's helper and its /tmp.
	Session string `json:"session,omitempty"`
	// Secrets, when set, hides the secret files (package secretfile) of
	// the workspace and the usual ones of the user's home from commands:
	// each reads as empty and cannot be written. The workspace's secret
	// files created after the sandbox started are hidden from the next
	// command on (a session's helper watches the workspace, secretWatch);
	// the home's are those of the start.
	Secrets *secretfile.Rules `json:"secrets,omitempty"`
}

// DefaultPolicy is the policy for a workspace: write in the workspace,
// the temporary directories and private language caches under the
// workspace's .openseek/cache; the host's caches, .git, .openseek and the
// user's ~/.openseek read-only; no network.
func DefaultPolicy(workspace string) Policy {
	ws := filepath.Clean(workspace)
	p := Policy{
		Workspace: ws,
		CacheDir:  filepath.Join(ws, ".openseek", "cache"),
		ReadOnly: []string{
			filepath.Join(ws, ".git"),
			filepath.Join(ws, ".openseek"),
		},
	}
	p.WritableRoots = appendUnique(p.WritableRoots, filepath.Clean(os.TempDir()), "/tmp", "/var/tmp", "/dev/shm")
	home, err := os.UserHomeDir()
	if err == nil && filepath.IsAbs(home) {
		// Caches only: ~/.cargo/bin or ~/go/bin stay read-only so a command
		// cannot plant programs that later run outside the sandbox.
		p.Caches = appendUnique(p.Caches,
			filepath.Join(home, ".cache"),
			filepath.Join(home, ".npm"),
			filepath.Join(home, ".cargo", "registry"),
			filepath.Join(home, ".cargo", "git"),
		)
		p.ReadOnly = append(p.ReadOnly, filepath.Join(home, ".openseek"))
	}
	if mod := goModCache(home); mod != "" {
		p.Caches = appendUnique(p.Caches, mod)
	}
	return p
}

// goModCache is where `go` keeps downloaded modules: $GOMODCACHE, else the
// first $GOPATH entry's pkg/mod, else ~/go/pkg/mod.
func goModCache(home string) string {
	if d := os.Getenv("GOMODCACHE"); filepath.IsAbs(d) {
		return filepath.Clean(d)
	}
	if gp := filepath.SplitList(os.Getenv("GOPATH")); len(gp) > 0 && filepath.IsAbs(gp[0]) {
		return filepath.Join(gp[0], "pkg", "mod")
	}
	if filepath.IsAbs(home) {
		return filepath.Join(home, "go", "pkg", "mod")
	}
	return ""
}

func appendUnique(list []string, add ...string) []string {
	for _, a := range add {
		dup := false
		for _, l := range list {
			if l == a {
				dup = true
				break
			}
		}
		if !dup {
			list = append(list, a)
		}
	}
	return list
}

// validate checks that every path is absolute and returns the policy with
// clean paths.
func (p Policy) validate() (Policy, error) {
	if p.Workspace == "" {
		return p, errors.New("sandbox policy has no workspace")
	}
	if !filepath.IsAbs(p.Workspace) {
		return p, fmt.Errorf("sandbox workspace %q is not an absolute path", p.Workspace)
	}
	p.Workspace = filepath.Clean(p.Workspace)
	// The sandbox's init gets Proxied over JSON, without Proxy.
	p.Proxied = (p.Proxied || p.Proxy != nil) && !p.Network
	clean := func(kind string, in []string) ([]string, error) {
		out := make([]string, 0, len(in))
		for _, d := range in {
			if !filepath.IsAbs(d) {
				return nil, fmt.Errorf("sandbox %s path %q is not absolute", kind, d)
			}
			out = append(out, filepath.Clean(d))
		}
		return out, nil
	}
	var err error
	if p.WritableRoots, err = clean("writable", p.WritableRoots); err != nil {
		return p, err
	}
	if p.ReadOnly, err = clean("read-only", p.ReadOnly); err != nil {
		return p, err
	}
	if p.Caches, err = clean("cache", p.Caches); err != nil {
		return p, err
	}
	if p.CacheDir != "" && !filepath.IsAbs(p.CacheDir) {
		return p, fmt.Errorf("sandbox cache directory %q is not absolute", p.CacheDir)
	}
	return p, nil
}
