package fs

import (
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"
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

	var stop atomic.Bool
	var wg sync.WaitGroup
	wg.Go(func() {
		d, l := filepath.Join(env.Workspace, "d"), filepath.Join(env.Workspace, "link")
		for !stop.Load() {
			unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, l, unix.RENAME_EXCHANGE)
		}
	})
	for i := range 300 {
		victim := fmt.Sprintf("d/victim-%d.txt", i%20)
		call(t, Write(), env, map[string]any{"path": "d/f.txt", "content": "pwned\n"})
		call(t, Write(), env, map[string]any{"path": fmt.Sprintf("d/new-%d.txt", i), "content": "pwned\n"})
		call(t, Edit(), env, map[string]any{"path": "d/f.txt", "old_string": "inside", "new_string": "pwned"})
		call(t, Remove(), env, map[string]any{"path": victim, "reason": "race"})
		call(t, ApplyPatch(), env, map[string]any{"input": fmt.Sprintf("*** Begin Patch\n*** Add File: d/patched-%d.txt\n+pwned\n*** Update File: d/f.txt\n@@\n-inside\n+pwned\n*** End Patch", i)})
	}
	stop.Store(true)
	wg.Wait()

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
