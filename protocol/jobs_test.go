package protocol

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// sampleJobLine is a finished job with every optional field set.
const sampleJobLine = `{"schema_version":1,"cleanup_error":"rm failed","generation":"g1","id":"bg-2","revision":7,"command":"make","description":"build","cwd":"/w","state":{"kind":"exited","code":-2},"started_at_ms":1,"backgrounded_at_ms":2,"finished_at_ms":3,"last_output_at_ms":4,"output_file":"bg-2.log","output_persistent":false,"output_bytes":9007199254740991,"output_chars":2147483647,"output_truncated":true,"invalid_utf8":true,"output_error":"disk full","persistence_error":"ro","data":{"tests":[1,2],"ok":null}}`

func sampleJob() JobRecord {
	return JobRecord{CleanupError: ptr("rm failed"), Generation: "g1", ID: "bg-2", Revision: 7, Command: "make",
		Description: ptr("build"), Cwd: ptr("/w"), State: JobState{Kind: JobStateExited, Code: -2},
		StartedAtMs: 1, BackgroundedAtMs: 2, FinishedAtMs: ptr[int64](3), LastOutputAtMs: ptr[int64](4),
		OutputFile: ptr("bg-2.log"), OutputBytes: 1<<53 - 1, OutputChars: 1<<31 - 1, OutputTruncated: true,
		InvalidUTF8: true, OutputError: ptr("disk full"), PersistenceError: ptr("ro"),
		Data: json.RawMessage(`{"tests":[1,2],"ok":null}`)}
}

func TestJobRecordRoundTrip(t *testing.T) {
	if got := string(sampleJob().AppendJSON(nil)); got != sampleJobLine {
		t.Errorf("AppendJSON:\n got %s\nwant %s", got, sampleJobLine)
	}
	r, err := DecodeJobRecord([]byte(sampleJobLine))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(r, sampleJob()) {
		t.Errorf("DecodeJobRecord:\n got %#v\nwant %#v", r, sampleJob())
	}
	// encoding/json goes through the same methods.
	var viaJSON JobRecord
	if err := json.Unmarshal([]byte(sampleJobLine), &viaJSON); err != nil || !reflect.DeepEqual(viaJSON, sampleJob()) {
		t.Errorf("json.Unmarshal = %#v, %v", viaJSON, err)
	}
	// data is compacted on decode, and a null data is absent.
	spaced := strings.Replace(sampleJobLine, `{"tests":[1,2],"ok":null}`, `{ "tests" : [1, 2], "ok": null }`, 1)
	if r, err := DecodeJobRecord([]byte(spaced)); err != nil || string(r.Data) != `{"tests":[1,2],"ok":null}` {
		t.Errorf("spaced data decoded as %s, %v", r.Data, err)
	}
	nullData := strings.Replace(sampleJobLine, `{"tests":[1,2],"ok":null}`, `null`, 1)
	if r, err := DecodeJobRecord([]byte(nullData)); err != nil || r.Data != nil {
		t.Errorf("null data decoded as %q, %v", r.Data, err)
	}
	bad := sampleJob()
	bad.Data = json.RawMessage(`{not json`)
	if got := string(bad.AppendJSON(nil)); strings.Contains(got, `"data"`) {
		t.Errorf("invalid data was written: %s", got)
	}
}

func TestDecodeJobRecordErrors(t *testing.T) {
	replace := func(old, new string) string {
		if !strings.Contains(sampleJobLine, old) {
			t.Fatalf("sample lacks %s", old)
		}
		return strings.Replace(sampleJobLine, old, new, 1)
	}
	for _, tc := range []struct{ line, want string }{
		{`[]`, "expected background job schema version 1"},
		{`{}`, "expected background job schema version 1"},
		{replace(`"schema_version":1`, `"schema_version":2`), "expected background job schema version 1"},
		{replace(`"schema_version":1`, `"schema_version":"1"`), "expected background job schema version 1"},
		{replace(`"generation":"g1",`, ``), "missing job field: generation"},
		{replace(`"command":"make",`, ``), "missing job field: command"},
		{replace(`"state":{"kind":"exited","code":-2},`, ``), "missing job field: state"},
		{replace(`"started_at_ms":1,`, ``), "missing job field: started_at_ms"},
		{replace(`"output_persistent":false,`, ``), "missing job field: output_persistent"},
		{replace(`"invalid_utf8":true,`, ``), "missing job field: invalid_utf8"},
		{replace(`"id":"bg-2"`, `"id":7`), "invalid job field: id"},
		{replace(`"cwd":"/w"`, `"cwd":5`), "invalid job field: cwd"},
		{replace(`"output_truncated":true`, `"output_truncated":1`), "invalid job field: output_truncated"},
		{replace(`"revision":7`, `"revision":7.5`), "invalid nonnegative job integer: revision"},
		{replace(`"started_at_ms":1`, `"started_at_ms":-1`), "invalid nonnegative job integer: started_at_ms"},
		{replace(`"output_bytes":9007199254740991`, `"output_bytes":9007199254740992`), "invalid nonnegative job integer: output_bytes"},
		{replace(`"finished_at_ms":3`, `"finished_at_ms":"3"`), "invalid nonnegative job integer: finished_at_ms"},
		{replace(`"revision":7`, `"revision":null`), "invalid nonnegative job integer: revision"},
		{replace(`{"kind":"exited","code":-2}`, `{"kind":"exited","code":1.5}`), "invalid background job state"},
		{replace(`{"kind":"exited","code":-2}`, `{"kind":"exited","code":2147483648}`), "invalid background job state"},
		{replace(`{"kind":"exited","code":-2}`, `{"kind":"exited"}`), "invalid background job state"},
		{replace(`{"kind":"exited","code":-2}`, `{"kind":"stopped","reason":""}`), "invalid background job state"},
		{replace(`{"kind":"exited","code":-2}`, `{"kind":"stopped"}`), "invalid background job state"},
		{replace(`{"kind":"exited","code":-2}`, `{"kind":"paused"}`), "invalid background job state"},
		{replace(`{"kind":"exited","code":-2}`, `"running"`), "invalid background job state"},
		{replace(`"generation":"g1"`, `"generation":".."`), "invalid background job identity or count"},
		{replace(`"id":"bg-2"`, `"id":"a/b"`), "invalid background job identity or count"},
		{replace(`"output_file":"bg-2.log"`, `"output_file":""`), "invalid background job identity or count"},
		{replace(`"revision":7`, `"revision":0`), "invalid background job identity or count"},
		{replace(`"revision":7`, `"revision":2147483648`), "invalid background job identity or count"},
		{replace(`"output_chars":2147483647`, `"output_chars":2147483648`), "invalid background job identity or count"},
	} {
		_, err := DecodeJobRecord([]byte(tc.line))
		if err == nil || err.Error() != tc.want {
			t.Errorf("DecodeJobRecord(%s)\n err %v\nwant %s", tc.line, err, tc.want)
		}
	}
}

