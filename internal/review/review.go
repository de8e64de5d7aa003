// Package review is the code review: it shows a model a git diff (a
// branch against its base, or uncommitted changes), lets it read the
// code around the changes with the read-only tools, and returns its
// findings as a validated Report.
//
// Invariants:
//   - Read-only: the engine runs in plan approval mode (no file writes,
//     only known-safe commands, in the sandbox unless the caller turned
//     it off) and git is only asked to read (no optional locks, so not
//     even the index is refreshed on disk).
//   - A Report that Run returns is valid (see Report.Validate): an answer
//     that is not gets one retry, then Run fails with the reason.
//
// Run is the API `openseek review` calls; Gate, the review gate of
// `run --review-gate`, reviews after a turn and sends it back on a
// high-severity finding.
package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/openseek/openseek/internal/session"
	"path/filepath"
	"strings"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/protocol"
)

// Severities of a finding, most serious first.
const (
	High   = "high"
	Medium = "medium"
	Low    = "low"
)

// Verdicts of a report.
const (
	Approve        = "approve"         // ready to merge as it is
	Comment        = "comment"         // mergeable; the findings are suggestions
	RequestChanges = "request_changes" // must change before merging
)

// Finding is one problem the review found.
type Finding struct {
	File      string `json:"file"`
	LineStart int    `json:"line_start"`
	LineEnd   int    `json:"line_end"`
	Severity  string `json:"severity"`
	Title     string `json:"title"`
	Body      string `json:"body"`
}

// Report is the outcome of a review: the ReviewReport JSON object.
type Report struct {
	Findings []Finding `json:"findings"`
	Verdict  string    `json:"verdict"`
	// Summary is the reviewer's overall assessment in a few sentences.
	Summary string `json:"summary,omitempty"`
}

// Validate reports the first way r is not a well-formed report.
func (r *Report) Validate() error {
	switch r.Verdict {
	case Approve, Comment, RequestChanges:
	case "":
		return errors.New(`"verdict" is missing`)
	default:
		return fmt.Errorf(`"verdict" is %q; it must be "approve", "comment" or "request_changes"`, r.Verdict)
	}
	for i, f := range r.Findings {
		at := fmt.Sprintf("findings[%d]", i)
		switch {
		case strings.TrimSpace(f.File) == "":
			return fmt.Errorf(`%s: "file" is missing`, at)
		case !filepath.IsLocal(filepath.FromSlash(f.File)):
			return fmt.Errorf(`%s: "file" %q must be a path relative to the repository root`, at, f.File)
		case f.LineStart < 1:
			return fmt.Errorf(`%s: "line_start" must be a line number from 1, not %d`, at, f.LineStart)
		case f.LineEnd < f.LineStart:
			return fmt.Errorf(`%s: "line_end" %d is before "line_start" %d`, at, f.LineEnd, f.LineStart)
		case f.Severity != High && f.Severity != Medium && f.Severity != Low:
			return fmt.Errorf(`%s: "severity" is %q; it must be "high", "medium" or "low"`, at, f.Severity)
		case strings.TrimSpace(f.Title) == "":
			return fmt.Errorf(`%s: "title" is missing`, at)
		}
	}
	return nil
}

// Options configure a review.
type Options struct {
	// Engine reaches the model. Dir is any directory inside the git
	// repository; the review's workspace is the repository's top
	// directory, whose host opens the review's session. Run forces the
	// plan approval mode and, unless the caller set one, a session id
	// prefix "review".
	Engine engine.Options
	// Session names the review's session ("" = a new one); NoSession
	// records nothing on disk.
	Session   string
	NoSession bool
	// Progress, when set, shows the review's progress: it receives the
	// session's events in order, the last of them before Run returns.
	Progress func(protocol.Event)
	// Base is the revision to compare HEAD with (REF...HEAD, i.e. from
	// their merge base); "" means the default branch (origin/HEAD, else
	// main, else master).
	Base string
	// Uncommitted reviews the changes not committed yet (staged,
	// unstaged and untracked) instead of a revision range.
	Uncommitted bool
	// MaxDiffBytes bounds the diff shown in the prompt (DefaultMaxDiff
	// when 0); the model reads the rest with its tools.
	MaxDiffBytes int
}

// DefaultMaxDiff is how much of a diff goes into the prompt by default.
const DefaultMaxDiff = 200_000

