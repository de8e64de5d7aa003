package verify

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/sandbox"
)

// Defaults of Settings.
const (
	DefaultMaxRepairs  = 2
	DefaultTimeout     = 5 * time.Minute
	DefaultOutputBytes = 4096
)

// RepairPrefix starts the user message that hands a failed check back to
// the model.
const RepairPrefix = "[verify]"

// Settings configure a Verifier; zero values take the defaults.
type Settings struct {
	Command     string        // the check; "" = Detect at each turn
	MaxRepairs  int           // failed checks handed back per turn; <0 = none
	Timeout     time.Duration // per run
	OutputBytes int           // tail of the output kept
}

func (s Settings) withDefaults() Settings {
	if s.MaxRepairs == 0 {
		s.MaxRepairs = DefaultMaxRepairs
	}
	if s.MaxRepairs < 0 {
		s.MaxRepairs = 0
	}
	if s.Timeout <= 0 {
		s.Timeout = DefaultTimeout
	}
	if s.OutputBytes <= 0 {
		s.OutputBytes = DefaultOutputBytes
	}
	return s
}

// Verdict is what a check decided about an answer. At most one of
// Repair and Reject is set; neither means the answer stands.
type Verdict struct {
	// Note records the run in the session (a runtime notice); "" when
	// nothing ran.
	Note string
	// Repair is the user message that gives the failure to the model; the
	// turn goes on.
	Repair string
	// Reject ends the turn as failed: the check still fails and no repair
	// is left.
	Reject string
}

// Verifier runs the check of one workspace.
type Verifier struct {
	dir      string
	settings Settings
	sandbox  *sandbox.Policy
	secrets  *sandbox.Secrets
	report   Report
}

// Report is told of every run of the check, with its attempt number
// within the turn (from 1): Started as it begins, Finished with its
// result. Either may be nil.
type Report struct {
	Started  func(command string, attempt int)
	Finished func(r Result, attempt int)
}

// New returns a verifier for the workspace dir. Commands run inside sb
// when it is not nil, without the keys secrets holds (may be nil) in
// their environment or output.
func New(dir string, s Settings, sb *sandbox.Policy, secrets *sandbox.Secrets, report Report) *Verifier {
	if report.Started == nil {
		report.Started = func(string, int) {}
	}
	if report.Finished == nil {
		report.Finished = func(Result, int) {}
	}
	return &Verifier{dir: dir, settings: s.withDefaults(), sandbox: sb, secrets: secrets, report: report}
}

// Turn is the verification state of one turn.
type Turn struct {
	v        *Verifier
	start    Snapshot
	attempts int
}

// Begin notes the workspace's state as a turn starts.
func (v *Verifier) Begin() *Turn {
	return &Turn{v: v, start: Scan(v.dir)}
}

// Check runs when the model answers: when the turn changed files and the
// project has a check, it runs it and decides whether the answer stands.
func (t *Turn) Check(ctx context.Context) Verdict {
	s := t.v.settings
	if !t.start.Changed(Scan(t.v.dir)) {
		return Verdict{}
	}
	check := NewCheck(s.Command)
	if check.Command == "" {
		check = Detect(t.v.dir)
	}
	if check.Command == "" {
		return Verdict{}
	}
	command := check.Command
	t.attempts++
	t.v.report.Started(command, t.attempts)
	r := Run(ctx, t.v.dir, check, s.Timeout, t.v.sandbox, t.v.secrets, s.OutputBytes)
	t.v.report.Finished(r, t.attempts)
	v := Verdict{Note: note(r)}
	if r.OK || ctx.Err() != nil {
		return v
	}
	repairs := t.attempts - 1
	if repairs >= s.MaxRepairs {
		v.Reject = fmt.Sprintf("verification failed: `%s` %s after %d repair attempt(s); the answer was not accepted.\n%s",
			command, status(r), repairs, strings.TrimRight(r.Output, "\n"))
		return v
	}
	v.Repair = fmt.Sprintf("%s The project's check `%s` %s after your changes (repair %d of %d). Its output (the last %d characters at most):\n%s\nFix the problem, then answer again.",
		RepairPrefix, command, status(r), repairs+1, s.MaxRepairs, s.OutputBytes, strings.TrimRight(r.Output, "\n"))
	return v
}

func status(r Result) string {
	switch {
	case r.TimedOut:
		return "timed out"
	case r.ExitCode < 0:
		return "could not run"
	}
	return fmt.Sprintf("failed (exit %d)", r.ExitCode)
}

// note is the one-line session record of a run.
func note(r Result) string {
	word := "passed"
	if !r.OK {
		word = status(r)
	}
	return fmt.Sprintf("%s `%s` %s in %s", RepairPrefix, r.Command, word, r.Duration.Round(10*time.Millisecond))
}
