package hooks

import (
	"encoding/json"
	"testing"
)

func TestClaudeCompatibility(t *testing.T) {
	for _, tc := range []struct {
		tool, in, key, want string
	}{
		{"shell", `{"cmd":"ls"}`, "command", `"ls"`},
		{"edit", `{"path":"a.go","old_string":"x"}`, "file_path", `"a.go"`},
		{"write", `{"path":"b","file_path":"keep"}`, "file_path", `"keep"`},
		{"plan", `{"steps":[]}`, "steps", `[]`},
	} {
		var m map[string]json.RawMessage
		if err := json.Unmarshal(claudeInput(tc.tool, json.RawMessage(tc.in)), &m); err != nil {
			t.Fatal(err)
		}
		if string(m[tc.key]) != tc.want {
			t.Errorf("%s %s: %s = %s, want %s", tc.tool, tc.in, tc.key, m[tc.key], tc.want)
		}
	}
	if ClaudeName("shell") != "Bash" || ClaudeName("nope") != "" {
		t.Error("ClaudeName")
	}
}
