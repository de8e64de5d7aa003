package llm_test

import (
	"context"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm"
)

// scripted is a Provider that plays one outcome per call.
type scripted struct {
	outcomes []outcome
	calls    int
}

type outcome struct {
	deltas []string // text deltas sent before err
	err    error
}

func (s *scripted) Stream(ctx context.Context, _ llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	o := s.outcomes[s.calls]
	s.calls++
	for _, d := range o.deltas {
		on(llm.Delta{Kind: llm.TextDelta, Text: d})
	}
	if o.err != nil {
		return nil, o.err
	}
	return &llm.Response{Content: "ok"}, nil
}

var (
	overloaded = &llm.Error{Status: 503, Message: "overloaded", Retryable: true}
	badRequest = &llm.Error{Status: 400, Message: "bad request"}
)

func TestWithRetry(t *testing.T) {
	fast := llm.RetryPolicy{Attempts: 4, Base: time.Millisecond, Max: 2 * time.Millisecond}
	tests := []struct {
		name      string
		outcomes  []outcome
		wantErr   error
		wantCalls int
		wantRetry []int
	}{
		{"success first", []outcome{{}}, nil, 1, nil},
		{"retry then success", []outcome{{err: overloaded}, {err: overloaded}, {}}, nil, 3, []int{2, 3}},
		{"non-retryable", []outcome{{err: badRequest}, {}}, badRequest, 1, nil},
		{"plain error is not retryable", []outcome{{err: errors.New("boom")}, {}}, nil, 1, nil},
		{"exhausted", []outcome{{err: overloaded}, {err: overloaded}, {err: overloaded}, {err: overloaded}}, overloaded, 4, []int{2, 3, 4}},
		{"after a delta", []outcome{{deltas: []string{"par"}, err: overloaded}, {}}, overloaded, 1, nil},
		{"cancel is not retried", []outcome{{err: &llm.Error{Retryable: true, Err: context.Canceled}}, {}}, nil, 1, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := &scripted{outcomes: tt.outcomes}
			var retries []int
			resp, err := llm.WithRetry(p, fast).Stream(context.Background(), llm.Request{}, func(d llm.Delta) {
				if d.Kind == llm.Retry {
					retries = append(retries, d.Attempt)
					if d.MaxAttempts != 4 || d.Reason == "" {
						t.Errorf("retry delta %+v", d)
					}
				}
			})
			if tt.wantErr != nil && !errors.Is(err, tt.wantErr) {
				t.Errorf("err %v, want %v", err, tt.wantErr)
			}
			if (err == nil) != (resp != nil) {
				t.Errorf("resp %v with err %v", resp, err)
			}
			if p.calls != tt.wantCalls || !reflect.DeepEqual(retries, tt.wantRetry) {
				t.Errorf("%d calls, retries %v; want %d, %v", p.calls, retries, tt.wantCalls, tt.wantRetry)
			}
		})
	}
}

func TestWithRetryHonoursRetryAfter(t *testing.T) {
	p := &scripted{outcomes: []outcome{{err: &llm.Error{Status: 429, Retryable: true, RetryAfter: 80 * time.Millisecond}}, {}}}
	start := time.Now()
	_, err := llm.WithRetry(p, llm.RetryPolicy{Attempts: 2, Base: time.Millisecond, Max: time.Millisecond}).Stream(context.Background(), llm.Request{}, func(llm.Delta) {})
	if err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 80*time.Millisecond {
		t.Errorf("retried after %v, before the server's Retry-After", d)
	}
}

func TestWithRetryCancelStopsWaiting(t *testing.T) {
	p := &scripted{outcomes: []outcome{{err: overloaded}, {}}}
	ctx, cancel := context.WithCancel(context.Background())
	start := time.Now()
	_, err := llm.WithRetry(p, llm.RetryPolicy{Attempts: 2, Base: time.Hour, Max: time.Hour}).Stream(ctx, llm.Request{}, func(d llm.Delta) {
		if d.Kind == llm.Retry {
			cancel()
		}
	})
	if !errors.Is(err, context.Canceled) || p.calls != 1 {
		t.Fatalf("err %v after %d calls", err, p.calls)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("waited %v after cancel", d)
	}
}

func TestDefaultRetry(t *testing.T) {
	want := llm.RetryPolicy{Attempts: 5, Base: 500 * time.Millisecond, Max: 8 * time.Second}
	if got := llm.DefaultRetry(); got != want {
		t.Errorf("DefaultRetry() = %+v, want %+v", got, want)
	}
}

func TestErrorMessages(t *testing.T) {
	tests := []struct {
		err  error
		want string
		retr bool
	}{
		{&llm.Error{Status: 401, Message: "the API key was refused"}, "model API error (HTTP 401): the API key was refused", false},
		{&llm.Error{Status: 502}, "model API error (HTTP 502)", false},
		{&llm.Error{Message: "stream broke", Retryable: true}, "model API error: stream broke", true},
		{&llm.Error{Err: errors.New("eof"), Retryable: true}, "model API error: eof", true},
		{errors.Join(errors.New("ctx"), &llm.Error{Retryable: true}), "ctx\nmodel API error", true},
		{nil, "", false},
	}
	for _, tt := range tests {
		if tt.err != nil && tt.err.Error() != tt.want {
			t.Errorf("Error() = %q, want %q", tt.err.Error(), tt.want)
		}
		if llm.IsRetryable(tt.err) != tt.retr {
			t.Errorf("IsRetryable(%v) = %v", tt.err, !tt.retr)
		}
	}
	inner := errors.New("cause")
	if !errors.Is(&llm.Error{Err: inner}, inner) {
		t.Error("Unwrap does not reach the cause")
	}
}
