package protocol

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strconv"
)

// JobSchemaVersion is the only job record schema this package reads/writes.
const JobSchemaVersion = 1

// Job state kinds (JobState.Kind).
const (
	JobStateRunning     = "running"
	JobStateStopping    = "stopping"
	JobStateExited      = "exited"      // Code is the exit status
	JobStateStopped     = "stopped"     // Reason is non-empty
	JobStateInterrupted = "interrupted" // owner disappeared; descendants may live
)

// Job event kinds (JobChanged.Kind).
const (
	JobEventStarted  = "started"
	JobEventUpdated  = "updated"
	JobEventFinished = "finished"
	JobEventFailed   = "failed"
)

// Job stop outcomes (JobStopResult.Outcome).
const (
	JobStopStopped         = "stopped"
	JobStopAlreadyTerminal = "already_terminal"
	JobStopNotFound        = "not_found"
	JobStopWrongRuntime    = "wrong_runtime"
)

// maxJobComponent is the longest valid job generation/id/output file name.
const maxJobComponent = 200

// ValidJobComponent reports whether s may name a job generation, job id or
// output file: 1-200 characters from [A-Za-z0-9_.-], and not "." or "..",
// so it is always a single safe path element.
func ValidJobComponent(s string) bool {
	if s == "" || s == "." || s == ".." || len(s) > maxJobComponent {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c >= 'A' && c <= 'Z', c >= '0' && c <= '9', c == '_', c == '.', c == '-':
		default:
			return false
		}
	}
	return true
}

// ValidateJobEventKind returns an error ("invalid JobEventKind") unless s
// is one of the JobEvent* constants.
func ValidateJobEventKind(s string) error {
	switch s {
	case JobEventStarted, JobEventUpdated, JobEventFinished, JobEventFailed:
		return nil
	}
	return errors.New("invalid JobEventKind")
}

// ValidateJobStopOutcome returns an error ("invalid JobStopOutcome") unless
// s is one of the JobStop* constants.
func ValidateJobStopOutcome(s string) error {
	switch s {
	case JobStopStopped, JobStopAlreadyTerminal, JobStopNotFound, JobStopWrongRuntime:
		return nil
	}
	return errors.New("invalid JobStopOutcome")
}

// JobState is a background job's lifecycle state, discriminated by Kind.
// Code is meaningful only for exited, Reason only for stopped.
type JobState struct {
	Kind   string
	Code   int
	Reason string
}

// Terminal reports whether the job has ended (anything but running or
// stopping).
func (s JobState) Terminal() bool {
	return s.Kind != JobStateRunning && s.Kind != JobStateStopping
}

// AppendJSON appends the state object: {"kind":…} plus "code" for exited
// and "reason" for stopped.
func (s JobState) AppendJSON(b []byte) []byte {
	b = appendStrField(append(b, '{'), "kind", s.Kind)
	switch s.Kind {
	case JobStateExited:
		b = appendIntField(b, "code", s.Code)
	case JobStateStopped:
		b = appendStrField(b, "reason", s.Reason)
	}
	return append(b, '}')
}

// MarshalJSON implements json.Marshaler (same bytes as AppendJSON).
func (s JobState) MarshalJSON() ([]byte, error) { return s.AppendJSON(nil), nil }

// UnmarshalJSON implements json.Unmarshaler; see DecodeJobState.
func (s *JobState) UnmarshalJSON(b []byte) error {
	v, err := DecodeJobState(b)
	if err != nil {
		return err
	}
	*s = v
	return nil
}

// DecodeJobState decodes a state object. Unknown kinds, an exited code that
// is not an integral int32, or a missing/empty stopped reason give
// "invalid background job state".
func DecodeJobState(b []byte) (JobState, error) {
	bad := errors.New("invalid background job state")
	o, ok := decodeObject(b)
	if !ok {
		return JobState{}, bad
	}
	kind, _ := o.str("kind")
	switch kind {
	case JobStateRunning, JobStateStopping, JobStateInterrupted:
		return JobState{Kind: kind}, nil
	case JobStateExited:
		code, ok := o.int32At("code")
		if !ok {
			return JobState{}, bad
		}
		return JobState{Kind: kind, Code: code}, nil
	case JobStateStopped:
		reason, ok := o.str("reason")
		if !ok || reason == "" {
			return JobState{}, bad
		}
		return JobState{Kind: kind, Reason: reason}, nil
	}
	return JobState{}, bad
}

