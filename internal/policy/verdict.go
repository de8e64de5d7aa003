package policy

import (
	"fmt"
	"strings"
)

// verdict combines the findings (strictest wins) and applies the mode.
func (c *checker) verdict() Verdict {
	var v Verdict
	if len(c.findings) == 0 {
		v.Reason = "no command to run"
		return v
	}
	top := 0
	readOnly, ruleAllowed := true, false
	var notReadOnly *finding
	for i := range c.findings {
		f := &c.findings[i]
		if f.need > c.findings[top].need {
			top = i
		}
		if !f.readOnly || f.need != needAllow {
			readOnly = false
			if notReadOnly == nil {
				notReadOnly = f
			}
		}
		for _, m := range f.matches {
			if m.Rule.Decision == Allow {
				ruleAllowed = true
			}
		}
		v.Matches = append(v.Matches, f.matches...)
		v.Commands = append(v.Commands, f.argv)
		if f.destroys != "" && v.Destructive == "" {
			v.Destructive = f.destroys
		}
	}
	v.ReadOnly = readOnly
	worst := c.findings[top]
	switch {
	case worst.need == needDeny:
		v.Decision, v.Reason = Deny, worst.reason
		return v
	case c.p.Mode == ModePlan && c.escalate:
		v.Decision = Deny
		v.Reason = "plan mode is read-only and runs nothing outside the sandbox: only read, search and plan, and ask the user to leave plan mode to make changes"
		return v
	case c.p.Mode == ModePlan:
		if readOnly {
			v.Reason = "read-only command"
			return v
		}
		why := notReadOnly.reason
		if notReadOnly.need == needAllow {
			why = fmt.Sprintf("%q is not a known read-only command", displayCmd(notReadOnly.argv))
		}
		v.Decision = Deny
		v.Reason = why + "; plan mode is read-only: only read, search and plan, and ask the user to leave plan mode to make changes"
		return v
	case c.escalate:
		return c.escalation(v)
	case c.p.Mode == ModeAuto:
		return c.auto(v, worst, ruleAllowed)
	}
	switch worst.need {
	case needAllow:
		v.Reason = allowedReason(ruleAllowed)
	case needSoftAsk:
		switch c.p.Mode {
		case ModeAsk:
			v.Decision, v.Reason = Ask, worst.reason
		default:
			v.Reason = worst.reason + fmt.Sprintf("; runs without asking (--approval %s)", modeName(c.p.Mode))
		}
	case needAsk:
		switch c.p.Mode {
		case ModeAsk:
			v.Decision, v.Reason = Ask, worst.reason
		case ModeAlways, ModeFullAccess:
			v.Reason = worst.reason + fmt.Sprintf("; granted without asking (--approval %s)", c.p.Mode)
		default:
			v.Decision = Deny
			v.Reason = worst.reason + "; it needs approval and approvals are off (--approval never): the user can rerun with --approval auto to be asked, or add an allow rule"
		}
	}
	if v.Decision == Ask {
		v.Patterns = c.patterns(func(f *finding) bool { return f.need == needSoftAsk || f.need == needAsk })
	}
	return v
}

func allowedReason(ruleAllowed bool) string {
	if ruleAllowed {
		return "allowed by rule"
	}
	return "known read-only command"
}

// auto applies auto mode: what the sandbox contains runs unasked; a
// command that needs more (an escalation, the network, a write outside
// the workspace) is asked about and, once allowed, runs outside the
// sandbox. Without a sandbox nothing is contained, so every command not
// known to be read-only is asked about, as in ask mode.
func (c *checker) auto(v Verdict, worst finding, ruleAllowed bool) Verdict {
	asked := func(f *finding) bool {
		if !c.p.Sandboxed {
			return f.need == needSoftAsk || f.need == needAsk
		}
		return f.need == needAsk || f.outside != ""
	}
	var first *finding
	for i := range c.findings {
		f := &c.findings[i]
		if asked(f) && (first == nil || f.need > first.need) {
			first = f
		}
	}
	switch {
	case first == nil && worst.need == needAllow:
		v.Reason = allowedReason(ruleAllowed)
		return v
	case first == nil:
		v.Reason = worst.reason + "; runs in the sandbox without asking (--approval auto)"
		return v
	}
	v.Decision = Ask
	v.Patterns = c.patterns(asked)
	why := first.reason
	if first.need < needAsk && first.outside != "" {
		why = fmt.Sprintf("%q needs more than the sandbox gives: %s", displayCmd(first.argv), first.outside)
	}
	if !c.p.Sandboxed {
		v.Reason = why + "; commands run without the OS sandbox here"
		return v
	}
	v.Outside = true
	v.Reason = why + "; if allowed, it runs outside the sandbox"
	return v
}

// escalation applies the mode to a script the model asks to run outside
// the sandbox.
func (c *checker) escalation(v Verdict) Verdict {
	why := "the model asks to run it outside the sandbox"
	if c.why != "" {
		why += ": " + c.why
	}
	switch c.p.Mode {
	case ModeAuto, ModeAsk:
		v.Decision, v.Reason, v.Outside = Ask, why, true
		v.Patterns = c.patterns(func(*finding) bool { return true })
	case ModeAlways:
		v.Reason, v.Outside = why+"; granted without asking (--approval always)", true
	case ModeFullAccess:
		v.Reason = "commands run without the sandbox (--approval full-access)"
	default:
		v.Decision = Deny
		v.Reason = why + "; that needs approval and approvals are off (--approval never): run it in the sandbox, or the user can rerun with --approval auto to be asked"
	}
	return v
}

// patterns are the session patterns of the findings asked about, each once.
func (c *checker) patterns(asked func(*finding) bool) []string {
	var out []string
	seen := map[string]bool{}
	for i := range c.findings {
		f := &c.findings[i]
		if asked(f) && f.pattern != "" && !seen[f.pattern] {
			seen[f.pattern] = true
			out = append(out, f.pattern)
		}
	}
	return out
}

func modeName(m Mode) string {
	if m == "" {
		return string(ModeNever)
	}
	return string(m)
}

// Explain renders the verdict for `openseek rules check`: each command,
// each matching rule, then the decision and why.
func (v Verdict) Explain() string {
	var b strings.Builder
	for _, c := range v.Commands {
		fmt.Fprintf(&b, "command: %s\n", displayCmd(c))
	}
	if len(v.Matches) == 0 {
		b.WriteString("rules: none matched\n")
	}
	for _, m := range v.Matches {
		maybe := ""
		if m.Maybe {
			maybe = " (maybe: a word is only known when it runs)"
		}
		fmt.Fprintf(&b, "rule: %s matched %s%s\n", m.Rule, displayCmd(m.Command), maybe)
	}
	fmt.Fprintf(&b, "decision: %s: %s\n", v.Decision, v.Reason)
	return b.String()
}
