package fleet

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// The published log follows the file through growth, a half-written last
// line (held back until whole), a shrink (a torn line repaired) and a
// second attempt that continues a restored log; SessionLog rebuilds the
// file exactly, and restoreLog writes it only where no log is.
func TestSessionLogFollowsTheFile(t *testing.T) {
	c := connect(t, Config{Dir: t.TempDir()})
	ctx := context.Background()
	const id = "tlog"
	path := filepath.Join(t.TempDir(), "s.jsonl")
	l := &logSync{ctx: context.Background(), c: c, id: id, attempt: 1, path: path}
	steps := []struct {
		write, want string
	}{
		{"{\"version\":1}\n", "{\"version\":1}\n"},
		{"{\"version\":1}\n{\"a\":1}\n{\"b\":", "{\"version\":1}\n{\"a\":1}\n"},
		{"{\"version\":1}\n{\"a\":1}\n{\"b\":2}\n", "{\"version\":1}\n{\"a\":1}\n{\"b\":2}\n"},
		{"{\"version\":1}\n{\"a\":1}\n", "{\"version\":1}\n{\"a\":1}\n"},
		{"{\"version\":1}\n{\"a\":1}\n{\"c\":3}\n", "{\"version\":1}\n{\"a\":1}\n{\"c\":3}\n"},
	}
	for i, s := range steps {
		if err := os.WriteFile(path, []byte(s.write), 0o644); err != nil {
			t.Fatal(err)
		}
		l.sync()
		got, err := c.SessionLog(ctx, id)
		if err != nil || string(got) != s.want {
			t.Fatalf("step %d: SessionLog = %q, %v; want %q", i, got, err, s.want)
		}
	}

	// Attempt 2 on a fresh workspace restores the log and continues it.
	fresh := filepath.Join(t.TempDir(), "sessions", "x", "s.jsonl")
	published, restored, err := c.restoreLog(ctx, id, fresh)
	if err != nil || !restored || published != int64(len(steps[4].want)) {
		t.Fatalf("restoreLog = %d %v %v", published, restored, err)
	}
	l2 := &logSync{ctx: context.Background(), c: c, id: id, attempt: 2, path: fresh, off: published}
	if err := os.WriteFile(fresh, []byte(steps[4].want+"{\"d\":4}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	l2.sync()
	if got, _ := c.SessionLog(ctx, id); string(got) != steps[4].want+"{\"d\":4}\n" {
		t.Errorf("after attempt 2: %q", got)
	}
	// A workspace that has its log keeps it.
	if _, restored, err := c.restoreLog(ctx, id, fresh); err != nil || restored {
		t.Errorf("restoreLog over an existing log: restored %v, %v", restored, err)
	}
	if got, _ := c.SessionLog(ctx, "tnone"); got != nil {
		t.Errorf("a task with no log: %q", got)
	}
}
