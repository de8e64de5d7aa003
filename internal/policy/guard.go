package policy

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/openseek/openseek/internal/beneath"
)

// Guard is what the tools consult before acting: the policy, and the
// broker that asks the controller (nil when nobody can be asked, as in
// `openseek run`). A nil *Guard, or one without a Policy, checks nothing.
type Guard struct {
	Policy *Policy
	Broker *Broker
	// Snapshot, when set, is called before a destructive command that the
	// policy allows runs (Verdict.Destructive says what it destroys): the
	// engine snapshots the workspace there, so that a rewind undoes the
	// command. If it fails the command does not run.
	Snapshot func(ctx context.Context, what string) error
}

// Refusal is the error of a refused action. Its text is what the model
// sees: what was refused, why, and what the user can do.
type Refusal struct {
	Verdict Verdict
	Text    string
}

func (r *Refusal) Error() string { return r.Text }

// IsRefusal reports whether err is a policy refusal.
func IsRefusal(err error) bool {
	var r *Refusal
	return errors.As(err, &r)
}

// Command decides whether tool may run script in the sandbox: nil means
// go ahead. See Shell.
func (g *Guard) Command(ctx context.Context, tool, script string) error {
	_, err := g.Shell(ctx, tool, script, Escalation{})
	return err
}

// Escalation is a shell call's request to run outside the sandbox.
type Escalation struct {
	Requested bool
	Why       string // the model's justification, shown to the user
}

// Shell decides whether tool may run script: a nil error means go ahead,
// outside the sandbox when outside is true (an approved escalation). Ask
// verdicts go to the broker; an error's text tells the model why it was
// refused (a *Refusal, carrying the user's reason for a rejection), or
// that ctx ended while waiting.
func (g *Guard) Shell(ctx context.Context, tool, script string, esc Escalation) (outside bool, err error) {
	return g.ShellIn(ctx, tool, "", script, esc)
}

// ShellIn is Shell for a script that starts in the directory dir ("" the
// workspace root). Before a destructive command runs, Snapshot is called.
func (g *Guard) ShellIn(ctx context.Context, tool, dir, script string, esc Escalation) (outside bool, err error) {
	if g == nil || g.Policy == nil {
		return false, nil
	}
	v := g.Policy.CheckCommandIn(dir, script)
	if esc.Requested {
		v = g.Policy.CheckEscalationIn(dir, script, esc.Why)
	}
	switch v.Decision {
	case Allow:
		return v.Outside, g.snapshot(ctx, v)
	case Deny:
		return false, &Refusal{Verdict: v, Text: "refused: " + v.Reason + ". Do not retry it or work around it; tell the user what you wanted to run and why"}
	}
	if g.Broker == nil {
		return false, &Refusal{Verdict: v, Text: "refused: " + v.Reason + "; it needs approval and no controller can be asked in this session. Tell the user what you wanted to run and why"}
	}
	a, err := g.Broker.Ask(ctx, Question{Tool: tool, Detail: v.Reason, Body: script, Patterns: v.Patterns, Outside: v.Outside})
	if err != nil {
		return false, fmt.Errorf("waiting for approval: %w", err)
	}
	if !a.Allow {
		text := "refused: the user did not approve running this command"
		if r := strings.TrimSpace(a.Reason); r != "" {
			text += ". The user said: " + r + ". Follow what the user said"
		} else {
			text += ". Do not retry it unchanged; ask the user how to proceed or choose another approach"
		}
		return false, &Refusal{Verdict: v, Text: text}
	}
	return v.Outside, g.snapshot(ctx, v)
}

// snapshot calls Snapshot before a destructive command; its failure
// stops the command, which could not be undone.
func (g *Guard) snapshot(ctx context.Context, v Verdict) error {
	if v.Destructive == "" || g.Snapshot == nil {
		return nil
	}
	if err := g.Snapshot(ctx, v.Destructive); err != nil {
		return fmt.Errorf("was not run: %s, and the snapshot that would let the user undo it failed: %w", v.Destructive, err)
	}
	return nil
}

// Avoided are the protected directories by device and inode
// (Policy.Pinned): the file tools' roots never enter them.
func (g *Guard) Avoided() beneath.Set {
	if g == nil || g.Policy == nil {
		return beneath.Set{}
	}
	return g.Policy.Pinned
}

// Write decides whether tool may write the resolved absolute path: nil
// means go ahead. Writes are never asked about: they are allowed, or
// refused with a *Refusal (protected path, a secret file, plan mode).
func (g *Guard) Write(ctx context.Context, tool, path string) error {
	return g.file(ctx, tool, path, (*Policy).CheckWrite)
}

// Read decides whether tool may read the resolved absolute path: nil
// means go ahead, a *Refusal names the secret file and what the user can
// do.
func (g *Guard) Read(ctx context.Context, tool, path string) error {
	return g.file(ctx, tool, path, (*Policy).CheckRead)
}

// file applies a file check of the policy for tool.
func (g *Guard) file(ctx context.Context, tool, path string, check func(*Policy, string) Verdict) error {
	if g == nil || g.Policy == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	v := check(g.Policy, path)
	if v.Decision == Allow {
		return nil
	}
	return &Refusal{Verdict: v, Text: fmt.Sprintf("refused (%s): %s", tool, v.Reason)}
}
