package engine

import (
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/openseek/openseek/internal/subrun"
	"github.com/openseek/openseek/protocol"
)

// The preset kinds of a JSON run request (run --input-format json) and
// of a sub-run child (openseek subrun). General is a request's kind when
// it names none.
const (
	PresetEcho    = subrun.Echo
	PresetExplore = subrun.Explore
	PresetWorker  = subrun.Worker
	PresetGeneral = subrun.General
)

// PresetKinds are the kinds `openseek subrun` accepts, in help order.
func PresetKinds() []string { return slices.Clone(subrun.Kinds) }

// CheckPresetKind refuses a kind that is not a preset ("" is general).
func CheckPresetKind(kind string) error {
	if _, err := subrun.Validate(kind, []byte("null")); err != nil && strings.HasPrefix(err.Error(), "unknown kind") {
		return err
	}
	return nil
}

// Preset is one preset run: its kind and its input, checked.
type Preset struct {
	Kind  string // "" = general
	Input json.RawMessage
	in    subrun.Input
}

// ParsePreset checks input for kind; its errors are the reference's texts.
func ParsePreset(kind string, input json.RawMessage) (Preset, error) {
	in, err := subrun.Validate(kind, input)
	if err != nil {
		return Preset{}, err
	}
	return Preset{Kind: kind, Input: input, in: in}, nil
}

// Approval is the permission mode the preset runs in: explore is
// read-only (plan), everything else refuses escalation (never).
func (p Preset) Approval() string { return subrun.Approval(p.Kind) }

// Prompt is the task text the model gets for a model-driven preset.
func (p Preset) Prompt() string { return subrun.Prompt(p.Kind, p.in) }

// Echo is the modelless echo preset's run: the events it reports and its
// output, its input compacted.
func (p Preset) Echo() ([]protocol.Event, json.RawMessage) {
	return []protocol.Event{protocol.AgentStep{Step: 1}, protocol.UsageEvent{Usage: subrun.EchoUsage}}, subrun.Compact(p.Input)
}

// Worktree is a worker preset's own git worktree of a repository.
type Worktree = subrun.Worktree

// NewWorktree makes the worker preset's worktree of repo under the
// input's worker_root, on a branch named for session id.
func (p Preset) NewWorktree(ctx context.Context, repo, id string) (*Worktree, error) {
	return subrun.NewWorktree(ctx, repo, p.in.WorkerRoot, id)
}

// RunRequest is one JSON request of `run --input-format json`.
type RunRequest = subrun.Request

// ParseRunRequest decodes a request and checks its envelope (JSON, its
// version, no output schema); its input is checked by ParsePreset.
func ParseRunRequest(data []byte) (RunRequest, error) { return subrun.ParseRequest(data) }

// RequestResult is the JSON result of a run request (--result-file).
type RequestResult = subrun.Result

// A RequestResult's statuses.
const (
	RequestCompleted   = subrun.Completed
	RequestFailed      = subrun.Failed
	RequestInterrupted = subrun.Interrupted
)

// Lease is a delegated run's hold on its workspace: one at a time.
type Lease = subrun.Lease

// AcquireLease takes the workspace's lease, or says who holds it.
func AcquireLease(workspace string) (*Lease, error) { return subrun.AcquireLease(workspace) }

// SubrunReport is the last line of a sub-run child's output:
// {"subrun_report":<report>}.
func SubrunReport(report json.RawMessage) []byte { return subrun.Report(report) }

// JSONInputError words the error of decoding data as JSON the way the
// reference's parser does ("Invalid character 'o' at line 1, column 1").
func JSONInputError(data []byte, err error) string { return subrun.JSONError(data, err) }