// JobRecord is one background job as reported to clients (schema version
// 1). Pointer fields are optional: nil is written as null. Data is optional
// structured output, any JSON, omitted from the wire when nil.
type JobRecord struct {
	CleanupError     *string
	Generation       string // valid job component
	ID               string // valid job component
	Revision         int    // 1 … 2^31-1, bumped on every change
	Command          string
	Description      *string
	Cwd              *string
	State            JobState
	StartedAtMs      int64 // unix milliseconds
	BackgroundedAtMs int64
	FinishedAtMs     *int64
	LastOutputAtMs   *int64
	OutputFile       *string // basename under jobs/<generation>; valid job component
	OutputPersistent bool
	OutputBytes      int64
	OutputChars      int // ≤ 2^31-1
	OutputTruncated  bool
	InvalidUTF8      bool
	OutputError      *string
	PersistenceError *string
	Data             json.RawMessage
}

func appendOptIntField(b []byte, key string, v *int64) []byte {
	b = appendKey(b, key)
	if v == nil {
		return append(b, "null"...)
	}
	return strconv.AppendInt(b, *v, 10)
}

// AppendJSON appends the record in the wire key order. Invalid Data (not
// JSON) is left out rather than corrupting the line.
func (r JobRecord) AppendJSON(b []byte) []byte {
	b = append(b, '{')
	b = appendIntField(b, "schema_version", JobSchemaVersion)
	b = appendOptStrField(b, "cleanup_error", r.CleanupError)
	b = appendStrField(b, "generation", r.Generation)
	b = appendStrField(b, "id", r.ID)
	b = appendIntField(b, "revision", r.Revision)
	b = appendStrField(b, "command", r.Command)
	b = appendOptStrField(b, "description", r.Description)
	b = appendOptStrField(b, "cwd", r.Cwd)
	b = r.State.AppendJSON(appendKey(b, "state"))
	b = strconv.AppendInt(appendKey(b, "started_at_ms"), r.StartedAtMs, 10)
	b = strconv.AppendInt(appendKey(b, "backgrounded_at_ms"), r.BackgroundedAtMs, 10)
	b = appendOptIntField(b, "finished_at_ms", r.FinishedAtMs)
	b = appendOptIntField(b, "last_output_at_ms", r.LastOutputAtMs)
	b = appendOptStrField(b, "output_file", r.OutputFile)
	b = appendBoolField(b, "output_persistent", r.OutputPersistent)
	b = strconv.AppendInt(appendKey(b, "output_bytes"), r.OutputBytes, 10)
	b = appendIntField(b, "output_chars", r.OutputChars)
	b = appendBoolField(b, "output_truncated", r.OutputTruncated)
	b = appendBoolField(b, "invalid_utf8", r.InvalidUTF8)
	b = appendOptStrField(b, "output_error", r.OutputError)
	b = appendOptStrField(b, "persistence_error", r.PersistenceError)
	if r.Data != nil {
		var buf bytes.Buffer
		if json.Compact(&buf, r.Data) == nil {
			b = append(appendKey(b, "data"), buf.Bytes()...)
		}
	}
	return append(b, '}')
}

// MarshalJSON implements json.Marshaler (same bytes as AppendJSON).
func (r JobRecord) MarshalJSON() ([]byte, error) { return r.AppendJSON(nil), nil }

// UnmarshalJSON implements json.Unmarshaler; see DecodeJobRecord.
func (r *JobRecord) UnmarshalJSON(b []byte) error {
	v, err := DecodeJobRecord(b)
	if err != nil {
		return err
	}
	*r = v
	return nil
}

// jobReader decodes record fields in order and keeps the first error.
type jobReader struct {
	o   object
	err error
}

func (j *jobReader) fail(msg string) {
	if j.err == nil {
		j.err = errors.New(msg)
	}
}

func (j *jobReader) raw(key string, required bool) (json.RawMessage, bool) {
	raw, ok := j.o[key]
	if !ok || isNull(raw) {
		if required && !ok {
			j.fail("missing job field: " + key)
		} else if required {
			j.fail("invalid job field: " + key)
		}
		return nil, false
	}
	return raw, true
}

