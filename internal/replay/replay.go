// Package replay re-runs a recorded session: its starting tree (the
// snapshot taken before its first turn) is copied into a fresh directory,
// and the session's recorded model responses stand in for the model
// (Provider), so that every tool call runs again through the real engine
// (policy, sandbox, hooks) and each result can be compared with the one
// recorded. Volatile parts of a result (durations, times, temporary
// paths, job ids, the directory itself) are normalised first
// (Normalise); what still differs is reported.
package replay

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/snapshot"
	"github.com/openseek/openseek/protocol"
)

// Options say what to replay and where.
type Options struct {
	Session *session.Session
	// Workspace is where the session was recorded: its snapshots are kept
	// under Home by that path (snapshot.Dir).
	Workspace string
	Home      string
	// Dir is where the starting tree is put and the calls run: a
	// directory that is empty or does not exist yet, kept afterwards; ""
	// is a temporary directory, removed afterwards.
	Dir string
	// Engine are the options of the host the replay opens its session
	// from (sandbox, approval, tools, …). Run sets Dir and the model (the
	// recording), and records nothing.
	Engine engine.Options
}

// Call is one recorded tool call and what it gave, recorded and replayed
// (both normalised).
type Call struct {
	ID, Tool, Arguments string
	Recorded, Replayed  string
	// Ran is false when the replay never made the call.
	Ran bool
}

// Report is the outcome of a replay.
type Report struct {
	Calls  int    // recorded tool calls with a result, compared
	Differ []Call // those whose results differ, in log order
	// Unused is how many recorded model responses the replay never asked
	// for (the replayed turns ended earlier than the recorded ones).
	Unused int
}

// ErrNoStartingTree is returned for a session recorded without snapshots.
var ErrNoStartingTree = errors.New("it has no recorded starting tree; it was recorded with snapshots off")

// Run replays o.Session in o.Dir and compares every tool result.
func Run(ctx context.Context, o Options) (Report, error) {
	s := o.Session
	turns := s.Turns()
	if len(turns) == 0 {
		return Report{}, fmt.Errorf("session %s has no turns to replay", s.ID)
	}
	// The files before the first turn: its snapshot, or the next one when
	// the turns before that changed no files; when none did, the files
	// as they are now.
	start, unchanged := session.SnapshotBefore(turns, 1)
	if start == "" && !unchanged {
		return Report{}, fmt.Errorf("session %s cannot be replayed: %w (OPENSEEK_SNAPSHOTS=off or plan mode)", s.ID, ErrNoStartingTree)
	}
	if n := subAgentCalls(s); n > 0 {
		// A sub-agent's run would ask this session's model for its own
		// responses, which the session does not hold (they are in the
		// sub-agent's session): every answer after it would be off by one.
		return Report{}, fmt.Errorf("session %s cannot be replayed: it delegated to sub-agents (%d agent calls), whose runs are recorded in sessions of their own that replay does not follow", s.ID, n)
	}
	dir, err := freshDir(o.Dir)
	if err != nil {
		return Report{}, err
	}
	if o.Dir == "" {
		defer os.RemoveAll(dir)
	}
	repo, err := snapshot.Open(snapshot.Options{Workspace: o.Workspace, Dir: snapshot.Dir(o.Home, o.Workspace)})
	if err != nil {
		return Report{}, err
	}
	if start == "" {
		if start, err = repo.Take(ctx); err != nil {
			return Report{}, fmt.Errorf("snapshot the files of session %s's workspace: %w", s.ID, err)
		}
	}
	if err := repo.Extract(ctx, start, dir); err != nil {
		return Report{}, fmt.Errorf("restore the starting tree of session %s: %w", s.ID, err)
	}

	model := NewProvider(s)
	name := modelName(s)
	opts := o.Engine
	opts.Dir, opts.Cwd = dir, ""
	opts.Model, opts.APIURL, opts.APIKey = name, "", ""
	host, err := engine.NewHost(ctx, opts)
	if err != nil {
		return Report{}, err
	}
	defer host.Close()
	sess, err := host.Open(ctx, engine.OpenOptions{NoSession: true, Model: name, Client: model})
	if err != nil {
		return Report{}, err
	}
	defer sess.Close()
	// Every tool result the replay produced, as the session's clients
	// see them; one the follower missed would count as not run, so
	// missing any is an error.
	replayed := map[string]protocol.ToolResult{}
	f := sess.Follow(0, func(e engine.Entry) error {
		switch ev := e.Event.(type) {
		case protocol.ToolResult:
			replayed[ev.ToolCallID] = ev
		case protocol.StreamReset:
			return fmt.Errorf("the replay's events outran its reader: %s", ev.Reason)
		}
		return nil
	})
	defer f.Stop()
	for _, t := range turns {
		if _, err := sess.Prompt(ctx, prompt(s, t.Sequence), nil); err != nil {
			return Report{}, fmt.Errorf("replay turn %d: %w", t.Number, err)
		}
	}
	if err := f.CatchUp(ctx); err != nil {
		return Report{}, err
	}

	real, _ := filepath.EvalSymlinks(dir)
	norm := func(text string) string { return Normalise(text, real, o.Workspace) }
	calls := map[string]Call{}
	rep := Report{Unused: model.Unused()}
	for _, e := range s.Events {
		switch it := e.Item.(type) {
		case *session.Assistant:
			for _, c := range it.ToolCalls {
				calls[c.ID] = Call{ID: c.ID, Tool: c.Name, Arguments: c.Arguments}
			}
		case *session.ToolResult:
			c, ok := calls[it.ToolCallID]
			if !ok {
				c = Call{ID: it.ToolCallID, Tool: it.ToolName}
			}
			rep.Calls++
			c.Recorded = norm(outcome(it.IsError, it.Content.Text()))
			r, ran := replayed[it.ToolCallID]
			c.Ran = ran
			if ran {
				c.Replayed = norm(outcome(r.IsError, r.Content))
			}
			if !ran || c.Replayed != c.Recorded {
				rep.Differ = append(rep.Differ, c)
			}
		}
	}
	return rep, nil
}

