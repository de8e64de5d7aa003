package runtime

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/snapshot"
	"github.com/openseek/openseek/protocol"
)

// files reads the workspace's files (without .git and .openseek).
func files(t *testing.T, ws string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(ws, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(ws, p)
		if d.IsDir() {
			if rel == ".git" || rel == ".openseek" {
				return filepath.SkipDir
			}
			return nil
		}
		b, err := os.ReadFile(p)
		out[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// dotGit fingerprints a user's .git directory: every file's path, mode,
// content hash and modification time.
func dotGit(t *testing.T, dir string) string {
	t.Helper()
	var lines []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		info, err := d.Info()
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		lines = append(lines, fmt.Sprintf("%s %v %x %d", p, info.Mode(), sha256.Sum256(b), info.ModTime().UnixNano()))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

func gitIn(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

func put(t *testing.T, ws string, m map[string]string) {
	t.Helper()
	for p, c := range m {
		full := filepath.Join(ws, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func write(path, content string) llmtest.Call {
	return llmtest.Call{Name: "write", Args: fmt.Sprintf(`{"path":%q,"content":%q}`, path, content)}
}

// TestRewindThroughTheEngine runs three turns that change files through
// the engine and the scripted model server, then rewinds: to a turn that
// does not exist (refused, nothing changes), to before turn 3 and to
// before turn 2 with the conversation. In a user's git repository (whose
// .git must stay byte for byte as it was) and in a plain directory.
func TestRewindThroughTheEngine(t *testing.T) {
	for _, userRepo := range []bool{true, false} {
		t.Run(fmt.Sprintf("user_repo=%v", userRepo), func(t *testing.T) {
			ctx := context.Background()
			srv := llmtest.NewServer(t,
				llmtest.Calls(write("main.go", "package main // turn 1\n")), llmtest.Text("one"),
				llmtest.Calls(write("main.go", "package main // turn 2\n"), llmtest.Call{Name: "remove", Args: `{"path":"old.txt"}`}), llmtest.Text("two"),
				llmtest.Calls(write("pkg/new.go", "package pkg\n"), write("app.log", "ignored\n")), llmtest.Text("three"),
			)
			ws := t.TempDir()
			put(t, ws, map[string]string{"main.go": "package main\n", "old.txt": "old\n", ".gitignore": "*.log\n"})
			var before string
			if userRepo {
				gitIn(t, ws, "init", "-q")
				gitIn(t, ws, "add", ".")
				gitIn(t, ws, "commit", "-q", "-m", "start")
				before = dotGit(t, filepath.Join(ws, ".git"))
			}
			home := t.TempDir()
			e, _, _ := newEngine(t, srv, func(o *testOptions) { o.Dir, o.Home = ws, home })
			id := e.SessionID()
			var states []map[string]string
			for _, p := range []string{"first", "second", "third"} {
				states = append(states, files(t, ws))
				if out, err := e.Prompt(ctx, protocol.Text(p), nil); err != nil || !out.OK() {
					t.Fatalf("turn %q: %+v %v", p, out, err)
				}
			}
			turns := e.Session().Turns()
			if len(turns) != 3 {
				t.Fatalf("turns %+v", turns)
			}
			for _, tr := range turns {
				if tr.Snapshot == "" {
					t.Errorf("turn %d has no snapshot", tr.Number)
				}
			}
			e.Close()
			final := files(t, ws)
			// The snapshots live in the user's home, not in the workspace.
			if _, err := os.Stat(filepath.Join(snapshot.Dir(home, ws), "HEAD")); err != nil {
				t.Errorf("no side repository in the home: %v", err)
			}
			if _, err := os.Stat(filepath.Join(ws, ".openseek", "snapshots")); err == nil {
				t.Error("a side repository was created in the workspace")
			}

			opts := RewindOptions{Dir: ws, SessionID: id, Home: home}
			for _, n := range []int{4, -1} {
				opts.Turn = n
				_, err := Rewind(ctx, opts)
				if err == nil || !strings.Contains(err.Error(), fmt.Sprintf("has no turn %d: its turns are 1 to 3", n)) {
					t.Errorf("rewind to turn %d: %v", n, err)
				}
			}
			if got := files(t, ws); !reflect.DeepEqual(got, final) {
				t.Errorf("a refused rewind changed files: %v", got)
			}

			opts.Turn = 0 // the last turn
			r, err := Rewind(ctx, opts)
			if err != nil {
				t.Fatal(err)
			}
			want := states[2]
			want["app.log"] = "ignored\n" // ignored files are left alone
			if got := files(t, ws); !reflect.DeepEqual(got, want) {
				t.Errorf("before turn 3:\n got %v\nwant %v", got, want)
			}
			if r.Turn.Number != 3 || r.HiddenFrom != 0 || len(r.Files.Changes) != 1 || r.Files.Changes[0].Path != "pkg/new.go" {
				t.Errorf("rewind result %+v", r)
			}

			opts.Turn, opts.Conversation = 2, true
			if r, err = Rewind(ctx, opts); err != nil {
				t.Fatal(err)
			}
			want = states[1]
			want["app.log"] = "ignored\n"
			if got := files(t, ws); !reflect.DeepEqual(got, want) {
				t.Errorf("before turn 2:\n got %v\nwant %v", got, want)
			}
			if userRepo {
				if after := dotGit(t, filepath.Join(ws, ".git")); after != before {
					t.Errorf("the user's .git changed:\n%s\n---\n%s", before, after)
				}
			}

			// The conversation is rewound by an appended marker: the log
			// keeps every event, the projection ends before turn 2.
			s, err := session.NewStore(filepath.Join(ws, ".openseek")).Load(id)
			if err != nil {
				t.Fatal(err)
			}
			last := s.Events[len(s.Events)-1].Item.(*session.Notice)
			if last.Content != session.RewindMarker(turns[1].Start) || r.HiddenFrom != turns[1].Start {
				t.Errorf("last event %q, result %+v", last.Content, r)
			}
			var texts []string
			for _, m := range s.Messages()[1:] {
				texts = append(texts, string(m.Role)+":"+m.Text())
			}
			if strings.Contains(strings.Join(texts, "|"), "second") || !strings.HasSuffix(strings.Join(texts, "|"), "assistant:one") {
				t.Errorf("projection after the conversation rewind: %q", texts)
			}

			// A resumed engine carries on from the rewound conversation.
			srv.Push(llmtest.Text("four"))
			srv.ExpectPrefixBreak() // the rewind dropped turns 2 and 3 from the history
			e2, _, _ := newEngine(t, srv, func(o *testOptions) { o.Dir, o.Home, o.SessionID = ws, home, id })
			if out, err := e2.Prompt(ctx, protocol.Text("fourth"), nil); err != nil || !out.OK() {
				t.Fatalf("%+v %v", out, err)
			}
			reqs := srv.Requests()
			sent := string(reqs[len(reqs)-1].Body)
			if strings.Contains(sent, "second") || strings.Contains(sent, "third") || !strings.Contains(sent, "first") || strings.Contains(sent, "[snapshot]") {
				t.Errorf("request after the rewind: %s", sent)
			}
		})
	}
}

func TestNoSnapshotInPlanModeOrWhenOff(t *testing.T) {
	for _, tc := range []struct {
		name string
		mod  func(*testOptions)
	}{
		{"plan", func(o *testOptions) { o.Approval = "plan" }},
		{"off", func(o *testOptions) {
			o.Getenv = func(k string) string {
				if k == "OPENSEEK_SNAPSHOTS" {
					return "off"
				}
				return ""
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, llmtest.Text("ok"))
			e, _, ws := newEngine(t, srv, tc.mod)
			if out, err := e.Prompt(context.Background(), protocol.Text("look"), nil); err != nil || !out.OK() {
				t.Fatalf("%+v %v", out, err)
			}
			turns := e.Session().Turns()
			if len(turns) != 1 || turns[0].Snapshot != "" {
				t.Errorf("turns %+v", turns)
			}
			e.Close()
			_, err := Rewind(context.Background(), RewindOptions{Dir: ws, SessionID: e.SessionID(), Home: e.opts.Home})
			if err == nil || !strings.Contains(err.Error(), "turn 1 of session "+e.SessionID()+" has no snapshot") {
				t.Errorf("rewind of a turn without snapshot: %v", err)
			}
			for _, dir := range []string{filepath.Join(ws, ".openseek", "snapshots"), filepath.Join(e.opts.Home, ".openseek", "snapshots")} {
				if _, err := os.Stat(dir); err == nil {
					t.Errorf("a snapshot repository was created: %s", dir)
				}
			}
		})
	}
}

func TestRewindRefusesASessionInUse(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("ok"))
	e, _, ws := newEngine(t, srv, nil)
	if _, err := e.Prompt(context.Background(), protocol.Text("hi"), nil); err != nil {
		t.Fatal(err)
	}
	_, err := Rewind(context.Background(), RewindOptions{Dir: ws, Home: e.opts.Home})
	if err == nil || !strings.Contains(err.Error(), "rewind session "+e.SessionID()) {
		t.Errorf("rewind of a session in use: %v", err)
	}
}

// A session root outside the workspace (fleet attempts use one) shares
// the workspace's side repository in the home; nothing is kept under the
// root.
func TestRewindWithASessionRootElsewhere(t *testing.T) {
	root := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Calls(write("made.txt", "x")), llmtest.Text("done"))
	e, _, ws := newEngine(t, srv, func(o *testOptions) { o.SessionRoot = root })
	if out, err := e.Prompt(context.Background(), protocol.Text("make"), nil); err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	e.Close()
	r, err := Rewind(context.Background(), RewindOptions{Dir: ws, SessionRoot: root, Home: e.opts.Home})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(ws, "made.txt")); err == nil || len(r.Files.Changes) != 1 {
		t.Errorf("made.txt survived the rewind: %+v", r)
	}
	if _, err := os.Stat(filepath.Join(root, "snapshots")); err == nil {
		t.Error("a side repository was created under the session root")
	}
	dirs, _ := os.ReadDir(filepath.Join(e.opts.Home, ".openseek", "snapshots"))
	if len(dirs) != 1 || len(dirs[0].Name()) != 16 {
		t.Errorf("side repositories in the home: %v", dirs)
	}
}

// An earlier version kept the side repository in the workspace
// (.openseek/snapshots) or under a session root elsewhere
// (<root>/snapshots/<hash>). Rewinding a session of that version moves
// the store into the home on first use: the old snapshot ids still
// restore, and the old store is gone.
func TestRewindOfASessionFromTheWorkspaceStore(t *testing.T) {
	for _, elsewhere := range []bool{false, true} {
		t.Run(fmt.Sprintf("root_elsewhere=%v", elsewhere), func(t *testing.T) {
			root := ""
			if elsewhere {
				root = t.TempDir()
			}
			srv := llmtest.NewServer(t,
				llmtest.Calls(write("a.txt", "turn one\n")), llmtest.Text("one"),
				llmtest.Calls(write("a.txt", "turn two\n")), llmtest.Text("two"))
			e, _, ws := newEngine(t, srv, func(o *testOptions) { o.SessionRoot = root })
			put(t, ws, map[string]string{"a.txt": "original\n"})
			for _, p := range []string{"first", "second"} {
				if out, err := e.Prompt(context.Background(), protocol.Text(p), nil); err != nil || !out.OK() {
					t.Fatalf("%+v %v", out, err)
				}
			}
			e.Close()
			// Where the earlier version kept this store.
			store := snapshot.Dir(e.opts.Home, ws)
			old := filepath.Join(ws, ".openseek", "snapshots")
			if elsewhere {
				old = filepath.Join(root, "snapshots", filepath.Base(store))
			}
			os.MkdirAll(filepath.Dir(old), 0o755)
			if err := os.Rename(store, old); err != nil {
				t.Fatal(err)
			}
			r, err := Rewind(context.Background(), RewindOptions{Dir: ws, SessionRoot: root, Home: e.opts.Home, Turn: 1})
			if err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "original\n" || len(r.Files.Changes) != 1 {
				t.Errorf("a.txt %q after the rewind, %+v", b, r)
			}
			if _, err := os.Stat(old); err == nil {
				t.Error("the old store is still there")
			}
			// The new store carries on: the rewind's undo restores.
			if _, err := RestoreSnapshot(context.Background(), e.opts.Home, ws, root, r.Files.Saved); err != nil {
				t.Fatal(err)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != "turn two\n" {
				t.Errorf("a.txt %q after the undo", b)
			}
		})
	}
}

// A cancel that arrives while the turn's snapshot is being taken (beside
// the turn's first model request) is not lost: the turn ends at once as
// interrupted, and nothing the model asked for runs.
func TestCancelDuringTheSnapshot(t *testing.T) {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("the snapshot tests need git: apt-get install git")
	}
	bin := t.TempDir()
	started := filepath.Join(bin, "started")
	script := fmt.Sprintf("#!/bin/sh\ntouch %q\nsleep 30 &\nwait\nexec %q \"$@\"\n", started, real)
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	// The model answers at once with a write; the snapshot is still
	// running, so the write waits for it — and the cancel ends the turn.
	srv := llmtest.NewServer(t, llmtest.Calls(llmtest.Call{ID: "w", Name: "write", Args: `{"path":"never.txt","content":"x"}`}))
	e, _, ws := newEngine(t, srv, nil)
	go func() {
		waitFor(t, started)
		e.Cancel()
	}()
	out, err := e.Prompt(context.Background(), protocol.Text("never runs"), nil)
	if err != nil || out.Kind != session.Interrupted {
		t.Errorf("outcome %+v %v, want interrupted", out, err)
	}
	if _, err := os.Stat(filepath.Join(ws, "never.txt")); err == nil {
		t.Errorf("the tool ran although the turn was cancelled during its snapshot")
	}
	if turns := e.Session().Turns(); len(turns) != 1 || turns[0].Snapshot != "" {
		t.Errorf("turns %+v", turns)
	}
}

// The turn's first model request does not wait for the snapshot; the
// tool the model asks for does, and the snapshot's marker lands after the
// prompt and before the tool's result, naming the prompt.
func TestSnapshotBesideTheFirstRequest(t *testing.T) {
	real, err := exec.LookPath("git")
	if err != nil {
		t.Fatal("the snapshot tests need git: apt-get install git")
	}
	bin := t.TempDir()
	release := filepath.Join(bin, "release")
	// Every git the snapshot runs waits until the test saw the request.
	script := fmt.Sprintf("#!/bin/sh\nfor i in $(seq 2000); do [ -e %q ] && break; sleep 0.01; done\nexec %q \"$@\"\n", release, real)
	if err := os.WriteFile(filepath.Join(bin, "git"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "w", Name: "write", Args: `{"path":"made.txt","content":"x"}`}),
		llmtest.Text("done"))
	e, _, _ := newEngine(t, srv, nil)
	asked := make(chan bool, 1)
	go func() {
		for range 2000 {
			if len(srv.Requests()) > 0 {
				asked <- true
				os.WriteFile(release, nil, 0o644)
				return
			}
			time.Sleep(10 * time.Millisecond)
		}
		asked <- false
		os.WriteFile(release, nil, 0o644)
	}()
	out, err := e.Prompt(context.Background(), protocol.Text("make a file"), nil)
	if err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	if !<-asked {
		t.Fatal("the model was not asked until the snapshot was done")
	}
	s := e.Session()
	var order []string
	for _, ev := range s.Events {
		switch it := ev.Item.(type) {
		case *session.User:
			order = append(order, "prompt")
		case *session.Notice:
			if strings.HasPrefix(it.Content, session.SnapshotPrefix) {
				order = append(order, "snapshot")
			}
		case *session.ToolResult:
			order = append(order, "tool")
		}
	}
	if strings.Join(order, " ") != "prompt snapshot tool" {
		t.Errorf("log order %v, want the snapshot after the prompt and before the tool", order)
	}
	if turns := s.Turns(); len(turns) != 1 || turns[0].Snapshot == "" {
		t.Errorf("turns %+v: want the snapshot on the turn", turns)
	}
}

// TestTurnThatCannotWriteTakesNoSnapshot: a turn whose tools cannot
// change files (read, a read-only shell command) starts no git and
// records that it changed nothing; a turn that writes takes its snapshot
// before the write; rewinding to an unchanged turn restores the next
// snapshot, or nothing when no later turn changed files; and a running
// background job (which may write meanwhile) makes even a read-only turn
// take its snapshot.
func TestTurnThatCannotWriteTakesNoSnapshot(t *testing.T) {
	ctx := context.Background()
	read := llmtest.Call{Name: "read", Args: `{"path":"main.go"}`}
	echo := llmtest.Call{Name: "shell", Args: `{"cmd":"echo hello; ls"}`}
	srv := llmtest.NewServer(t,
		llmtest.Calls(read, echo), llmtest.Text("one"),
		llmtest.Calls(llmtest.Call{Name: "shell", Args: `{"cmd":"echo made > made.txt"}`}), llmtest.Text("two"),
		llmtest.Calls(read), llmtest.Text("three"),
		llmtest.Calls(llmtest.Call{Name: "shell", Args: `{"cmd":"sleep 60","background":true}`}), llmtest.Text("four"),
		llmtest.Calls(read), llmtest.Text("five"),
	)
	ws := t.TempDir()
	put(t, ws, map[string]string{"main.go": "package main\n"})
	home := t.TempDir()
	e, _, _ := newEngine(t, srv, func(o *testOptions) { o.Dir, o.Home = ws, home })
	id := e.SessionID()
	side := snapshot.Dir(home, ws)
	prompt := func(p string) {
		t.Helper()
		if out, err := e.Prompt(ctx, protocol.Text(p), nil); err != nil || !out.OK() {
			t.Fatalf("turn %q: %+v %v", p, out, err)
		}
	}
	prompt("first")
	if _, err := os.Stat(side); err == nil {
		t.Error("a turn that only read made a snapshot repository")
	}
	prompt("second")
	afterTwo := files(t, ws)
	for _, p := range []string{"third", "fourth", "fifth"} {
		prompt(p)
	}
	turns := e.Session().Turns()
	if len(turns) != 5 {
		t.Fatalf("turns %+v", turns)
	}
	type state struct {
		snap, unchanged bool
	}
	want := []state{{false, true}, {true, false}, {false, true}, {false, true}, {true, false}}
	for i, tr := range turns {
		if got := (state{tr.Snapshot != "", tr.Unchanged}); got != want[i] {
			t.Errorf("turn %d: snapshot %q, unchanged %v; want %+v", tr.Number, tr.Snapshot, tr.Unchanged, want[i])
		}
	}
	// The unchanged marker is bookkeeping: the model never sees it.
	for _, m := range e.Session().Messages() {
		if strings.Contains(m.Text(), session.UnchangedPrefix) {
			t.Errorf("the model sees %q", m.Text())
		}
	}
	e.Close()

	opts := RewindOptions{Dir: ws, SessionID: id, Home: home, Turn: 3}
	r, err := Rewind(ctx, opts)
	if err != nil {
		t.Fatal(err)
	}
	if got := files(t, ws); !reflect.DeepEqual(got, afterTwo) || len(r.Files.Changes) != 0 {
		t.Errorf("before turn 3 (it and turn 4 changed nothing, turn 5 found the files as turn 2 left them): %v, %+v", got, r.Files)
	}
	opts.Turn = 1
	if r, err = Rewind(ctx, opts); err != nil {
		t.Fatal(err)
	}
	if got := files(t, ws); !reflect.DeepEqual(got, map[string]string{"main.go": "package main\n"}) || len(r.Files.Changes) != 1 {
		t.Errorf("before turn 1 (turn 2's snapshot): %v, %+v", got, r.Files)
	}
}
