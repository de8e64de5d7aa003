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

// valid refuses an unknown change kind.
func (e JobChanged) valid() bool { return ValidateJobEventKind(e.Kind) == nil }

// valid refuses an unknown stop outcome.
func (e JobStopResult) valid() bool { return ValidateJobStopOutcome(e.Outcome) == nil }

func appendJobRecords(b []byte, key string, jobs []JobRecord) []byte {
	b = append(appendKey(b, key), '[')
	for i, j := range jobs {
		if i > 0 {
			b = append(b, ',')
		}
		b = j.AppendJSON(b)
	}
	return append(b, ']')
}

// jobRecord decodes a required job record.
func (f *fields) jobRecord(key string) JobRecord {
	j, err := DecodeJobRecord(f.o[key])
	f.ok = f.ok && err == nil
	return j
}

// jobRecords decodes a required array of job records.
func (f *fields) jobRecords(key string) []JobRecord {
	var raws []json.RawMessage
	if firstByte(f.o[key]) != '[' || json.Unmarshal(f.o[key], &raws) != nil {
		f.ok = false
		return nil
	}
	jobs := make([]JobRecord, 0, len(raws))
	for _, raw := range raws {
		j, err := DecodeJobRecord(raw)
		if err != nil {
			f.ok = false
			return nil
		}
		jobs = append(jobs, j)
	}
	return jobs
}
