package engine

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/mcp"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/trust"
)

// ErrNoSandbox explains why the engine refuses to start when the kernel
// cannot enforce the sandbox and the user did not choose to run without.
type ErrNoSandbox struct{ Problems []string }

func (e *ErrNoSandbox) Error() string {
	return "the OS sandbox cannot be enforced here: " + strings.Join(e.Problems, "; ") +
		". Commands would run with your full permissions; to accept that, pass --no-sandbox (or set OPENSEEK_SANDBOX=off)."
}

// configFiles are the user's and the project's config files, lowest
// precedence first.
func (e *Engine) configFiles() []string {
	return []string{
		filepath.Join(e.opts.Home, ".openseek", "config.toml"),
		filepath.Join(e.opts.Dir, ".openseek", "config.toml"),
	}
}

// setupSafety builds the permission guard and the sandbox policy for the
// tool environment. A rules file that does not parse stops the start.
func (e *Engine) setupSafety() error {
	mode, err := policy.ParseMode(e.opts.Approval)
	if err != nil {
		return err
	}
	rules, err := policy.LoadRules(e.configFiles()...)
	if err != nil {
		return err
	}
	pol := &policy.Policy{Mode: mode, Rules: rules, Workspace: e.opts.Dir, Protected: e.configFiles()}
	guard := &policy.Guard{Policy: pol}
	if mode == policy.ModeAsk {
		e.broker = policy.NewBroker(e.opts.Emit)
		guard.Broker = e.broker
	}
	e.env.Guard = guard

	if mode == policy.ModeFullAccess || e.opts.NoSandbox {
		return nil
	}
	sp := sandbox.DefaultPolicy(e.opts.Dir)
	sp.Network = e.opts.Network
	sp.ReadOnly = append(sp.ReadOnly, e.configFiles()...)
	if problems := sandbox.Detect().Problems(sp); len(problems) > 0 {
		return &ErrNoSandbox{Problems: problems}
	}
	e.env.Sandbox = &sp
	return nil
}

// ResolveApproval answers an approval_requested question. An unknown id
// is an error and approves nothing.
func (e *Engine) ResolveApproval(id string, allow, remember bool) error {
	if e.broker == nil {
		return fmt.Errorf("no approval request with id %s is pending (approvals are asked only with --approval ask)", id)
	}
	return e.broker.Resolve(id, allow, remember)
}

// startMCP connects the configured MCP servers; their tools join the
// registry. Servers that fail are reported by mcp_* events and skipped.
func (e *Engine) startMCP() *mcp.Manager {
	wsFile := filepath.Join(e.opts.Dir, ".mcp.json")
	trusted := e.opts.TrustWorkspace || trust.Open(e.opts.Home).Trusted(wsFile)
	servers := mcp.Load(mcp.ConfigFiles(e.opts.Home, e.opts.Dir, e.opts.MCPConfig, trusted), e.opts.Emit)
	if len(servers) == 0 {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	return mcp.Start(ctx, servers, mcp.Options{Emit: e.opts.Emit, Dir: e.opts.Dir, ConnectTimeout: 15 * time.Second, ListTimeout: 15 * time.Second})
}
