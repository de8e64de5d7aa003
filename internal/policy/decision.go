package policy

import "fmt"

// Decision is what the policy says about one action.
type Decision int

// Decisions, from the least to the most strict: when several apply, the
// strictest wins.
const (
	Allow Decision = iota
	Ask
	Deny
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Ask:
		return "ask"
	case Deny:
		return "deny"
	}
	return fmt.Sprintf("decision(%d)", int(d))
}

// ParseDecision reads "allow", "ask" or "deny".
func ParseDecision(s string) (Decision, error) {
	switch s {
	case "allow":
		return Allow, nil
	case "ask":
		return Ask, nil
	case "deny":
		return Deny, nil
	}
	return Allow, fmt.Errorf("unknown decision %q: use \"allow\", \"ask\" or \"deny\"", s)
}

// Mode is how much the agent may do without asking (--approval).
type Mode string

// Modes; the zero Mode behaves as ModeNever.
const (
	ModeAuto       Mode = "auto"        // run what the sandbox contains; ask for anything more
	ModeNever      Mode = "never"       // refuse escalation; never ask
	ModeAsk        Mode = "ask"         // ask the controller for anything not known safe or allowed
	ModeAlways     Mode = "always"      // grant escalation unasked
	ModePlan       Mode = "plan"        // read-only: known-safe commands only, no writes
	ModeFullAccess Mode = "full-access" // no sandbox; only deny rules apply
)

// ParseMode reads a --approval value; "" is ModeNever.
func ParseMode(s string) (Mode, error) {
	switch m := Mode(s); m {
	case "":
		return ModeNever, nil
	case ModeAuto, ModeNever, ModeAsk, ModeAlways, ModePlan, ModeFullAccess:
		return m, nil
	}
	return ModeNever, fmt.Errorf("unknown approval mode %q: use auto, never, ask, always, plan or full-access", s)
}

// Asks reports whether the mode asks a controller, so that a frontend
// without one (run, a worker) must refuse it.
func (m Mode) Asks() bool { return m == ModeAsk || m == ModeAuto }

// need is the per-command requirement before the mode is applied. It is
// finer than Decision: softAsk is "not known to be safe" (asked about only
// in ask mode, and in auto mode without a sandbox), ask is an escalation
// (a rule, sudo, an opaque command) that never mode refuses and auto mode
// asks about.
type need int

const (
	needAllow need = iota
	needSoftAsk
	needAsk
	needDeny
)

func stricter(a, b need) need { return max(a, b) }
