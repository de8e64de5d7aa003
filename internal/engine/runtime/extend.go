package runtime

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/openseek/openseek/internal/hooks"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/skills"
	"github.com/openseek/openseek/internal/trust"
	"github.com/openseek/openseek/protocol"
)

// extensions are what the user and the repository add to the engine.
type extensions struct {
	skills []skills.Skill
}

// loadExtensions discovers skills and hooks. Problems in one file are
// reported (background_notice) and the rest still loads.
func (e *Engine) loadExtensions() extensions {
	var ext extensions
	global := e.opts.GlobalSkillsDir
	if global == "" {
		global = filepath.Join(e.opts.Home, ".openseek", "skills")
	}
	sk, errs := skills.Discover(e.opts.Dir, global)
	e.reportLoadErrors("skills", errs)
	ext.skills = sk

	store := trust.Open(e.opts.Home)
	wsHooks := filepath.Join(e.opts.Dir, ".openseek", "hooks.json")
	files := []hooks.File{{Path: filepath.Join(e.opts.Home, ".openseek", "hooks.json"), Trusted: true}}
	if _, err := os.Stat(wsHooks); err == nil {
		files = append(files, hooks.File{
			Path:    wsHooks,
			Trusted: e.opts.TrustWorkspace || store.Trusted(wsHooks),
			Hint:    "run `openseek trust` in the workspace (or pass --trust-workspace) to let its hooks run",
		})
	}
	r, errs := hooks.Load(files)
	e.reportLoadErrors("hooks", errs)
	if hasAnyHook(r) {
		e.hooks = &hookAdapter{r: r, emit: e.opts.Emit, cwd: e.opts.Dir}
	}
	return ext
}

func hasAnyHook(r *hooks.Runner) bool {
	for _, ev := range hooks.Events() {
		if r.Has(ev) {
			return true
		}
	}
	return false
}

// reportLoadErrors tells the user about files that did not load.
func (e *Engine) reportLoadErrors(what string, errs []error) {
	for _, err := range errs {
		e.opts.Emit(protocol.BackgroundNotice{Content: fmt.Sprintf("[%s] %v", what, err)})
	}
}

// bindHooks tells the hooks which session they serve, once it is known.
func (e *Engine) bindHooks() {
	if e.hooks == nil {
		return
	}
	e.hooks.sessionID = e.id
	if e.writer != nil {
		e.hooks.transcript = session.NewStore(e.root).Path(e.id)
	}
}

func getenvOr(getenv func(string) string, key string) string {
	if getenv == nil {
		getenv = os.Getenv
	}
	return getenv(key)
}
