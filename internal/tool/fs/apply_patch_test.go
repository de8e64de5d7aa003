package fs

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/policy"
)

func TestApplyPatchTool(t *testing.T) {
	tests := []struct {
		name    string
		files   map[string]string
		input   string
		want    string // substring of the result text
		isError bool
		outcome string
		after   map[string]string
	}{
		{
			name:    "update and add",
			files:   map[string]string{"main.go": "package main\n\nfunc main() {\n\tprintln(1)\n}\n"},
			input:   "*** Begin Patch\n*** Update File: main.go\n@@ func main() {\n-\tprintln(1)\n+\tprintln(2)\n*** Add File: doc.txt\n+hello\n*** End Patch",
			want:    "Success. Updated the following files:\nM main.go\nA doc.txt",
			outcome: "applied",
			after:   map[string]string{"main.go": "package main\n\nfunc main() {\n\tprintln(2)\n}\n", "doc.txt": "hello\n"},
		},
		{
			name:    "context mismatch names file and hunk",
			files:   map[string]string{"a.txt": "x\n"},
			input:   "*** Begin Patch\n*** Update File: a.txt\n@@\n-y\n+z\n*** End Patch",
			want:    "error applying patch: Update File a.txt, hunk 1 (patch line 3): expected lines not found",
			isError: true,
			outcome: "not_found",
			after:   map[string]string{"a.txt": "x\n"},
		},
		{
			name:    "malformed",
			input:   "*** Update File: a.txt",
			want:    "invalid patch: the first line of the patch must be '*** Begin Patch'",
			isError: true,
			outcome: "error",
		},
		{
			name:    "outside the workspace",
			input:   "*** Begin Patch\n*** Add File: ../../etc/evil\n+x\n*** End Patch",
			want:    "is outside the workspace",
			isError: true,
			outcome: "error",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			env := newEnv(t, tc.files)
			res := call(t, ApplyPatch(), env, map[string]string{"input": tc.input})
			if got := res.Content.Text(); !strings.Contains(got, tc.want) || res.IsError != tc.isError {
				t.Fatalf("result %q (error=%v), want %q (error=%v)", got, res.IsError, tc.want, tc.isError)
			}
			if d := outcome(t, res); d.Outcome != tc.outcome {
				t.Errorf("outcome %q, want %q", d.Outcome, tc.outcome)
			}
			for name, want := range tc.after {
				if got := readFile(t, env, name); got != want {
					t.Errorf("%s = %q, want %q", name, got, want)
				}
			}
		})
	}
}

// A file apply_patch created may be removed again (provenance is kept).
func TestApplyPatchRecordsCreatedFiles(t *testing.T) {
	env := newEnv(t, nil)
	res := call(t, ApplyPatch(), env, map[string]string{"input": "*** Begin Patch\n*** Add File: tmp.txt\n+x\n*** End Patch"})
	if res.IsError {
		t.Fatal(res.Content.Text())
	}
	res = call(t, Remove(), env, map[string]string{"path": "tmp.txt", "reason": "scratch file"})
	if res.IsError {
		t.Fatalf("remove after apply_patch: %s", res.Content.Text())
	}
	if _, err := os.Stat(filepath.Join(env.Workspace, "tmp.txt")); !os.IsNotExist(err) {
		t.Errorf("tmp.txt still exists: %v", err)
	}
}

func TestApplyPatchObeysGuard(t *testing.T) {
	env := newEnv(t, map[string]string{"a.txt": "one\n", ".git/config": "[core]\n"})
	env.Guard = &policy.Guard{Policy: &policy.Policy{Mode: policy.ModeAlways, Workspace: env.Workspace}}
	res := call(t, ApplyPatch(), env, map[string]string{"input": "*** Begin Patch\n*** Update File: a.txt\n@@\n-one\n+two\n*** Update File: .git/config\n@@\n-[core]\n+[evil]\n*** End Patch"})
	if !res.IsError || !strings.Contains(res.Content.Text(), "inside .git") {
		t.Fatalf("result %q, want a refusal", res.Content.Text())
	}
	if got := readFile(t, env, "a.txt"); got != "one\n" {
		t.Errorf("a.txt changed to %q although the patch was refused", got)
	}
	env.Guard = &policy.Guard{Policy: &policy.Policy{Mode: policy.ModePlan, Workspace: env.Workspace}}
	res = call(t, ApplyPatch(), env, map[string]string{"input": "*** Begin Patch\n*** Add File: b.txt\n+x\n*** End Patch"})
	if !res.IsError || !strings.Contains(res.Content.Text(), "plan mode is read-only") {
		t.Fatalf("plan mode: %q", res.Content.Text())
	}
}

func TestApplyPatchSchemaGolden(t *testing.T) {
	golden(t, "schemas/apply_patch.json", ApplyPatch().Schema)
}
