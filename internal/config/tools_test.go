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
			if !slices.Equal(got.Add, tc.want.Add) || !slices.Equal(got.Remove, tc.want.Remove) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}
