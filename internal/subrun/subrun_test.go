package subrun

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/protocol"
)

func TestParseRequest(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"version":1,"request_id":"r","kind":"echo","input":{"a":1}}`, ""},
		{"not json", "the request on stdin is not JSON: Invalid character 'o' at line 1, column 1"},
		{"oops", "the request on stdin is not JSON: Invalid character 'o' at line 1, column 0"},
		{"{\n  x", "the request on stdin is not JSON: Invalid character 'x' at line 2, column 2"},
		{"", "the request on stdin is not JSON: Unexpected end of input"},
		{`{"version":1`, "the request on stdin is not JSON: Unexpected end of input"},
		{`{"version":3,"input":1}`, "unsupported request version 3"},
		{`{"input":1}`, "unsupported request version 0"},
		{`{"version":1,"schema":{},"input":1}`, "this engine does not support the request's `schema`"},
		{`{"version":1,"schema":null,"input":{"task":"t"}}`, ""},
	} {
		_, err := ParseRequest([]byte(tc.in))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}

func TestValidate(t *testing.T) {
	for _, tc := range []struct{ kind, input, want string }{
		{"echo", `{"probe":42}`, ""},
		{"nope", `{}`, "unknown kind: nope"},
		{"explore", `{"query":"where"}`, ""},
		{"explore", `{"query":""}`, "explore requires a non-empty query"},
		{"explore", `"where"`, "explore requires a non-empty query"},
		{"worker", `{"task":"t","worker_root":"/w"}`, ""},
		{"worker", `{"task":"t","worker_root":"w"}`, "worker input requires an absolute `worker_root`"},
		{"worker", `{"task":"t"}`, "worker input requires an absolute `worker_root`"},
		{"worker", `{"worker_root":"/w"}`, "worker input needs a non-empty `task`"},
		{"", `{"task":"t"}`, ""},
		{"", `"a bare task"`, ""},
		{"general", `{"task":"  "}`, "a general request's input needs a non-empty `task`"},
		{"", `{"task":3}`, "a general request's input needs a non-empty `task`"},
	} {
		_, err := Validate(tc.kind, json.RawMessage(tc.input))
		got := ""
		if err != nil {
			got = err.Error()
		}
		if got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.kind, tc.input, got, tc.want)
		}
	}
}

func TestResultKeyOrder(t *testing.T) {
	steps := 0
	for _, tc := range []struct {
		r    Result
		want string
	}{
		{Result{RequestID: "r-1", Kind: "echo", Status: Completed, Output: json.RawMessage(`{"probe":42}`)},
			`{"version":1,"request_id":"r-1","kind":"echo","status":"completed","output":{"probe":42}}`},
		{Result{RequestID: "r-3", Status: Failed, Reason: "explore requires a non-empty query"},
			`{"version":1,"request_id":"r-3","status":"failed","reason":"explore requires a non-empty query"}`},
		{Result{RequestID: "r-9", Status: Interrupted, Reason: "cancelled", Usage: &protocol.Usage{}, Steps: &steps},
			`{"version":1,"request_id":"r-9","status":"interrupted","reason":"cancelled","usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":0},"steps":0}`},
		{Result{Status: Failed, Reason: "a <b> & c"}, `{"version":1,"status":"failed","reason":"a <b> & c"}`},
	} {
		if got := string(tc.r.Marshal()); got != tc.want {
			t.Errorf("got  %s\nwant %s", got, tc.want)
		}
	}
	if got := string(Report(json.RawMessage(`{"probe": 42}`))); got != `{"subrun_report":{"probe":42}}` {
		t.Errorf("report %s", got)
	}
}

func TestLeaseIsExclusive(t *testing.T) {
	ws := t.TempDir()
	a, err := AcquireLease(ws)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := AcquireLease(ws); err == nil || err.Error() != "another delegated general run is already working in "+ws+"; run a worker for parallel writes" {
		t.Errorf("second lease: %v", err)
	}
	a.Release()
	b, err := AcquireLease(ws)
	if err != nil {
		t.Fatalf("after release: %v", err)
	}
	b.Release()
}

func TestNewWorktree(t *testing.T) {
	repo := t.TempDir()
	git := func(args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = repo
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL="+os.DevNull, "GIT_AUTHOR_NAME=u", "GIT_AUTHOR_EMAIL=u@x", "GIT_COMMITTER_NAME=u", "GIT_COMMITTER_EMAIL=u@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	root := filepath.Join(t.TempDir(), "workers")
	if _, err := NewWorktree(t.Context(), repo, root, "x"); err == nil || !strings.Contains(err.Error(), "a worker needs a git repository with a commit") {
		t.Errorf("no repository: %v", err)
	}
	git("init", "-q")
	os.WriteFile(filepath.Join(repo, "f.txt"), []byte("f\n"), 0o644)
	git("add", ".")
	git("commit", "-qm", "one")
	w1, err := NewWorktree(t.Context(), repo, root, "x")
	if err != nil {
		t.Fatal(err)
	}
	w2, err := NewWorktree(t.Context(), repo, root, "x")
	if err != nil {
		t.Fatal(err)
	}
	if w1.Dir == w2.Dir || w1.Branch == w2.Branch || filepath.Dir(w1.Dir) != root {
		t.Errorf("worktrees %+v %+v", w1, w2)
	}
	os.WriteFile(filepath.Join(w1.Dir, "g.txt"), []byte("g\n"), 0o644)
	if got := w1.Changed(t.Context()); strings.Join(got, ",") != "g.txt" {
		t.Errorf("changed %v", got)
	}
	if _, err := os.Stat(filepath.Join(repo, "g.txt")); err == nil {
		t.Error("the worktree shares files with the repository")
	}
}

// JSONError places and shows the offending character as OpenSeek's JSON
// parser (moonbitlang/core/json) does: these are its own test cases
// (json/parse_error_test.mbt), columns from 0 in UTF-16 code units.
func TestJSONErrorMatchesMoonBit(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"a", "Invalid character 'a' at line 1, column 0"},
		{"-a", "Invalid character 'a' at line 1, column 1"},
		{"1.a", "Invalid character 'a' at line 1, column 2"},
		{"1ea", "Invalid character 'a' at line 1, column 2"},
		{"1e-a", "Invalid character 'a' at line 1, column 3"},
		{"\"\n\"", "Invalid character '\\n' at line 1, column 1"},
		{"{!:1}", "Invalid character '!' at line 1, column 1"},
		{`{"a"!1}`, "Invalid character '!' at line 1, column 4"},
		{`{"a":1!}`, "Invalid character '!' at line 1, column 6"},
		{"[1!]", "Invalid character '!' at line 1, column 2"},
		{"tru!", "Invalid character '!' at line 1, column 3"},
		{`"\u000g"`, "Invalid character 'g' at line 1, column 6"},
		{"1 2", "Invalid character '2' at line 1, column 2"},
		{"{a:1}", "Invalid character 'a' at line 1, column 1"},
		{"[1,]", "Invalid character ']' at line 1, column 3"},
		{`{"id":0,}`, "Invalid character '}' at line 1, column 8"},
		{"+1", "Invalid character '+' at line 1, column 0"},
		{".123", "Invalid character '.' at line 1, column 0"},
		{"-.123", "Invalid character '.' at line 1, column 1"},
		{"[1.]", "Invalid character ']' at line 1, column 3"},
		{"[\u000c]", "Invalid character '\\x0c' at line 1, column 1"},
		{"[\"\u0009\"]", "Invalid character '\\t' at line 1, column 2"},
		{"[\"a\u0000a\"]", "Invalid character '\\x00' at line 1, column 3"},
		// A character outside the BMP is two UTF-16 units wide.
		{"[\"😀\", x]", "Invalid character 'x' at line 1, column 7"},
		{"é", "Invalid character 'é' at line 1, column 0"},
		{"[1,\n 2,\n x]", "Invalid character 'x' at line 3, column 1"},
		{"[1", "Unexpected end of input"},
	} {
		var v any
		err := json.Unmarshal([]byte(tc.in), &v)
		if err == nil {
			t.Fatalf("%q decoded", tc.in)
		}
		if got := JSONError([]byte(tc.in), err); got != tc.want {
			t.Errorf("%q: %q, want %q", tc.in, got, tc.want)
		}
	}
}
