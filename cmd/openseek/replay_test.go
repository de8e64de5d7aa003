package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// copySession copies session from's log to a new session to in the same
// workspace (so it shares from's snapshots), changing its bytes with edit.
func copySession(t *testing.T, ws, from, to string, edit func([]byte) []byte) {
	t.Helper()
	data, err := os.ReadFile(sessionFile(ws, from))
	if err != nil {
		t.Fatal(err)
	}
	data = bytes.Replace(data, []byte(`"id":"`+from+`"`), []byte(`"id":"`+to+`"`), 1)
	if !bytes.Contains(data, []byte(`"`+to+`"`)) {
		t.Fatalf("the header of %s does not name it as expected:\n%s", from, data)
	}
	if err := os.MkdirAll(filepath.Dir(sessionFile(ws, to)), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(sessionFile(ws, to), edit(data), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestReplay(t *testing.T) {
	t.Parallel()
	ws, env := recordedSession(t)

	t.Run("as recorded", func(t *testing.T) {
		into := filepath.Join(t.TempDir(), "tree")
		r := openseek(t, ws, "", env, "replay", "s1", "--into", into)
		if r.code != 0 || !strings.Contains(r.stdout, "replayed session s1: 3 tool calls, every result as recorded") {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
		// The starting tree was restored there and the calls ran there;
		// the workspace itself was not touched.
		for name, want := range map[string]string{"data.txt": "one\ntwo\nthree\n", "notes/out.txt": "hello from the model\nsecond line\n"} {
			if b, err := os.ReadFile(filepath.Join(into, name)); err != nil || string(b) != want {
				t.Errorf("%s in the replay tree: %q %v", name, b, err)
			}
		}
		if r := openseek(t, ws, "", env, "replay", "s1", "--into", into); r.code != 1 || !strings.Contains(r.stderr, "is not empty") {
			t.Errorf("a non-empty --into: exit %d: %s", r.code, r.stderr)
		}
	})

	t.Run("a result differs", func(t *testing.T) {
		copySession(t, ws, "s1", "edited", func(b []byte) []byte {
			return bytes.Replace(b, []byte(`replay-marker-42\n`), []byte(`replay-marker-43\n`), 1)
		})
		r := openseek(t, ws, "", env, "replay", "edited")
		if r.code != 1 || !strings.Contains(r.stdout, `call s1 (shell {"cmd":"cat data.txt`) || !strings.Contains(r.stdout, "-replay-marker-43\n  +replay-marker-42") ||
			!strings.Contains(r.stdout, "3 tool calls, 1 differ") || strings.Contains(r.stdout, "call s2") {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("the environment differs", func(t *testing.T) {
		// A command whose output depends on what the replay changes: a
		// variable of the environment, which commands inherit.
		ws := t.TempDir()
		srv := llmtest.NewServer(t,
			llmtest.Calls(llmtest.Call{ID: "h1", Name: "shell", Args: `{"cmd":"echo greeting=$REPLAY_GREETING"}`}),
			llmtest.Text("read it"),
		)
		with := func(v string) []string { return append([]string{"REPLAY_GREETING=" + v}, env...) }
		if r := openseek(t, ws, "", with("recorded"), append(modelArgs(srv), "--session", "h", "run", "read the greeting")...); r.code != 0 {
			t.Fatalf("record: exit %d: %s", r.code, r.stderr)
		}
		if r := openseek(t, ws, "", with("recorded"), "replay", "h"); r.code != 0 {
			t.Fatalf("replay in the same environment: exit %d\n%s%s", r.code, r.stdout, r.stderr)
		}
		r := openseek(t, ws, "", with("changed"), "replay", "h")
		if r.code != 1 || !strings.Contains(r.stdout, `call h1 (shell {"cmd":"echo greeting=$REPLAY_GREETING"}): the result differs`) || !strings.Contains(r.stdout, "-greeting=recorded\n  +greeting=changed") {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
	})

	t.Run("turns", func(t *testing.T) {
		// Each turn's prompt is given in order; the tree is the first
		// turn's, and the second turn sees what the first one wrote.
		ws := t.TempDir()
		os.WriteFile(filepath.Join(ws, "n.txt"), []byte("1\n"), 0o644)
		srv := llmtest.NewServer(t,
			llmtest.Calls(llmtest.Call{ID: "t1", Name: "shell", Args: `{"cmd":"echo 2 >> n.txt && cat n.txt"}`}), llmtest.Text("one"),
			llmtest.Calls(llmtest.Call{ID: "t2", Name: "shell", Args: `{"cmd":"echo 3 >> n.txt && cat n.txt"}`}), llmtest.Text("two"),
		)
		for _, task := range []string{"first", "second"} {
			if r := openseek(t, ws, "", env, append(modelArgs(srv), "--session", "t", "run", task)...); r.code != 0 {
				t.Fatalf("record %s: exit %d: %s", task, r.code, r.stderr)
			}
		}
		into := filepath.Join(t.TempDir(), "tree")
		r := openseek(t, ws, "", env, "replay", "t", "--into", into)
		if r.code != 0 || !strings.Contains(r.stdout, "2 tool calls, every result as recorded") {
			t.Fatalf("exit %d\nstdout %s\nstderr %s", r.code, r.stdout, r.stderr)
		}
		if b, _ := os.ReadFile(filepath.Join(into, "n.txt")); string(b) != "1\n2\n3\n" {
			t.Errorf("n.txt after the replay: %q", b)
		}
	})

	t.Run("errors", func(t *testing.T) {
		srv := llmtest.NewServer(t, llmtest.Text("nothing to do"))
		noSnap := append([]string{"OPENSEEK_SNAPSHOTS=off"}, env...)
		if r := openseek(t, ws, "", noSnap, append(modelArgs(srv), "--session", "nosnap", "run", "hi")...); r.code != 0 {
			t.Fatalf("record: exit %d: %s", r.code, r.stderr)
		}
		copySession(t, ws, "s1", "torn", func(b []byte) []byte {
			lines := bytes.SplitAfter(b, []byte("\n"))
			lines[3] = []byte("{\"seq\": not json\n")
			return bytes.Join(lines, nil)
		})
		for _, tc := range []struct{ id, want string }{
			{"nosnap", "session nosnap cannot be replayed: it has no recorded starting tree; it was recorded with snapshots off"},
			{"nosuch", "session nosuch does not exist"},
			{"torn", "session file for torn is corrupt at line 4"},
		} {
			if r := openseek(t, ws, "", env, "replay", tc.id); r.code != 1 || !strings.Contains(r.stderr, tc.want) {
				t.Errorf("replay %s: exit %d, want %q\nstdout %s\nstderr %s", tc.id, r.code, tc.want, r.stdout, r.stderr)
			}
		}
	})
}
