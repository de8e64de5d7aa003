package engine

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/BurntSushi/toml"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/trust"
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
// choose what runs after every turn.
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
	files := e.configFiles()
	var s verify.Settings
	enabled := true
	for i, path := range files {
		var doc struct {
			Verify verifyConfig `toml:"verify"`
		}
		md, err := toml.DecodeFile(path, &doc)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		for _, k := range md.Undecoded() {
			if len(k) == 2 && k[0] == "verify" {
				return nil, fmt.Errorf("%s: verify.%s is not a verify setting (command, max_repairs, timeout, enabled)", path, k[1])
			}
		}
		c := doc.Verify
		if c.Command != nil {
			if i == 1 && !e.opts.TrustWorkspace && !trust.Open(e.opts.Home).Trusted(path) {
				e.opts.Emit(protocol.BackgroundNotice{Content: "[verify] the command of " + path + " is ignored until the workspace is trusted (`openseek trust` or --trust-workspace); the detected check runs instead"})
			} else {
				s.Command = *c.Command
			}
		}
		if c.MaxRepairs != nil {
			if *c.MaxRepairs < 0 {
				return nil, fmt.Errorf("%s: verify.max_repairs must be 0 or more, not %d", path, *c.MaxRepairs)
			}
			s.MaxRepairs = *c.MaxRepairs
			if s.MaxRepairs == 0 {
				s.MaxRepairs = -1 // no repair: a failing check ends the turn
			}
		}
		if c.Timeout != nil {
			d, err := time.ParseDuration(*c.Timeout)
			if err != nil || d <= 0 {
				return nil, fmt.Errorf("%s: verify.timeout must be a positive duration such as \"5m\" or \"90s\", not %q", path, *c.Timeout)
			}
			s.Timeout = d
		}
		if c.Enabled != nil {
			enabled = *c.Enabled
		}
	}
	if !enabled {
		return nil, nil
	}
	if e.opts.VerifyTimeout > 0 {
		s.Timeout = e.opts.VerifyTimeout
	}
	emit := e.opts.Emit
	v := verify.New(e.opts.Dir, s, e.env.Sandbox, e.env.Secrets, verify.Report{
		Started: func(command string, attempt int) {
			emit(protocol.VerifyStarted{Command: command, Attempt: attempt})
		},
		Finished: func(r verify.Result, attempt int) {
			emit(protocol.VerifyResult{Command: r.Command, ExitCode: r.ExitCode, OK: r.OK, TimedOut: r.TimedOut, Attempt: attempt, Output: r.Output})
		},
	})
	return verifyAdapter{v}, nil
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
