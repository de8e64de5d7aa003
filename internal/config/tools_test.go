package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestToolsTable(t *testing.T) {
	tests := []struct {
		name, user, project string
		want                Tools
		err                 string
	}{
		{name: "none"},
		{name: "add and remove", user: "[tools]\nadd = [\"apply_patch\"]\nremove = [\"multi_edit\", \"edit\"]\n",
			want: Tools{Add: []string{"apply_patch"}, Remove: []string{"multi_edit", "edit"}}},
		{name: "project key over user key", user: "[tools]\nadd = [\"apply_patch\"]\nremove = [\"edit\"]\n", project: "[tools]\nremove = [\"grep\"]\n",
			want: Tools{Add: []string{"apply_patch"}, Remove: []string{"grep"}}},
		{name: "not an array", user: "[tools]\nadd = \"apply_patch\"\n", err: "tools.add must be an array of tool names"},
		{name: "not a table", user: "tools = 3\n", err: "tools must be a table"},
		{name: "search budget", user: "[tools]\nsearch_budget = 4096\n", want: Tools{SearchBudget: ptr(4096)}},
		{name: "search budget off", project: "[tools]\nsearch_budget = 0\n", want: Tools{SearchBudget: ptr(0)}},
		{name: "search budget not a number", user: "[tools]\nsearch_budget = \"8k\"\n", err: "tools.search_budget must be a number of bytes"},
		{name: "search budget negative", user: "[tools]\nsearch_budget = -1\n", err: "tools.search_budget must be a number of bytes"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			home, ws := t.TempDir(), t.TempDir()
			user, project := Paths(home, ws)
			for path, body := range map[string]string{user: tc.user, project: tc.project} {
				if body == "" {
					continue
				}
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, []byte(body), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			cfg, err := Load(home, ws, func(string) string { return "" })
			if err != nil {
				t.Fatal(err)
			}
			got, err := cfg.Tools()
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			budget := func(p *int) any {
				if p == nil {
					return nil
				}
				return *p
			}
			if !slices.Equal(got.Add, tc.want.Add) || !slices.Equal(got.Remove, tc.want.Remove) || budget(got.SearchBudget) != budget(tc.want.SearchBudget) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func ptr(n int) *int { return &n }
