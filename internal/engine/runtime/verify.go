package runtime

import (
	"context"
	"fmt"
	"time"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/verify"
	"github.com/openseek/openseek/protocol"
)

// verifyConfig is the [verify] table of config.toml:
//
//	[verify]
//	command = "make check"   # default: detected from the project's files
//	max_repairs = 2          # failed checks handed back to the model per turn
//	timeout = "5m"           # per run
//	enabled = false          # turn verification off (as --no-verify does)
//
// The workspace's file may set command only when the workspace is trusted
// (`openseek trust`, --trust-workspace): a cloned repository must not
// choose what runs after every turn. The config loader decides that
// (verify.command is "once trusted" in config.Keys).
type verifyConfig struct {
	Command    *string `toml:"command"`
	MaxRepairs *int    `toml:"max_repairs"`
	Timeout    *string `toml:"timeout"`
	Enabled    *bool   `toml:"enabled"`
}

// verifier builds the turn-end check, or nil when it is off.
func (e *Engine) verifier() (agent.Verifier, error) {
	if e.opts.NoVerify {
		return nil, nil
	}
	cfg := e.opts.Config
	s, enabled, err := VerifySettings(cfg)
	if err != nil || !enabled {
		return nil, err
	}
	if e.opts.VerifyTimeout > 0 {
		s.Timeout = e.opts.VerifyTimeout
	}
	emit := e.opts.Emit
	v := verify.New(e.opts.Dir, s, e.sandboxPolicy, e.withheld, verify.Report{
		Started: func(command string, attempt int) {
			if snap := e.beforeCheck.Load(); snap != nil {
				(*snap)()
			}
			emit(protocol.VerifyStarted{Command: command, Attempt: attempt})
		},
		Finished: func(r verify.Result, attempt int) {
			emit(protocol.VerifyResult{Command: r.Command, ExitCode: r.ExitCode, OK: r.OK, TimedOut: r.TimedOut, Attempt: attempt, Output: r.Output})
		},
	})
	return verifyAdapter{v}, nil
}

// VerifySettings reads the [verify] table; enabled is false when it turns
// the check off. Settings.Command "" means the check detected from the
// project's files.
func VerifySettings(cfg *config.Config) (s verify.Settings, enabled bool, err error) {
	var c verifyConfig
	if err := cfg.Section("verify", &c); err != nil {
		return s, false, err
	}
	if c.Command != nil {
		s.Command = *c.Command
	}
	if c.MaxRepairs != nil {
		if *c.MaxRepairs < 0 {
			return s, false, fmt.Errorf("config: verify.max_repairs must be 0 or more, not %d", *c.MaxRepairs)
		}
		s.MaxRepairs = *c.MaxRepairs
		if s.MaxRepairs == 0 {
			s.MaxRepairs = -1 // no repair: a failing check ends the turn
		}
	}
	if c.Timeout != nil {
		d, err := time.ParseDuration(*c.Timeout)
		if err != nil || d <= 0 {
			return s, false, fmt.Errorf("config: verify.timeout must be a positive duration such as \"5m\" or \"90s\", not %q", *c.Timeout)
		}
		s.Timeout = d
	}
	return s, c.Enabled == nil || *c.Enabled, nil
}

// verifyAdapter is the turn loop's view of a verify.Verifier.
type verifyAdapter struct{ v *verify.Verifier }

func (a verifyAdapter) BeginTurn(context.Context) func(context.Context) agent.Verdict {
	t := a.v.Begin()
	return func(ctx context.Context) agent.Verdict {
		v := t.Check(ctx)
		return agent.Verdict{Note: v.Note, Repair: v.Repair, Reject: v.Reject}
	}
}
