package protocol

import "testing"

// A retry reads as people count retries: the first retry of a request
// allowed five attempts (attempt 2 of 5) is "retry 1 of 4".
func TestWarningCountsRetriesFromOne(t *testing.T) {
	for _, tc := range []struct {
		e    StreamRetry
		want string
	}{
		{StreamRetry{Attempt: 2, MaxAttempts: 5, Reason: "HTTP 503"}, "model request failed (HTTP 503); retry 1 of 4"},
		{StreamRetry{Attempt: 5, MaxAttempts: 5, Reason: "HTTP 429"}, "model request failed (HTTP 429); retry 4 of 4"},
	} {
		if got, ok := Warning(tc.e); !ok || got != tc.want {
			t.Errorf("%+v: %q, want %q", tc.e, got, tc.want)
		}
	}
}
