package llm

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

func TestStatusError(t *testing.T) {
	overloaded := StatusWording{
		KeyHint:    "--api-key or X_KEY",
		Vendor:     func(s int) (string, bool) { return "overloaded", s == 529 },
		StatusText: func(s int) string { return "status " + http.StatusText(s) },
	}
	tests := []struct {
		name      string
		status    int
		header    http.Header
		msg       string
		w         StatusWording
		want      string
		retryable bool
		after     time.Duration
	}{
		{"401 with message", 401, nil, "bad key", StatusWording{KeyHint: "--api-key"}, "the API key was refused; check the key for this model (--api-key): bad key", false, 0},
		{"403 bare", 403, nil, "", overloaded, "the API key was refused; check the key for this model (--api-key or X_KEY)", false, 0},
		{"429 retry-after", 429, http.Header{"Retry-After": {"3"}}, "", StatusWording{}, "rate limited", true, 3 * time.Second},
		{"vendor status", 529, nil, "busy", overloaded, "overloaded: busy", true, 0},
		{"vendor status unknown elsewhere", 529, nil, "", StatusWording{}, "", true, 0},
		{"500 falls back to the status text", 500, nil, "", overloaded, "status Internal Server Error", true, 0},
		{"409 retryable", 409, nil, "conflict", StatusWording{}, "conflict", true, 0},
		{"400 not", 400, nil, "", StatusWording{}, "Bad Request", false, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			h := tt.header
			if h == nil {
				h = http.Header{}
			}
			e := StatusError(tt.status, h, tt.msg, tt.w)
			if e.Status != tt.status || e.Message != tt.want || e.Retryable != tt.retryable || e.RetryAfter != tt.after || e.Err == nil {
				t.Errorf("got %+v, want message %q retryable %v after %v", e, tt.want, tt.retryable, tt.after)
			}
		})
	}
}

func TestErrorMessage(t *testing.T) {
	long := strings.Repeat("word ", 100)
	tests := []struct{ body, want string }{
		{"", ""},
		{"  \n", ""},
		{`{"error":{"message":"nested"}}`, "nested"},
		{`{"error":"flat"}`, "flat"},
		{`{"message":"top"}`, "top"},
		{`{"detail":"fastapi"}`, "fastapi"},
		{`{"other":1}`, `{"other":1}`},
		{"<html><title> 502  Bad Gateway </title></html>", "502 Bad Gateway"},
		{"<p>plain <b>text</b></p>", "plain text"},
		{long, long[:200] + "…"},
	}
	for _, tt := range tests {
		if got := ErrorMessage([]byte(tt.body)); got != tt.want {
			t.Errorf("ErrorMessage(%.40q) = %q, want %q", tt.body, got, tt.want)
		}
	}
}

func TestRetryAfter(t *testing.T) {
	now := time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)
	tests := []struct {
		h    http.Header
		want time.Duration
	}{
		{http.Header{}, 0},
		{http.Header{"Retry-After-Ms": {"1500"}}, 1500 * time.Millisecond},
		{http.Header{"Retry-After-Ms": {"junk"}, "Retry-After": {"2"}}, 2 * time.Second},
		{http.Header{"Retry-After": {"-1"}}, 0},
		{http.Header{"Retry-After": {now.Add(time.Minute).Format(http.TimeFormat)}}, time.Minute},
		{http.Header{"Retry-After": {now.Add(-time.Minute).Format(http.TimeFormat)}}, 0},
		{http.Header{"Retry-After": {"soon"}}, 0},
	}
	for _, tt := range tests {
		if got := RetryAfter(tt.h, now); got != tt.want {
			t.Errorf("RetryAfter(%v) = %v, want %v", tt.h, got, tt.want)
		}
	}
}

func TestRedactAndBrokenStream(t *testing.T) {
	if got := Redact("key sk-1234 leaked", "sk-1234"); got != "key [redacted] leaked" {
		t.Errorf("Redact = %q", got)
	}
	if got := Redact("abc", "ab"); got != "abc" {
		t.Errorf("short keys are left alone, got %q", got)
	}
	e := BrokenStream(errors.New("read sk-1234: reset"), "chunk", "sk-1234")
	if !e.Retryable || strings.Contains(e.Message, "sk-1234") || !strings.Contains(e.Message, "stream broke") {
		t.Errorf("broken: %+v", e)
	}
	var v any
	syn := json.Unmarshal([]byte("{oops"), &v)
	if e := BrokenStream(fmt.Errorf("decode: %w", syn), "event", ""); e.Retryable || !strings.Contains(e.Message, "malformed event") {
		t.Errorf("malformed: %+v", e)
	}
}

func TestIdleWatch(t *testing.T) {
	t.Run("silence fails the call retryably", func(t *testing.T) {
		ctx, w := WatchIdle(context.Background(), 20*time.Millisecond)
		defer w.Stop()
		<-ctx.Done()
		err := w.TransportError(ctx.Err(), "")
		if !IsRetryable(err) || !errors.Is(err, ErrIdle) || !strings.Contains(err.Error(), "no data") {
			t.Errorf("got %v", err)
		}
	})
	t.Run("reads re-arm the timer", func(t *testing.T) {
		ctx, w := WatchIdle(context.Background(), 100*time.Millisecond)
		defer w.Stop()
		pr, pw := io.Pipe()
		body := w.Body(pr)
		go func() {
			for range 6 {
				time.Sleep(30 * time.Millisecond)
				_, _ = pw.Write([]byte("x"))
			}
			_ = pw.Close()
		}()
		if _, err := io.ReadAll(body); err != nil || ctx.Err() != nil || w.Interrupted() != nil {
			t.Errorf("read %v, ctx %v, interrupted %v", err, ctx.Err(), w.Interrupted())
		}
	})
	t.Run("the caller's cancellation is not retryable", func(t *testing.T) {
		parent, cancel := context.WithCancel(context.Background())
		_, w := WatchIdle(parent, time.Hour)
		defer w.Stop()
		cancel()
		err := w.Interrupted()
		if !errors.Is(err, context.Canceled) || IsRetryable(err) {
			t.Errorf("got %v", err)
		}
		if err := w.TransportError(errors.New("dial"), ""); !errors.Is(err, context.Canceled) {
			t.Errorf("TransportError = %v", err)
		}
	})
	t.Run("a plain transport failure", func(t *testing.T) {
		_, w := WatchIdle(context.Background(), time.Hour)
		defer w.Stop()
		err := w.TransportError(errors.New("dial sk-999999 refused"), "sk-999999")
		if !IsRetryable(err) || strings.Contains(err.Error(), "sk-999999") || !strings.Contains(err.Error(), "cannot reach") {
			t.Errorf("got %v", err)
		}
	})
}
