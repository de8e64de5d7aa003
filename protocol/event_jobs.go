package protocol

import "encoding/json"

// Background job events (reference §5.4); session-scoped, they may arrive
// between turns.

// JobChanged reports a job record after a change; Kind is a JobEvent*
// constant.
type JobChanged struct {
	Kind string
	Job  JobRecord
}

// JobsSnapshot answers a jobs_snapshot command with the same RequestID.
type JobsSnapshot struct {
	RequestID string
	Jobs      []JobRecord
}

// JobStopResult answers a job_stop command; Outcome is a JobStop* constant.
type JobStopResult struct{ RequestID, Generation, JobID, Outcome string }

func (JobChanged) EventName() string    { return "job_changed" }
func (JobsSnapshot) EventName() string  { return "jobs_snapshot" }
func (JobStopResult) EventName() string { return "job_stop_result" }

func (e JobChanged) appendFields(b []byte) []byte {
	b = appendStrField(b, "kind", e.Kind)
	return e.Job.AppendJSON(appendKey(b, "job"))
}

func (e JobsSnapshot) appendFields(b []byte) []byte {
	b = appendStrField(b, "request_id", e.RequestID)
	b = append(appendKey(b, "jobs"), '[')
	for i, j := range e.Jobs {
		if i > 0 {
			b = append(b, ',')
		}
		b = j.AppendJSON(b)
	}
	return append(b, ']')
}

func (e JobStopResult) appendFields(b []byte) []byte {
	b = appendStrField(b, "request_id", e.RequestID)
	b = appendStrField(b, "generation", e.Generation)
	b = appendStrField(b, "job_id", e.JobID)
	return appendStrField(b, "outcome", e.Outcome)
}

func parseJobEvent(name string, f *fields) Event {
	switch name {
	case "job_changed":
		kind := f.str("kind")
		job, err := DecodeJobRecord(f.o["job"])
		f.ok = f.ok && err == nil && ValidateJobEventKind(kind) == nil
		return JobChanged{Kind: kind, Job: job}
	case "jobs_snapshot":
		e := JobsSnapshot{RequestID: f.str("request_id")}
		var raws []json.RawMessage
		if firstByte(f.o["jobs"]) != '[' || json.Unmarshal(f.o["jobs"], &raws) != nil {
			f.ok = false
			return e
		}
		e.Jobs = make([]JobRecord, 0, len(raws))
		for _, raw := range raws {
			j, err := DecodeJobRecord(raw)
			if err != nil {
				f.ok = false
				return e
			}
			e.Jobs = append(e.Jobs, j)
		}
		return e
	case "job_stop_result":
		e := JobStopResult{RequestID: f.str("request_id"), Generation: f.str("generation"),
			JobID: f.str("job_id"), Outcome: f.str("outcome")}
		f.ok = f.ok && ValidateJobStopOutcome(e.Outcome) == nil
		return e
	}
	return nil
}
