package main

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/protocol"
)

// tempFile is the name of write's temporary files (".<name>.openseek-<hex>").
var tempFile = regexp.MustCompile(`^\..*\.openseek-[0-9a-f]+$`)

// TestWriteRaceCannotReachProtected drives `openseek run` (default
// sandbox) with a model that writes d<i>/config 160 times while a
// command keeps exchanging each d<i> with a symlink to a protected
// directory — .git, .git/hooks, .openseek, the snapshot store — with
// renameat2(RENAME_EXCHANGE). A core.fsmonitor planted in .git/config
// would run at the user's next git status, one in the snapshot store's
// config on the host at the next turn's snapshot: no write may land in
// any of them, and no temporary file may be left anywhere.
func TestWriteRaceCannotReachProtected(t *testing.T) {
	ws := t.TempDir()
	for name, body := range map[string]string{
		".git/config":           "[core]\n\tbare = false\n",
		".git/hooks/README":     "hooks\n",
		".openseek/config.toml": "",
	} {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	// A first turn creates the session and snapshot stores.
	warm := llmtest.NewServer(t, llmtest.Reply{Calls: []llmtest.Call{{ID: "w", Name: "write", Args: `{"path":"warm.txt","content":"warm\n"}`}}}, llmtest.Text("ready"))
	if r := openseek(t, ws, "", nil, append(modelArgs(warm), "run", "warm up")...); r.code != 0 {
		t.Fatalf("warm-up run: exit %d\nstderr: %s", r.code, r.stderr)
	}
	targets := []struct{ dir, file string }{ // a protected directory, the file attacked in it
		{".git", "config"},
		{".git/hooks", "pre-commit"},
		{".openseek", "config.toml"},
		{".openseek/snapshots", "config"},
	}
	var protected []string
	for i, tg := range targets {
		if _, err := os.Stat(filepath.Join(ws, tg.dir)); err != nil {
			t.Fatalf("%s: %v (the warm-up run should have made it)", tg.dir, err)
		}
		protected = append(protected, filepath.Join(tg.dir, tg.file))
		d := filepath.Join(ws, fmt.Sprintf("d%d", i))
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(tg.dir, filepath.Join(ws, fmt.Sprintf("link%d", i))); err != nil {
			t.Fatal(err)
		}
	}
	before := protectedState(t, ws, protected)

	payload := "[core]\n\tfsmonitor = touch " + filepath.Join(ws, "pwned") + "\n"
	var calls []llmtest.Call
	for n := range 160 {
		i := n % len(targets)
		args, _ := json.Marshal(map[string]string{"path": fmt.Sprintf("d%d/%s", i, targets[i].file), "content": payload})
		calls = append(calls, llmtest.Call{ID: fmt.Sprintf("w%d", n), Name: "write", Args: string(args)})
	}
	srv := llmtest.NewServer(t, llmtest.Reply{Calls: calls}, llmtest.Text("written"))

	// The background job: each d<i> and its link change places in a loop
	// for as long as the run lasts.
	var stop atomic.Bool
	var swaps atomic.Int64
	var wg sync.WaitGroup
	for i := range targets {
		wg.Go(func() {
			d, link := filepath.Join(ws, fmt.Sprintf("d%d", i)), filepath.Join(ws, fmt.Sprintf("link%d", i))
			for n := 0; !stop.Load(); n++ {
				if unix.Renameat2(unix.AT_FDCWD, d, unix.AT_FDCWD, link, unix.RENAME_EXCHANGE) == nil {
					swaps.Add(1)
				}
			}
		})
	}
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "run", "write the configs")...)
	stop.Store(true)
	wg.Wait()
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if swaps.Load() == 0 {
		t.Fatal("no exchange happened")
	}

	outcomes := map[string]int{}
	for _, tr := range find[protocol.ToolResult](r.events) {
		switch c := tr.Content; {
		case strings.HasPrefix(c, "ok: wrote"):
			outcomes["written (to a real d)"]++
		case strings.Contains(c, "is protected"):
			outcomes["refused: protected"]++
		case strings.Contains(c, "is a symbolic link now"):
			outcomes["refused: swapped mid-way"]++
		default:
			t.Errorf("unexpected result of %s: %q", tr.ToolCallID, c)
		}
	}
	t.Logf("%d exchanges; %v", swaps.Load(), outcomes)

	if after := protectedState(t, ws, protected); fmt.Sprint(after) != fmt.Sprint(before) {
		t.Errorf("protected files changed:\n before %v\n after  %v", before, after)
	}
	filepath.WalkDir(ws, func(p string, de os.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if tempFile.MatchString(de.Name()) {
			t.Errorf("temporary file left: %s", p)
		}
		rel, _ := filepath.Rel(ws, p)
		// (The session log records the calls, and the snapshot store's
		// objects the real d's content, compressed.)
		logged := strings.HasPrefix(rel, ".openseek/sessions/") || strings.HasPrefix(rel, ".openseek/snapshots/objects/")
		if inside := strings.HasPrefix(rel, ".git/") || strings.HasPrefix(rel, ".openseek/"); inside && !logged && de.Type().IsRegular() {
			if b, err := os.ReadFile(p); err == nil && strings.Contains(string(b), "fsmonitor") {
				t.Errorf("the payload reached %s", rel)
			}
		}
		return nil
	})
}

// protectedState is the device, inode and content of each file (relative
// to ws; "absent" when missing), and the names in .git and .git/hooks: a
// file replaced, created or changed shows.
func protectedState(t *testing.T, ws string, files []string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, f := range files {
		var st unix.Stat_t
		if err := unix.Lstat(filepath.Join(ws, f), &st); err != nil {
			out[f] = "absent"
			continue
		}
		b, _ := os.ReadFile(filepath.Join(ws, f))
		out[f] = fmt.Sprintf("%d:%d %q", st.Dev, st.Ino, b)
	}
	for _, dir := range []string{".git", ".git/hooks"} {
		ents, err := os.ReadDir(filepath.Join(ws, dir))
		if err != nil {
			t.Fatal(err)
		}
		var names []string
		for _, e := range ents {
			names = append(names, e.Name())
		}
		out[dir+"/"] = strings.Join(names, " ")
	}
	return out
}

// TestWriteRaceAsOrdinaryUser runs the race again as an ordinary user.
func TestWriteRaceAsOrdinaryUser(t *testing.T) {
	sandboxtest.AsOrdinaryUser(t, "^TestWriteRaceCannotReachProtected$")
}
