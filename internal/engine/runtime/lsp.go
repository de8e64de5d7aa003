package runtime

import (
	"strconv"
	"time"

	"github.com/openseek/openseek/internal/lsp"
)

// startLSP gives the file tools the session's language servers: each
// starts the first time a file of its language changes, in the same
// sandbox as shell commands, and stops with the engine (Close). OPENSEEK_LSP=off turns them off;
// OPENSEEK_LSP_WAIT_MS sets how long an edit waits for diagnostics
// (default 1500).
func (e *Engine) startLSP() {
	if getenvOr(e.opts.Getenv, "OPENSEEK_LSP") == "off" {
		return
	}
	o := lsp.Options{Home: e.opts.Home, Sandbox: e.sandboxPolicy}
	if ms, err := strconv.Atoi(getenvOr(e.opts.Getenv, "OPENSEEK_LSP_WAIT_MS")); err == nil && ms > 0 {
		o.Wait = time.Duration(ms) * time.Millisecond
	}
	m := lsp.New(e.opts.Dir, o)
	e.env.Diagnostics = m
	e.cleanup = append(e.cleanup, func() { m.Close() })
}
