package hooks

import (
	"context"
	"testing"
)

// BenchmarkRunPreToolUse measures the overhead a trivial PreToolUse hook
// adds to every tool call (fork/exec of sh, JSON in and out).
func BenchmarkRunPreToolUse(b *testing.B) {
	dir := b.TempDir()
	cmd := script(b, dir, "h.sh", `cat >/dev/null; echo '{"hookSpecificOutput":{"permissionDecision":"allow"}}'`)
	r, errs := Load([]File{{Path: hooksFile(b, dir, map[Event][]cmdSpec{PreToolUse: {{command: cmd}}}), Trusted: true}})
	if len(errs) != 0 {
		b.Fatal(errs)
	}
	in := Input{Cwd: dir, ToolName: "shell", ToolInput: []byte(`{"command":"ls"}`)}
	for b.Loop() {
		if out := r.Run(context.Background(), PreToolUse, in); out.Permission != "allow" {
			b.Fatalf("outcome %+v", out)
		}
	}
}
