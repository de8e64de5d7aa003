package fs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestRemove(t *testing.T) {
	notCreated := "not created by the agent this session — or changed since; remove deletes only files the agent created and nobody changed. Leave it, or ask the user"
	tests := []struct {
		name        string
		setup       func(t *testing.T, ws string) // runs after the agent wrote made.txt
		args        string
		want        string
		gone        string // a file that must be gone afterwards
		kept        string // a file that must still exist
		wantOutcome string
	}{
		{"created by the agent", nil, `{"path":"made.txt","reason":"scratch file"}`,
			"ok: removed made.txt (reason: scratch file)", "made.txt", "", "removed"},
		{"created then edited by the agent", func(t *testing.T, ws string) {}, `{"path":"made.txt","reason":"done"}`,
			"ok: removed made.txt (reason: done)", "made.txt", "", "removed"},
		{"user's file", nil, `{"path":"user.txt","reason":"cleanup"}`,
			"error removing user.txt: " + notCreated, "", "user.txt", "refused"},
		{"created then changed by someone else", func(t *testing.T, ws string) {
			if err := os.WriteFile(filepath.Join(ws, "made.txt"), []byte("theirs"), 0o644); err != nil {
				t.Fatal(err)
			}
		}, `{"path":"made.txt","reason":"x"}`, "error removing made.txt: " + notCreated, "", "made.txt", "refused"},
		{"missing", nil, `{"path":"ghost.txt","reason":"x"}`, "error removing ghost.txt: no such file", "", "", "not_found"},
		{"directory", nil, `{"path":"sub","reason":"x"}`, "error removing sub: not a regular file; remove deletes regular files", "", "sub/f", "refused"},
		{"symlink to a created file", func(t *testing.T, ws string) {
			if err := os.Symlink("made.txt", filepath.Join(ws, "ln")); err != nil {
				t.Fatal(err)
			}
		}, `{"path":"ln","reason":"x"}`, "error removing ln: not a regular file; remove deletes regular files", "", "made.txt", "refused"},
		{"blank reason", nil, `{"path":"made.txt","reason":"  "}`, "error: remove requires arguments.reason to be a non-empty explanation", "", "made.txt", "error"},
		{"missing reason", nil, `{"path":"made.txt"}`, "error: remove requires arguments.reason", "", "made.txt", ""},
		{"missing path", nil, `{"reason":"x"}`, "error: remove requires arguments.path", "", "made.txt", ""},
		{"not an object", nil, `1`, "error: remove requires object arguments", "", "made.txt", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, map[string]string{"user.txt": "mine", "sub/f": ""})
			if res := call(t, Write(), env, `{"path":"made.txt","content":"v1"}`); res.IsError {
				t.Fatal(res.Content.Text())
			}
			if tt.name == "created then edited by the agent" {
				if res := call(t, Edit(), env, `{"path":"made.txt","old_string":"v1","new_string":"v2"}`); res.IsError {
					t.Fatal(res.Content.Text())
				}
			}
			if tt.setup != nil {
				tt.setup(t, env.Workspace)
			}
			res := call(t, Remove(), env, tt.args)
			if got := res.Content.Text(); got != tt.want {
				t.Fatalf("text = %q, want %q", got, tt.want)
			}
			if tt.gone != "" {
				if _, err := os.Lstat(filepath.Join(env.Workspace, tt.gone)); !os.IsNotExist(err) {
					t.Errorf("%s still exists", tt.gone)
				}
			}
			if tt.kept != "" {
				if _, err := os.Lstat(filepath.Join(env.Workspace, tt.kept)); err != nil {
					t.Errorf("%s was removed: %v", tt.kept, err)
				}
			}
			if tt.wantOutcome != "" {
				if d := outcome(t, res); d.Outcome != tt.wantOutcome {
					t.Errorf("outcome = %q, want %q", d.Outcome, tt.wantOutcome)
				}
			}
		})
	}
}

func TestRemoveForgetsProvenance(t *testing.T) {
	env := newEnv(t, nil)
	call(t, Write(), env, `{"path":"a.txt","content":"x"}`)
	if res := call(t, Remove(), env, `{"path":"a.txt","reason":"temp"}`); res.IsError {
		t.Fatal(res.Content.Text())
	}
	// Someone recreates the file with the same content: it is not the
	// agent's any more.
	if err := os.WriteFile(filepath.Join(env.Workspace, "a.txt"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := call(t, Remove(), env, `{"path":"a.txt","reason":"temp"}`); !res.IsError {
		t.Fatal("removed a file recreated by someone else after the agent removed its own")
	}
}
