package policy

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Guard is what the tools consult before acting: the policy, and the
// broker that asks the controller (nil when nobody can be asked, as in
// `openseek run`). A nil *Guard, or one without a Policy, checks nothing.
type Guard struct {
	Policy *Policy
	Broker *Broker
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

// Command decides whether tool may run script: nil means go ahead. Ask
// verdicts go to the broker; an error's text tells the model why it was
// refused (a *Refusal), or that ctx ended while waiting.
func (g *Guard) Command(ctx context.Context, tool, script string) error {
	if g == nil || g.Policy == nil {
		return nil
	}
	v := g.Policy.CheckCommand(script)
	switch v.Decision {
	case Allow:
		return nil
	case Deny:
		return &Refusal{Verdict: v, Text: "refused: " + v.Reason + ". Do not retry it or work around it; tell the user what you wanted to run and why"}
	}
	if g.Broker == nil {
		return &Refusal{Verdict: v, Text: "refused: " + v.Reason + "; it needs approval and no controller can be asked in this session. Tell the user what you wanted to run and why"}
	}
	detail := v.Reason
	if len(v.Patterns) > 0 {
		detail += "; approving for the session covers: " + strings.Join(v.Patterns, ", ")
	}
	ok, err := g.Broker.Ask(ctx, tool, detail, script, strings.Join(v.Patterns, "\n"))
	if err != nil {
		return fmt.Errorf("waiting for approval: %w", err)
	}
	if !ok {
		return &Refusal{Verdict: v, Text: "refused: the user did not approve running this command. Do not retry it unchanged; ask the user how to proceed or choose another approach"}
	}
	return nil
}

// Write decides whether tool may write the resolved absolute path: nil
// means go ahead. Writes are never asked about: they are allowed, or
// refused with a *Refusal (protected path, plan mode).
func (g *Guard) Write(ctx context.Context, tool, path string) error {
	if g == nil || g.Policy == nil {
		return nil
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	v := g.Policy.CheckWrite(path)
	if v.Decision == Allow {
		return nil
	}
	return &Refusal{Verdict: v, Text: fmt.Sprintf("refused (%s): %s", tool, v.Reason)}
}