func TestJobStates(t *testing.T) {
	for _, tc := range []struct {
		line     string
		state    JobState
		terminal bool
	}{
		{`{"kind":"running"}`, JobState{Kind: JobStateRunning}, false},
		{`{"kind":"stopping"}`, JobState{Kind: JobStateStopping}, false},
		{`{"kind":"exited","code":0}`, JobState{Kind: JobStateExited}, true},
		{`{"kind":"exited","code":-2147483648}`, JobState{Kind: JobStateExited, Code: -2147483648}, true},
		{`{"kind":"stopped","reason":"user"}`, JobState{Kind: JobStateStopped, Reason: "user"}, true},
		{`{"kind":"interrupted"}`, JobState{Kind: JobStateInterrupted}, true},
	} {
		if got := string(tc.state.AppendJSON(nil)); got != tc.line {
			t.Errorf("AppendJSON = %s, want %s", got, tc.line)
		}
		got, err := DecodeJobState([]byte(tc.line))
		if err != nil || got != tc.state {
			t.Errorf("DecodeJobState(%s) = %#v, %v", tc.line, got, err)
		}
		if got.Terminal() != tc.terminal {
			t.Errorf("%s: Terminal() = %v", tc.line, got.Terminal())
		}
	}
}

func TestValidJobComponent(t *testing.T) {
	for _, tc := range []struct {
		s  string
		ok bool
	}{
		{"bg-1", true}, {"g_2026.01-A", true}, {"...", true}, {".x", true}, {strings.Repeat("a", 200), true},
		{"", false}, {".", false}, {"..", false}, {strings.Repeat("a", 201), false},
		{"a/b", false}, {"a b", false}, {"é", false}, {"a\x00", false}, {`a\b`, false},
	} {
		if got := ValidJobComponent(tc.s); got != tc.ok {
			t.Errorf("ValidJobComponent(%q) = %v", tc.s, got)
		}
	}
}

func TestJobEnums(t *testing.T) {
	for _, k := range []string{JobEventStarted, JobEventUpdated, JobEventFinished, JobEventFailed} {
		if err := ValidateJobEventKind(k); err != nil {
			t.Errorf("%s: %v", k, err)
		}
	}
	if err := ValidateJobEventKind("stopped"); err == nil || err.Error() != "invalid JobEventKind" {
		t.Errorf("bad kind: %v", err)
	}
	for _, o := range []string{JobStopStopped, JobStopAlreadyTerminal, JobStopNotFound, JobStopWrongRuntime} {
		if err := ValidateJobStopOutcome(o); err != nil {
			t.Errorf("%s: %v", o, err)
		}
	}
	if err := ValidateJobStopOutcome("started"); err == nil || err.Error() != "invalid JobStopOutcome" {
		t.Errorf("bad outcome: %v", err)
	}
}

func TestJobEventsWithFullRecord(t *testing.T) {
	for _, tc := range []struct {
		line string
		ev   Event
	}{
		{`{"event":"job_changed","kind":"finished","job":` + sampleJobLine + `}`, JobChanged{Kind: JobEventFinished, Job: sampleJob()}},
		{`{"event":"jobs_snapshot","request_id":"r","jobs":[` + sampleJobLine + `,` + sampleJobLine + `]}`,
			JobsSnapshot{RequestID: "r", Jobs: []JobRecord{sampleJob(), sampleJob()}}},
	} {
		if got := string(Emit(tc.ev)); got != tc.line {
			t.Errorf("Emit:\n got %s\nwant %s", got, tc.line)
		}
		if got, ok := ParseEvent([]byte(tc.line)); !ok || !reflect.DeepEqual(got, tc.ev) {
			t.Errorf("ParseEvent = %#v, %v", got, ok)
		}
	}
}