// subAgentCalls counts the session's calls of the agent tool.
func subAgentCalls(s *session.Session) int {
	n := 0
	for _, e := range s.Events {
		if a, ok := e.Item.(*session.Assistant); ok {
			for _, c := range a.ToolCalls {
				if c.Name == "agent" {
					n++
				}
			}
		}
	}
	return n
}

// prompt is the content of the user item at sequence seq.
func prompt(s *session.Session, seq int) protocol.Content {
	for _, e := range s.Events {
		if e.Sequence == seq {
			if u, ok := e.Item.(*session.User); ok {
				return u.Content
			}
		}
	}
	return nil
}

// modelName is the model the session recorded, for the engine's
// announcements; the replay never asks it.
func modelName(s *session.Session) string {
	for _, e := range s.Events {
		if a, ok := e.Item.(*session.Assistant); ok && a.Model != "" {
			return a.Model
		}
	}
	return "replay"
}

func outcome(isError bool, text string) string {
	if isError {
		return "error: " + text
	}
	return text
}

// freshDir creates dir (or a temporary directory for "") and refuses one
// that holds anything: the replay must start from the recorded tree alone.
func freshDir(dir string) (string, error) {
	if dir == "" {
		return os.MkdirTemp("", "openseek-replay-")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(abs, 0o755); err != nil {
		return "", fmt.Errorf("replay directory: %w", err)
	}
	entries, err := os.ReadDir(abs)
	if err != nil {
		return "", fmt.Errorf("replay directory: %w", err)
	}
	if len(entries) > 0 {
		return "", fmt.Errorf("replay directory %s is not empty: the replay starts from the session's starting tree alone; name a new or empty directory", abs)
	}
	return abs, nil
}

// volatile is compiled on first use: only a replay needs it, and
// compiling it at package init cost every start of the binary 36 KB.
var volatile = sync.OnceValue(func() []volatileText {
	return []volatileText{
		{regexp.MustCompile(`\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:?\d\d)?`), "<time>"},
		{regexp.MustCompile(`\b\d\d:\d\d:\d\d(\.\d+)?\b`), "<time>"},
		{regexp.MustCompile(`\b(\d+h)?(\d+m)?\d+(\.\d+)?(ns|µs|us|ms|s)\b`), "<duration>"},
		{regexp.MustCompile(`/tmp/[^\s"'/:]+`), "/tmp/<tmp>"},
		{regexp.MustCompile(`\bbg-\d+\b`), "bg-<n>"},
		{regexp.MustCompile(`\bg-\d{10,}\b`), "g-<n>"},
	}
})

type volatileText struct {
	re   *regexp.Regexp
	with string
}

// Normalise removes what legitimately differs between a recorded result
// and its replay: the replay directory is written as the recorded
// workspace, and times, durations, temporary paths and job ids are
// replaced by placeholders.
func Normalise(text, dir, workspace string) string {
	if dir != "" && workspace != "" {
		text = strings.ReplaceAll(text, dir, workspace)
	}
	for _, v := range volatile() {
		text = v.re.ReplaceAllString(text, v.with)
	}
	return text
}
