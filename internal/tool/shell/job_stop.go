package shell

import (
	"context"

	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

type jobStopArgs struct {
	JobID string `json:"job_id" jsonschema:"e.g. bg-3"`
}

const jobStopDescription = "Stop a background job (its whole process group). Stopping a job that already ended does nothing."

// JobStop is the job_stop tool.
func JobStop() tool.Tool { return tool.Func("job_stop", jobStopDescription, runJobStop) }

func runJobStop(_ context.Context, env *tool.Env, a jobStopArgs) tool.Result {
	brief := "job_stop " + a.JobID
	if env.Jobs == nil {
		return briefed(tool.Errorf("error: no background jobs in this session"), brief)
	}
	switch env.Jobs.Stop(env.Jobs.Generation(), a.JobID) {
	case protocol.JobStopStopped:
		return briefed(tool.TextResult("stopped job "+a.JobID), brief)
	case protocol.JobStopAlreadyTerminal:
		status := "ended"
		if rec, ok := env.Jobs.Job(a.JobID); ok {
			status, _ = statusToken(rec.State)
		}
		return briefed(tool.TextResult("job "+a.JobID+" had already ended ("+status+")"), brief)
	default: // not_found; wrong_runtime cannot happen with our own generation
		return briefed(tool.Errorf("error: no background job with id %s", a.JobID), brief)
	}
}
