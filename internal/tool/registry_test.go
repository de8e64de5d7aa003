package tool

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func stub(name string) Tool {
	return Tool{Name: name, Description: "d " + name, Schema: json.RawMessage(`{"type":"object"}`),
		Run: func(context.Context, *Env, json.RawMessage) (Result, error) { return TextResult(name), nil }}
}

func names(ts []Tool) []string {
	out := make([]string, len(ts))
	for i, t := range ts {
		out[i] = t.Name
	}
	return out
}

func TestRegistrySortedAndFiltered(t *testing.T) {
	r := NewRegistry(stub("write"), stub("edit"), stub("read"), stub("finish"))
	tests := []struct {
		name string
		reg  *Registry
		want []string
	}{
		{"all sorted", r, []string{"edit", "finish", "read", "write"}},
		{"without finish", r.Without("finish"), []string{"edit", "read", "write"}},
		{"without several and unknown", r.Without("edit", "write", "nope"), []string{"finish", "read"}},
		{"nil registry", (*Registry)(nil).Without("x"), []string{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := names(tt.reg.Tools())
			if !slices.Equal(got, tt.want) {
				t.Fatalf("Tools() = %v, want %v", got, tt.want)
			}
			specs := tt.reg.Specs()
			if len(specs) != len(tt.want) {
				t.Fatalf("Specs() has %d entries, want %d", len(specs), len(tt.want))
			}
			for i, s := range specs {
				if s.Name != tt.want[i] || s.Description != "d "+tt.want[i] || string(s.Schema) != `{"type":"object"}` {
					t.Errorf("Specs()[%d] = %+v", i, s)
				}
			}
			if tt.reg.Len() != len(tt.want) {
				t.Errorf("Len() = %d, want %d", tt.reg.Len(), len(tt.want))
			}
		})
	}
	// Without is a copy: adding to it does not change the original.
	v := r.Without("read")
	if err := v.Add(stub("read2")); err != nil {
		t.Fatal(err)
	}
	if _, ok := r.Get("read2"); ok {
		t.Error("adding to a Without view changed the original registry")
	}
}

func TestRegistryAdd(t *testing.T) {
	tests := []struct {
		name    string
		tool    Tool
		wantErr string
	}{
		{"new", stub("plan"), ""},
		{"duplicate", stub("read"), "already registered"},
		{"empty name", stub(" "), "empty name"},
		{"no run", Tool{Name: "x"}, "no Run"},
	}
	r := NewRegistry(stub("read"), stub("read"))
	if r.Len() != 1 {
		t.Fatalf("NewRegistry kept %d tools for a duplicated name, want 1", r.Len())
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := r.Add(tt.tool)
			if tt.wantErr == "" {
				if err != nil {
					t.Fatalf("Add: %v", err)
				}
				if got, ok := r.Get(tt.tool.Name); !ok || got.Name != tt.tool.Name {
					t.Fatalf("Get(%q) = %v, %v", tt.tool.Name, got.Name, ok)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("Add error = %v, want containing %q", err, tt.wantErr)
			}
		})
	}
	if _, ok := (*Registry)(nil).Get("read"); ok {
		t.Error("nil registry Get found a tool")
	}
	var zero Registry
	if err := zero.Add(stub("a")); err != nil {
		t.Errorf("zero Registry Add: %v", err)
	}
}