func (j *jobReader) str(key string) string {
	raw, ok := j.raw(key, true)
	if !ok {
		return ""
	}
	s, ok := rawString(raw)
	if !ok {
		j.fail("invalid job field: " + key)
	}
	return s
}

func (j *jobReader) optStr(key string) *string {
	raw, ok := j.raw(key, false)
	if !ok {
		return nil
	}
	s, ok := rawString(raw)
	if !ok {
		j.fail("invalid job field: " + key)
		return nil
	}
	return &s
}

func (j *jobReader) bool(key string) bool {
	raw, ok := j.raw(key, true)
	if !ok {
		return false
	}
	switch string(raw) {
	case "true":
		return true
	case "false":
		return false
	}
	j.fail("invalid job field: " + key)
	return false
}

func (j *jobReader) uint(key string) int64 {
	if _, ok := j.o[key]; !ok {
		j.fail("missing job field: " + key)
		return 0
	}
	n, ok := rawSafeUint(j.o[key])
	if !ok {
		j.fail("invalid nonnegative job integer: " + key)
	}
	return n
}

func (j *jobReader) optUint(key string) *int64 {
	raw, ok := j.raw(key, false)
	if !ok {
		return nil
	}
	n, ok := rawSafeUint(raw)
	if !ok {
		j.fail("invalid nonnegative job integer: " + key)
		return nil
	}
	return &n
}

// DecodeJobRecord decodes and validates a job record. Errors, in order:
// "expected background job schema version 1", "missing job field: <name>",
// "invalid job field: <name>" (present with the wrong JSON type),
// "invalid nonnegative job integer: <name>", "invalid background job state",
// "invalid background job identity or count". Unknown keys are ignored.
func DecodeJobRecord(b []byte) (JobRecord, error) {
	o, ok := decodeObject(b)
	if !ok {
		return JobRecord{}, errors.New("expected background job schema version 1")
	}
	if v, ok := rawNumber(o["schema_version"]); !ok || v != JobSchemaVersion {
		return JobRecord{}, errors.New("expected background job schema version 1")
	}
	j := jobReader{o: o}
	var r JobRecord
	r.CleanupError = j.optStr("cleanup_error")
	r.Generation = j.str("generation")
	r.ID = j.str("id")
	revision := j.uint("revision")
	r.Command = j.str("command")
	r.Description = j.optStr("description")
	r.Cwd = j.optStr("cwd")
	if raw, ok := j.raw("state", true); ok && j.err == nil {
		st, err := DecodeJobState(raw)
		if err != nil {
			j.fail(err.Error())
		}
		r.State = st
	}
	r.StartedAtMs = j.uint("started_at_ms")
	r.BackgroundedAtMs = j.uint("backgrounded_at_ms")
	r.FinishedAtMs = j.optUint("finished_at_ms")
	r.LastOutputAtMs = j.optUint("last_output_at_ms")
	r.OutputFile = j.optStr("output_file")
	r.OutputPersistent = j.bool("output_persistent")
	r.OutputBytes = j.uint("output_bytes")
	chars := j.uint("output_chars")
	r.OutputTruncated = j.bool("output_truncated")
	r.InvalidUTF8 = j.bool("invalid_utf8")
	r.OutputError = j.optStr("output_error")
	r.PersistenceError = j.optStr("persistence_error")
	if raw, ok := o["data"]; ok && !isNull(raw) {
		var buf bytes.Buffer
		if err := json.Compact(&buf, raw); err != nil {
			j.fail("invalid job field: data")
		}
		r.Data = buf.Bytes()
	}
	if j.err != nil {
		return JobRecord{}, j.err
	}
	if !ValidJobComponent(r.Generation) || !ValidJobComponent(r.ID) ||
		(r.OutputFile != nil && !ValidJobComponent(*r.OutputFile)) ||
		revision < 1 || revision > math.MaxInt32 || chars > math.MaxInt32 {
		return JobRecord{}, errors.New("invalid background job identity or count")
	}
	r.Revision = int(revision)
	r.OutputChars = int(chars)
	return r, nil
}
