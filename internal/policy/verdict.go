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
	seenPattern := map[string]bool{}
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
		if (f.need == needSoftAsk || f.need == needAsk) && !seenPattern[f.pattern] {
			seenPattern[f.pattern] = true
			v.Patterns = append(v.Patterns, f.pattern)
		}
	}
	worst := c.findings[top]
	switch {
	case worst.need == needDeny:
		v.Decision, v.Reason = Deny, worst.reason
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
	}
	switch worst.need {
	case needAllow:
		v.Reason = "known read-only command"
		if ruleAllowed {
			v.Reason = "allowed by rule"
		}
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
			v.Reason = worst.reason + "; it needs approval and approvals are off (--approval never): the user can rerun with --approval ask to be asked, or add an allow rule"
		}
	}
	if v.Decision != Ask {
		v.Patterns = nil
	}
	return v
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
