package session

import (
	"testing"
	"time"
)

func TestValidateID(t *testing.T) {
	tests := []struct{ id, err string }{
		{"cli-20250924-101010-123", ""},
		{"", "session id must not be empty"},
		{"a/b", "session id must not contain path separators: a/b"},
		{`a\b`, `session id must not contain path separators: a\b`},
		{"a\x00b", "session id must not contain a NUL character"},
		{".", "session id must not be `.` or `..`"},
		{"..", "session id must not be `.` or `..`"},
	}
	for _, tt := range tests {
		err := ValidateID(tt.id)
		if got := ""; err != nil {
			got = err.Error()
			if got != tt.err {
				t.Errorf("ValidateID(%q) = %q, want %q", tt.id, got, tt.err)
			}
		} else if tt.err != "" {
			t.Errorf("ValidateID(%q) = nil, want %q", tt.id, tt.err)
		}
	}
}

func TestNewID(t *testing.T) {
	tests := []struct {
		prefix string
		at     time.Time
		want   string
	}{
		{"cli", time.Date(2025, 9, 24, 10, 11, 12, 345678900, time.FixedZone("X", 3600)), "cli-20250924-091112-345"},
		{"tui", time.UnixMilli(7), "tui-19700101-000000-007"},
		{"cli", time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC), "cli-253402300800000"},
	}
	for _, tt := range tests {
		if got := NewID(tt.prefix, tt.at); got != tt.want {
			t.Errorf("NewID = %q, want %q", got, tt.want)
		}
	}
	if a, b := NewID("cli", time.UnixMilli(1000)), NewID("cli", time.UnixMilli(2000)); a >= b {
		t.Errorf("ids do not sort chronologically: %s >= %s", a, b)
	}
}

func TestIsReview(t *testing.T) {
	now := time.Date(2026, 12, 1, 15, 4, 5, 6e6, time.UTC)
	for id, want := range map[string]bool{
		NewID(ReviewPrefix, now):                    true,
		NewID(ReviewPrefix, now) + "-x":             true,
		NewID(ReviewPrefix, time.UnixMilli(-1<<62)): true,
		NewID("cli", now):                           false,
		"review":                                    false,
		"review-notes":                              false,
		"review-20261301-150405-006":                false,
		"reviewer-20261201-150405-006":              false,
	} {
		if got := IsReview(id); got != want {
			t.Errorf("IsReview(%q) = %v, want %v", id, got, want)
		}
	}
}