// Run reviews the changes and returns the model's report. Outside a git
// repository, with an unknown base, or when the model's answer is still
// not a valid report after one retry, it fails with an error that says
// so.
func Run(ctx context.Context, o Options) (*Report, error) {
	if o.Base != "" && o.Uncommitted {
		return nil, errors.New("--base and --uncommitted contradict each other: review either a range or the uncommitted changes")
	}
	dir := o.Engine.Dir
	if dir == "" {
		dir = "."
	}
	ch, err := changes(ctx, dir, o.Base, o.Uncommitted)
	if err != nil {
		return nil, err
	}
	if strings.TrimSpace(ch.Diff) == "" {
		return &Report{Findings: []Finding{}, Verdict: Approve, Summary: "Nothing to review: " + ch.Range + " has no changes."}, nil
	}
	eo := o.Engine
	eo.Dir = ch.Root // the diff's paths are relative to it, and so are the tools'
	eo.Approval = "plan"
	if eo.IDPrefix == "" {
		eo.IDPrefix = session.ReviewPrefix
	}
	sess, closeSession, err := open(ctx, eo, engine.OpenOptions{ID: o.Session, NoSession: o.NoSession, Holder: eo.Holder}, o.Progress)
	if err != nil {
		return nil, err
	}
	defer closeSession()
	max := o.MaxDiffBytes
	if max <= 0 {
		max = DefaultMaxDiff
	}
	out, err := sess.Prompt(ctx, protocol.Text(prompt(ch, max)), nil)
	if err != nil {
		return nil, err
	}
	rep, perr := answer(out)
	if perr == nil {
		return rep, nil
	}
	if !out.OK() {
		return nil, perr
	}
	out, err = sess.Prompt(ctx, protocol.Text(retryPrompt(perr)), nil)
	if err != nil {
		return nil, err
	}
	rep, err = answer(out)
	if err != nil {
		return nil, fmt.Errorf("the model's review is still not a valid ReviewReport after a retry: %w", err)
	}
	return rep, nil
}

// open opens the review's session through a host of eo's workspace, as
// every face opens its sessions. progress, when set, receives the
// session's events in order, the last of them before closeSession
// returns.
func open(ctx context.Context, eo engine.Options, oo engine.OpenOptions, progress func(protocol.Event)) (s *engine.Session, closeSession func(), err error) {
	host, err := engine.NewHost(ctx, eo)
	if err != nil {
		return nil, nil, err
	}
	s, err = host.Open(ctx, oo)
	if err != nil {
		host.Close()
		return nil, nil, err
	}
	shown := make(chan struct{})
	if progress == nil {
		close(shown)
	} else {
		// The follower ends when the session closes and every event
		// was shown; a lag shows as stream_reset.
		f := s.Follow(0, func(e engine.Entry) error {
			progress(e.Event)
			return nil
		})
		go func() {
			defer close(shown)
			_ = f.Wait()
		}()
	}
	return s, func() {
		s.Close()
		<-shown
		host.Close()
	}, nil
}

// answer parses a turn's final answer as a report.
func answer(out agent.Outcome) (*Report, error) {
	if !out.OK() {
		return nil, fmt.Errorf("the review turn did not finish (%s): %s", out.Kind, out.Answer)
	}
	return Parse(out.Answer)
}

// Parse reads a report from a model's answer: the JSON object alone, or
// wrapped in a ```json fence, and validates it.
func Parse(text string) (*Report, error) {
	s := strings.TrimSpace(text)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:]
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
	}
	if s == "" {
		return nil, errors.New("the answer is empty")
	}
	if !strings.HasPrefix(s, "{") {
		return nil, fmt.Errorf("the answer must be one JSON object and nothing else (it begins %q)", clip(s, 80))
	}
	dec := json.NewDecoder(strings.NewReader(s))
	var r Report
	if err := dec.Decode(&r); err != nil {
		return nil, fmt.Errorf("the answer is not a JSON ReviewReport object: %v (it begins %q)", err, clip(s, 80))
	}
	if dec.More() {
		return nil, errors.New("the answer has text after the JSON object")
	}
	if err := r.Validate(); err != nil {
		return nil, err
	}
	if r.Findings == nil {
		r.Findings = []Finding{}
	}
	return &r, nil
}

