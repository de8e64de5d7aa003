package mcp

import (
	"strings"
	"testing"
)

func TestToolName(t *testing.T) {
	tests := []struct {
		server, tool, want string
	}{
		{"fs", "read", "mcp__fs__read"},
		{"my-server", "get_sum", "mcp__my-server__get_sum"},
		{"a.b", "x y", "mcp__a_b__x_y"},
		{"s", "dots...and spaces", "mcp__s__dots_and_spaces"},
		{"s", "ünïcode", "mcp__s___n_code"},
		{"s", "!!!", "mcp__s__tool"},
		{"s", "double__under", "mcp__s__double__under"},
		{"s", strings.Repeat("x", 51), "mcp__s__" + strings.Repeat("x", 51)}, // exactly 59
		{"s", strings.Repeat("x", 56), "mcp__s__" + strings.Repeat("x", 56)}, // exactly 64
	}
	for _, tc := range tests {
		if got := toolName(tc.server, tc.tool); got != tc.want {
			t.Errorf("toolName(%q, %q) = %q, want %q", tc.server, tc.tool, got, tc.want)
		}
	}
	// Over 64: cut, with a hash of the raw name that keeps two long names
	// with a common prefix apart.
	a, b := toolName("s", strings.Repeat("x", 70)+"a"), toolName("s", strings.Repeat("x", 70)+"b")
	if len(a) != 64 || len(b) != 64 || a == b || !strings.HasPrefix(a, "mcp__s__xxxx") {
		t.Errorf("long names %q, %q", a, b)
	}
	if a != toolName("s", strings.Repeat("x", 70)+"a") {
		t.Error("long name not stable")
	}
}

func TestUniqueName(t *testing.T) {
	taken := map[string]bool{"a": true, "a_2": true, strings.Repeat("z", 64): true}
	tests := []struct{ in, want string }{
		{"b", "b"},
		{"a", "a_3"},
		{strings.Repeat("z", 64), strings.Repeat("z", 62) + "_2"},
	}
	for _, tc := range tests {
		if got := uniqueName(tc.in, taken); got != tc.want {
			t.Errorf("uniqueName(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}
