package fleet

import (
	"crypto/rand"
	"encoding/base32"
	"errors"
	"fmt"
	"strings"
	"time"
)

// State is where a task is in its life.
type State string

// The states of a task. Completed, failed and cancelled are terminal.
const (
	Queued    State = "queued"
	Running   State = "running"
	Completed State = "completed"
	Failed    State = "failed"
	Cancelled State = "cancelled"
)

// Terminal reports whether no worker will change the task again.
func (s State) Terminal() bool { return s == Completed || s == Failed || s == Cancelled }

// Spec is what a user asks for when adding a task.
type Spec struct {
	Prompt string `json:"prompt"`
	// Dir is a git repository on the worker's machine; each run gets its
	// own worktree of it. Repo is a URL to clone instead.
	Dir    string `json:"dir,omitempty"`
	Repo   string `json:"repo,omitempty"`
	Model  string `json:"model,omitempty"`
	Runs   int    `json:"runs,omitempty"`   // best-of-N; 0 or 1 = one run
	Verify string `json:"verify,omitempty"` // shell command run in the workspace after the turn
	// Judge has a judging model pick the best of the runs (see Choose).
	Judge   bool    `json:"judge,omitempty"`
	MaxCost float64 `json:"max_cost,omitempty"`
	// Deadline, when set, stops the task (failed) once it passes.
	Deadline time.Time `json:"deadline,omitzero"`
	// Workflow, when set, runs that workflow (internal/workflow) with
	// Args as the task's session instead of a model turn on Prompt.
	// Source is its code as found where the task was added, so that what
	// the user trusted there is what runs; without it the worker looks
	// the name up itself (bundled, its user's, the workspace's trusted).
	Workflow string   `json:"workflow,omitempty"`
	Args     []string `json:"args,omitempty"`
	Source   string   `json:"workflow_source,omitempty"`
}

// Validate reports what is wrong with a spec, in words a user can act on.
func (s Spec) Validate() error {
	switch {
	case strings.TrimSpace(s.Prompt) == "" && s.Workflow == "":
		return errors.New(`a task is required: openseek tasks add "what to do" (or --workflow NAME)`)
	case s.Workflow == "" && (len(s.Args) > 0 || s.Source != ""):
		return errors.New("workflow arguments or source without a workflow name")
	case s.Workflow != "" && s.Runs > 1:
		return errors.New("--runs contradicts --workflow: a workflow that wants several tries says so itself (best_of)")
	case s.Dir != "" && s.Repo != "":
		return errors.New("--dir contradicts --repo; give the task one source")
	case s.Dir == "" && s.Repo == "":
		return errors.New("a task needs a source: --dir PATH (a git repository) or --repo URL")
	case s.Runs < 0 || s.Runs > MaxRuns:
		return fmt.Errorf("--runs must be between 1 and %d, not %d", MaxRuns, s.Runs)
	case s.Judge && s.Runs < 2:
		return errors.New("--judge picks the best of several runs: give --runs 2 or more")
	case s.MaxCost < 0:
		return fmt.Errorf("--max-cost must be positive, not %g", s.MaxCost)
	}
	return nil
}

// Task is the durable record of one task, kept in the key-value bucket.
// A best-of-N task is a parent record (Children) and one child record
// per run (Parent, Run); only children are queued.
type Task struct {
	ID string `json:"id"`
	Spec
	State    State  `json:"state"`
	Attempts int    `json:"attempts"`
	Worker   string `json:"worker,omitempty"` // the worker of the current attempt
	// Session is the durable session id, the same across attempts, kept
	// in the workspace's .openseek directory.
	Session   string `json:"session,omitempty"`
	Workspace string `json:"workspace,omitempty"`
	Base      string `json:"base,omitempty"` // the commit the workspace started from

	Result  string  `json:"result,omitempty"`
	Error   string  `json:"error,omitempty"`
	CostUSD float64 `json:"cost_usd"`
	// CostUnknown: some response's price was unknown; CostUSD is then
	// only what the priced ones cost, and every face says "unknown".
	CostUnknown  bool   `json:"cost_unknown,omitempty"`
	Diff         string `json:"diff,omitempty"`
	ChangedLines int    `json:"changed_lines"`
	VerifyOK     *bool  `json:"verify_ok,omitempty"`
	// Commands is how many shell commands the attempt that ended ran;
	// FailedCommands how many of them failed (a non-zero exit, or the
	// sandbox refused them).
	Commands       int `json:"commands"`
	FailedCommands int `json:"failed_commands"`

	Parent   string   `json:"parent,omitempty"`
	Run      int      `json:"run,omitempty"`
	Children []string `json:"children,omitempty"`
	Chosen   string   `json:"chosen,omitempty"`  // the child a best-of-N parent picked
	Verdict  string   `json:"verdict,omitempty"` // why it was picked
	Warning  string   `json:"warning,omitempty"` // the judge failed; the rule picked

	CreatedAt  time.Time `json:"created_at"`
	StartedAt  time.Time `json:"started_at,omitzero"`
	FinishedAt time.Time `json:"finished_at,omitzero"`
}

// title is the task's line in lists: its prompt, or for a workflow task
// with none, "workflow NAME ARGS".
func (s Spec) title() string {
	if strings.TrimSpace(s.Prompt) != "" || s.Workflow == "" {
		return s.Prompt
	}
	return strings.Join(append([]string{"workflow", s.Workflow}, s.Args...), " ")
}

// newID makes a short random task id (lower-case letters and digits,
// valid as a key and a subject token).
func newID() string {
	var b [5]byte
	_, _ = rand.Read(b[:])
	return "t" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
}

// validID reports whether id can be a task id (a key and a subject token).
func validID(id string) bool {
	if id == "" || len(id) > 64 {
		return false
	}
	for _, r := range id {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}
