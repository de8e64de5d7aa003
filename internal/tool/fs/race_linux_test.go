package fs

import (
	"errors"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/openseek/openseek/internal/beneath"
	"github.com/openseek/openseek/internal/beneath/beneathtest"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/tool"
)

// TestSymlinkSwapRace races write, edit and remove against a "command"
// that keeps exchanging a directory of the workspace with a symlink to a
// directory outside it (renameat2 RENAME_EXCHANGE, as a background job
// could). Calls may fail while the swap runs, but nothing outside the
// workspace may ever be created, changed or removed.
func TestSymlinkSwapRace(t *testing.T) {
	env := newEnv(t, map[string]string{"d/f.txt": "inside\n"})
	outside := filepath.Join(filepath.Dir(env.Workspace), filepath.Base(env.Workspace)+"-outside")
	if err := os.MkdirAll(outside, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(outside) })
	for i := range 20 {
		name := fmt.Sprintf("victim-%d.txt", i)
		if err := os.WriteFile(filepath.Join(outside, name), []byte("inside\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		// The provenance check would let remove delete these, were the
		// path check fooled.
		env.Files.MarkCreated(filepath.Join(env.Workspace, "d", name), []byte("inside\n"))
	}
	if err := os.WriteFile(filepath.Join(outside, "f.txt"), []byte("inside\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, outside)
	if err := os.Symlink(outside, filepath.Join(env.Workspace, "link")); err != nil {
		t.Fatal(err)
	}

	stop := beneathtest.Exchange(filepath.Join(env.Workspace, "d"), filepath.Join(env.Workspace, "link"))
	for i := range 300 {
		victim := fmt.Sprintf("d/victim-%d.txt", i%20)
		call(t, Write(), env, map[string]any{"path": "d/f.txt", "content": "pwned\n"})
		call(t, Write(), env, map[string]any{"path": fmt.Sprintf("d/new-%d.txt", i), "content": "pwned\n"})
		call(t, Edit(), env, map[string]any{"path": "d/f.txt", "old_string": "inside", "new_string": "pwned"})
		call(t, Remove(), env, map[string]any{"path": victim, "reason": "race"})
		call(t, ApplyPatch(), env, map[string]any{"input": fmt.Sprintf("*** Begin Patch\n*** Add File: d/patched-%d.txt\n+pwned\n*** Update File: d/f.txt\n@@\n-inside\n+pwned\n*** End Patch", i)})
	}
	stop()

	after := snapshot(t, outside)
	for name, content := range after {
		if before[name] != content {
			t.Errorf("outside %s: %q, was %q", name, content, before[name])
		}
	}
	for name := range before {
		if _, ok := after[name]; !ok {
			t.Errorf("outside %s was removed", name)
		}
	}
}

// TestSwapIntoProtectedRace races every write tool against a command that
// keeps exchanging a directory d of the workspace with a symlink to a
// protected directory inside it (.git, .git/hooks, .openseek, the
// snapshot store) — a symlink os.Root would follow, since it stays in the
// workspace. The protected check passes on d/<name>, so only the write
// acting on the directory it checked keeps .git/config (a core.fsmonitor
// there runs at the user's next git status) and its neighbours intact:
// calls may fail while the swap runs, but no protected file is created,
// changed, replaced or removed, and no temporary file is left anywhere.
func TestSwapIntoProtectedRace(t *testing.T) {
	const orig = "[core]\n\tbare = false\n"
	targets := map[string]string{ // protected directory → the file attacked in it
		".git":                ".git/config",
		".git/hooks":          ".git/hooks/pre-commit",
		".openseek":           ".openseek/config.toml",
		".openseek/snapshots": ".openseek/snapshots/config",
	}
	tools := map[string]func(env *tool.Env, name string, i int) tool.Result{
		"write": func(env *tool.Env, name string, i int) tool.Result {
			return call(t, Write(), env, map[string]any{"path": "d/" + name, "content": fmt.Sprintf("[core]\n\tfsmonitor = touch pwned%d\n", i)})
		},
		"edit": func(env *tool.Env, name string, _ int) tool.Result {
			return call(t, Edit(), env, map[string]any{"path": "d/" + name, "old_string": "bare = false", "new_string": "fsmonitor = touch pwned"})
		},
		"multi_edit": func(env *tool.Env, name string, _ int) tool.Result {
			return call(t, MultiEdit(), env, map[string]any{"edits": []map[string]any{
				{"file": "d/" + name, "old_string": "bare = false", "new_string": "fsmonitor = touch pwned", "start_line": 1}}})
		},
		"apply_patch": func(env *tool.Env, name string, i int) tool.Result {
			return call(t, ApplyPatch(), env, map[string]any{"input": fmt.Sprintf(
				"*** Begin Patch\n*** Update File: d/%s\n@@\n-\tbare = false\n+\tfsmonitor = touch pwned\n*** Add File: d/new-%d\n+pwned\n*** End Patch", name, i)})
		},
		"remove": func(env *tool.Env, name string, _ int) tool.Result {
			// The agent "created" d/<name> with the protected file's
			// content: provenance alone would let remove delete either.
			env.Files.MarkCreated(filepath.Join(env.Workspace, "d", name), []byte(orig))
			return call(t, Remove(), env, map[string]any{"path": "d/" + name, "reason": "race"})
		},
	}
	for dir, file := range targets {
		for toolName, run := range tools {
			t.Run(toolName+"/"+dir, func(t *testing.T) {
				name := filepath.Base(file)
				files := map[string]string{"d/" + name: orig}
				for _, f := range targets {
					files[f] = orig
				}
				env := newEnv(t, files)
				pol := &policy.Policy{Mode: policy.ModeFullAccess, Workspace: env.Workspace}
				pol.Pin()
				env.Guard = &policy.Guard{Policy: pol}
				ws := env.Workspace
				before := identities(ws, slices.Collect(maps.Values(targets)))
				link := filepath.Join(ws, "link")
				if err := os.Symlink(dir, link); err != nil {
					t.Fatal(err)
				}
				stop := beneathtest.Exchange(filepath.Join(ws, "d"), link)
				restore, err := beneath.Open(ws, beneath.Set{}) // puts back what remove took, in the real d only
				if err != nil {
					t.Fatal(err)
				}
				defer restore.Close()
				for i := range 200 {
					if _, err := restore.Lstat("d/" + name); errors.Is(err, os.ErrNotExist) {
						restore.WriteFile("d/"+name, []byte(orig), 0o644)
					}
					run(env, name, i)
				}
				if stop() == 0 {
					t.Fatal("the swap never happened")
				}
				if after := identities(ws, slices.Collect(maps.Values(targets))); !maps.Equal(after, before) {
					t.Errorf("protected files changed:\n before %v\n after  %v", before, after)
				}
				filepath.WalkDir(ws, func(p string, _ os.DirEntry, err error) error {
					if err == nil && strings.Contains(filepath.Base(p), ".openseek-") {
						t.Errorf("temporary file left: %s", p)
					}
					return nil
				})
			})
		}
	}
}

// identities maps each of files (relative to ws) to its identity.
func identities(ws string, files []string) map[string]string {
	out := map[string]string{}
	for _, f := range files {
		out[f] = beneathtest.Identity(filepath.Join(ws, f))
	}
	return out
}

// A protected directory renamed into a path after the path was checked is
// still recognised (by device and inode, not name): nothing is written.
func TestWriteRefusesAProtectedDirectoryUnderAnotherName(t *testing.T) {
	env := newEnv(t, map[string]string{".git/config": "[core]\n", "d/config": "mine\n"})
	pol := &policy.Policy{Mode: policy.ModeFullAccess, Workspace: env.Workspace}
	pol.Pin() // as the engine does when the session starts
	env.Guard = &policy.Guard{Policy: pol}
	ws := env.Workspace
	// What a command exchanging d and .git between the check and the
	// write leaves: the name d, already checked, now holding the repository.
	if err := unix.Renameat2(unix.AT_FDCWD, filepath.Join(ws, "d"), unix.AT_FDCWD, filepath.Join(ws, ".git"), unix.RENAME_EXCHANGE); err != nil {
		t.Fatal(err)
	}
	before := snapshot(t, ws)
	for _, tc := range []struct {
		tl   tool.Tool
		args map[string]any
	}{
		{Write(), map[string]any{"path": "d/config", "content": "[core]\n\tfsmonitor = touch pwned\n"}},
		{Edit(), map[string]any{"path": "d/config", "old_string": "[core]", "new_string": "[core]\n\tfsmonitor = touch pwned"}},
		{Write(), map[string]any{"path": "d/hooks/pre-commit", "content": "#!/bin/sh\n"}},
	} {
		res := call(t, tc.tl, env, tc.args)
		if text := res.Content.Text(); !res.IsError || !strings.Contains(text, "d is now a protected directory") || !strings.Contains(text, "nothing was written") {
			t.Errorf("%s: %q, want a refusal naming d as protected", tc.tl.Name, text)
		}
	}
	if after := snapshot(t, ws); !maps.Equal(after, before) {
		t.Errorf("workspace changed: %v -> %v", before, after)
	}
}
