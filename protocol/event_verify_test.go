package protocol

import (
	"reflect"
	"testing"
)

func TestVerifyStartedRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		line string
		ev   VerifyStarted
	}{
		{`{"event":"verify_started","command":"go build -o /dev/null ./... && go vet ./...","attempt":1}`,
			VerifyStarted{Command: "go build -o /dev/null ./... && go vet ./...", Attempt: 1}},
		{`{"event":"verify_started","command":"make \u00e9","attempt":3}`, VerifyStarted{Command: "make é", Attempt: 3}},
	} {
		got, ok := ParseEvent([]byte(tc.line))
		if !ok || !reflect.DeepEqual(got, tc.ev) {
			t.Errorf("ParseEvent(%s) = %#v, %v; want %#v", tc.line, got, ok, tc.ev)
		}
		if again, ok := ParseEvent(Emit(tc.ev)); !ok || !reflect.DeepEqual(again, tc.ev) {
			t.Errorf("ParseEvent(Emit(%#v)) = %#v, %v", tc.ev, again, ok)
		}
	}
	if got := string(Emit(VerifyStarted{Command: "cargo check", Attempt: 2})); got != `{"event":"verify_started","command":"cargo check","attempt":2}` {
		t.Errorf("Emit = %s", got)
	}
	for _, bad := range []string{
		`{"event":"verify_started","command":"x"}`,
		`{"event":"verify_started","attempt":1}`,
		`{"event":"verify_started","command":1,"attempt":1}`,
		`{"event":"verify_started","command":"x","attempt":"1"}`,
	} {
		if e, ok := ParseEvent([]byte(bad)); ok {
			t.Errorf("ParseEvent(%s) = %#v, want not an event", bad, e)
		}
	}
}

func TestVerifyResultRoundTrip(t *testing.T) {
	for _, tc := range []struct {
		line string
		ev   VerifyResult
	}{
		{`{"event":"verify_result","command":"go build ./... && go vet ./...","exit_code":0,"ok":true,"timed_out":false,"attempt":1,"output":""}`,
			VerifyResult{Command: "go build ./... && go vet ./...", OK: true, Attempt: 1}},
		{`{"event":"verify_result","command":"cargo check","exit_code":101,"ok":false,"timed_out":false,"attempt":2,"output":"error[E0308]: mismatched types\n"}`,
			VerifyResult{Command: "cargo check", ExitCode: 101, Attempt: 2, Output: "error[E0308]: mismatched types\n"}},
		{`{"event":"verify_result","command":"sleep 600","exit_code":-1,"ok":false,"timed_out":true,"attempt":1,"output":"\u00e9"}`,
			VerifyResult{Command: "sleep 600", ExitCode: -1, TimedOut: true, Attempt: 1, Output: "é"}},
	} {
		got, ok := ParseEvent([]byte(tc.line))
		if !ok || !reflect.DeepEqual(got, tc.ev) {
			t.Errorf("ParseEvent(%s) = %#v, %v; want %#v", tc.line, got, ok, tc.ev)
		}
		if again, ok := ParseEvent(Emit(tc.ev)); !ok || !reflect.DeepEqual(again, tc.ev) {
			t.Errorf("ParseEvent(Emit(%#v)) = %#v, %v", tc.ev, again, ok)
		}
	}
	for _, bad := range []string{
		`{"event":"verify_result","command":"x","exit_code":1,"ok":false,"timed_out":false,"attempt":1}`,
		`{"event":"verify_result","command":"x","exit_code":"1","ok":false,"timed_out":false,"attempt":1,"output":""}`,
		`{"event":"verify_result","command":"x","exit_code":1,"ok":"no","timed_out":false,"attempt":1,"output":""}`,
	} {
		if e, ok := ParseEvent([]byte(bad)); ok {
			t.Errorf("ParseEvent(%s) = %#v, want not an event", bad, e)
		}
	}
}

func TestVerifyResultOutcome(t *testing.T) {
	for _, tc := range []struct {
		ev   VerifyResult
		want string
	}{
		{VerifyResult{OK: true}, "passed"},
		{VerifyResult{ExitCode: 2}, "failed (exit 2)"},
		{VerifyResult{ExitCode: -1, TimedOut: true}, "timed out"},
		{VerifyResult{ExitCode: -1}, "could not run"},
	} {
		if got := tc.ev.Outcome(); got != tc.want {
			t.Errorf("%+v.Outcome() = %q, want %q", tc.ev, got, tc.want)
		}
	}
}

func TestUnverifiedClaimRoundTrip(t *testing.T) {
	ev := UnverifiedClaim{Session: "s1", Claim: "tests", Quote: "All tests pass",
		Message: "The answer says the tests pass, but no test ran after the last edit (step 7)."}
	line := `{"event":"unverified_claim","session":"s1","claim":"tests","quote":"All tests pass","message":"The answer says the tests pass, but no test ran after the last edit (step 7)."}`
	if got := string(Emit(ev)); got != line {
		t.Errorf("Emit = %s", got)
	}
	if got, ok := ParseEvent([]byte(line)); !ok || !reflect.DeepEqual(got, ev) {
		t.Errorf("ParseEvent = %#v, %v", got, ok)
	}
	if e, ok := ParseEvent([]byte(`{"event":"unverified_claim","session":"s1","claim":"tests","quote":"x"}`)); ok {
		t.Errorf("an unverified_claim without its message parsed: %#v", e)
	}
	if w, ok := Warning(ev); !ok || w != ev.Message {
		t.Errorf("Warning = %q %v", w, ok)
	}
}