func clip(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

const instructions = `Review the code changes below as a careful senior engineer would before
they are merged. You are in read-only mode: read the files around the
changes (read, grep and the like) wherever the diff alone does not show
whether a change is right. Look for bugs, security problems, data loss,
races, broken error handling, missing tests for new behaviour and
misleading names or comments. Report only real problems, each once, with
the lines of the new version of the file it concerns; no praise, no
style nits a formatter would fix.

` + reportShape

const reportShape = `When you are done, answer with ONLY one JSON object, no prose and no code
fence around it, of this shape:

{"findings":[{"file":"path/from/repo/root.go","line_start":10,"line_end":12,"severity":"high","title":"one line","body":"what is wrong, why it matters, how to fix it"}],"verdict":"request_changes","summary":"two or three sentences"}

severity is "high" (must fix: a bug, a security hole, data loss), "medium"
(should fix) or "low" (worth a thought). verdict is "approve" (no
findings that matter), "comment" (mergeable, the findings are
suggestions) or "request_changes" (a high or medium finding must be fixed
first). An empty findings list is fine when there is nothing to report.`

// prompt is the review task: instructions, the diffstat and the diff
// (cut at max bytes).
func prompt(ch Changes, max int) string {
	var b strings.Builder
	b.WriteString(instructions)
	b.WriteString("\n")
	showChanges(&b, ch, max)
	return b.String()
}

// showChanges writes the changes for a prompt: what they are, the
// diffstat and the diff (cut at max bytes).
func showChanges(b *strings.Builder, ch Changes, max int) {
	fmt.Fprintf(b, "\nThe changes: %s.\n\n<diffstat>\n%s</diffstat>\n\n<diff>\n", ch.Range, ch.Stat)
	d := ch.Diff
	if len(d) > max {
		cut := strings.LastIndexByte(d[:max], '\n') + 1
		fmt.Fprintf(b, "%s[the diff is cut here: %d of %d bytes shown; read the remaining changed files from the diffstat with your tools]\n", d[:cut], cut, len(d))
	} else {
		b.WriteString(d)
	}
	b.WriteString("</diff>\n")
}

func retryPrompt(err error) string {
	return "Your answer is not a valid ReviewReport: " + err.Error() +
		".\nAnswer again with ONLY the JSON object described above: no prose, no code fence."
}

// Task is the review's task for the changes of dir (base...HEAD, or the
// uncommitted ones): what Run asks the model, for a caller that runs the
// turn itself (a workflow's read-only agent) and reads the answer with
// Parse. It is "" when there is nothing to review.
func Task(ctx context.Context, dir, base string, uncommitted bool) (string, error) {
	if base != "" && uncommitted {
		return "", errors.New("base and uncommitted contradict each other: review either a range or the uncommitted changes")
	}
	ch, err := changes(ctx, dir, base, uncommitted)
	if err != nil || strings.TrimSpace(ch.Diff) == "" {
		return "", err
	}
	return prompt(ch, DefaultMaxDiff), nil
}

const goalInstructions = `Audit whether the work below meets the standing goal it was done for,
as a careful senior engineer would before calling it done. You are in
read-only mode: read the files (read, grep and the like) wherever the
diff alone does not show whether a part of the goal is done. Report each
part of the goal that is not done, only partly done or done wrongly, and
each bug the changes bring, as a finding on the lines it concerns (a
missing part: the file where it belongs, line 1). A part of the goal not
done, or done so that it does not work, is "high"; verdict "approve" only
when the whole goal is met.

` + reportShape

// GoalTask is the audit of a standing goal: the changes of dir since
// the goal's baseline commit (committed or not, untracked files
// included) with the goal, for a read-only agent to judge whether they
// meet it; its answer is a report as Task's is (Parse).
func GoalTask(ctx context.Context, dir, goal string, b session.Baseline) (string, error) {
	if strings.TrimSpace(goal) == "" {
		return "", errors.New("the goal is empty")
	}
	ch, err := since(ctx, dir, b.SHA)
	if err != nil {
		return "", err
	}
	var p strings.Builder
	p.WriteString(goalInstructions)
	fmt.Fprintf(&p, "\n\nThe goal, set when the repository was at commit %s", b.SHA)
	if b.Dirty {
		p.WriteString(" with changes not committed then (the diff below includes them: judge only what the goal asks)")
	}
	fmt.Fprintf(&p, ":\n\n<goal>\n%s\n</goal>\n", strings.TrimSpace(goal))
	if strings.TrimSpace(ch.Diff) == "" {
		p.WriteString("\nNothing has changed since that commit: no part of the goal is done in the files.\n")
		return p.String(), nil
	}
	showChanges(&p, ch, DefaultMaxDiff)
	return p.String(), nil
}
