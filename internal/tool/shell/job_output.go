package shell

import (
	"context"
	"errors"
	"strconv"

	"github.com/openseek/openseek/internal/jobs"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

type jobOutputArgs struct {
	JobID  string `json:"job_id" jsonschema:"e.g. bg-3"`
	Offset *int   `json:"offset,omitempty" jsonschema:"character offset to read from (default: the tail)"`
}

const jobOutputDescription = "Read a background job's output: a window of 12000 characters, the tail unless offset is given, " +
	"then `<system>job=bg-N running|exit=N|stopped …</system>`; truncated=true means there is more (page with offset)."

// JobOutput is the job_output tool.
func JobOutput() tool.Tool { return tool.Func("job_output", jobOutputDescription, runJobOutput) }

func runJobOutput(_ context.Context, env *tool.Env, a jobOutputArgs) tool.Result {
	brief := "job_output " + a.JobID
	rt := runtimeOf(env)
	if rt == nil {
		return briefed(tool.Errorf("error: no background jobs in this session"), brief)
	}
	if a.Offset != nil && *a.Offset < 0 {
		return briefed(tool.Errorf("error: job_output offset must be non-negative"), brief)
	}
	v, err := rt.Output(a.JobID, a.Offset, jobs.DefaultWindow)
	if errors.Is(err, jobs.ErrNotFound) {
		return briefed(tool.Errorf("error: no background job with id %s", a.JobID), brief)
	}
	if err != nil {
		return briefed(tool.Errorf("error: %v", err), brief)
	}
	f := footer{"job=" + a.JobID}
	status, failed := statusToken(v.Job.State)
	f.add(status)
	if v.Truncated {
		f.flag("truncated", true)
		f.int("total_chars", v.Total)
		f.int("shown_chars", v.Shown)
	}
	if a.Offset != nil {
		f.int("window_offset", v.Offset)
	}
	f.flag("output_dropped_at_cap", v.Job.OutputTruncated)
	f.flag("killed_at_output_cap", v.Job.State.Reason == jobs.ReasonKilledAtOutputCap)
	f.flag("binary_output", v.Job.InvalidUTF8)
	return briefed(tool.Result{
		Content: protocol.Text(withFooter(v.Text, f)),
		IsError: failed || v.Job.InvalidUTF8,
	}, brief)
}

// statusToken is running, exit=N or stopped, and whether it is a failure.
func statusToken(s protocol.JobState) (string, bool) {
	switch s.Kind {
	case protocol.JobStateExited:
		return "exit=" + strconv.Itoa(s.Code), s.Code != 0
	case protocol.JobStateStopped, protocol.JobStateInterrupted:
		return "stopped", true
	default: // running, stopping
		return "running", false
	}
}

func briefed(r tool.Result, brief string) tool.Result {
	r.Brief = brief
	return r
}
