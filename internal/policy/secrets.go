package policy

import (
	"fmt"
	"path/filepath"

	"github.com/openseek/openseek/internal/secretfile"
)

// secretPath says why path (absolute, resolved) may not be read or
// written because it holds secrets (package secretfile), or "".
func (p *Policy) secretPath(path string) string {
	if p.Secrets == nil {
		return ""
	}
	if secret, token := secretfile.Named(filepath.Base(path)); !secret && !token {
		return "" // the common case, without a Rel
	}
	rel := ""
	if p.Workspace != "" {
		if r, err := filepath.Rel(p.Workspace, path); err == nil && filepath.IsLocal(r) {
			rel = filepath.ToSlash(r)
		}
	}
	if !p.Secrets.Secret(path, rel) {
		return ""
	}
	show := rel
	if show == "" {
		show = path
	}
	return fmt.Sprintf("%s holds secrets (credentials, keys or tokens): in every mode OpenSeek's tools neither read nor change it, and commands see it empty. Do not try to get at it another way; if the task needs it, ask the user — they can allow it with `[files] allow_secrets = [%q]` in ~/.openseek/config.toml", show, rel)
}

// CheckRead judges reading path, an absolute path as tool.Env.Resolve
// returns it: a secret file is denied in every mode unless allowed.
func (p *Policy) CheckRead(path string) Verdict {
	if why := p.secretPath(filepath.Clean(path)); why != "" {
		return Verdict{Decision: Deny, Reason: why}
	}
	return Verdict{Reason: "readable"}
}
