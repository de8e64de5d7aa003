package shell

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/openseek/openseek/internal/jobs"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/tool"
)

func TestMain(m *testing.M) {
	sandbox.Main()
	goleak.VerifyTestMain(m)
}

// notices collects a manager's notices.
type notices struct {
	mu   sync.Mutex
	list []string
	ch   chan struct{}
}

func (n *notices) add(s string) {
	n.mu.Lock()
	n.list = append(n.list, s)
	n.mu.Unlock()
	select {
	case n.ch <- struct{}{}:
	default:
	}
}

func (n *notices) get() []string {
	n.mu.Lock()
	defer n.mu.Unlock()
	return append([]string(nil), n.list...)
}

func (n *notices) wait(t *testing.T, count int) []string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		if l := n.get(); len(l) >= count {
			return l
		}
		select {
		case <-n.ch:
		case <-deadline:
			t.Fatalf("notices %q, want %d", n.get(), count)
		}
	}
}

// newEnv is a workspace (with a sub/ directory) and, when withJobs, a job
// table closed at the end of the test.
func newEnv(t *testing.T, withJobs bool) (*tool.Env, *notices) {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	env := &tool.Env{Workspace: ws}
	n := &notices{ch: make(chan struct{}, 1)}
	if withJobs {
		m := jobs.NewManager(jobs.Options{
			Dir: t.TempDir(), Generation: "g-test", OnNotice: n.add, StopGrace: 500 * time.Millisecond,
		})
		env.Jobs = m
		t.Cleanup(m.Close)
	}
	return env, n
}

func call(t *testing.T, tl tool.Tool, env *tool.Env, args string) tool.Result {
	t.Helper()
	return callCtx(t, context.Background(), tl, env, args)
}

func callCtx(t *testing.T, ctx context.Context, tl tool.Tool, env *tool.Env, args string) tool.Result {
	t.Helper()
	r, err := tl.Run(ctx, env, json.RawMessage(args))
	var ae *tool.ArgError
	if err != nil && !errors.As(err, &ae) {
		t.Fatalf("%s %s: %v", tl.Name, args, err)
	}
	return r
}

func TestShellForeground(t *testing.T) {
	env, _ := newEnv(t, false)
	if err := os.Symlink("/", filepath.Join(env.Workspace, "escape")); err != nil {
		t.Fatal(err)
	}
	seq := func(n int) string {
		var b strings.Builder
		for i := 1; i <= n; i++ {
			b.WriteString(strconv.Itoa(i) + "\n")
		}
		return b.String()
	}(2000) // 8893 characters
	tests := []struct {
		name  string
		args  string
		want  string // exact text, or with prefix "~" a substring
		isErr bool
	}{
		{"exit 0", `{"cmd":"echo hi"}`, "hi\n<system>exit=0</system>", false},
		{"exit code", `{"cmd":"echo no; exit 3"}`, "no\n<system>exit=3</system>", true},
		{"no output", `{"cmd":"true"}`, "<system>exit=0</system>", false},
		{"merged in order", `{"cmd":"echo a; echo b >&2; echo c; echo d >&2"}`, "a\nb\nc\nd\n<system>exit=0</system>", false},
		{"no final newline", `{"cmd":"printf x"}`, "x\n<system>exit=0</system>", false},
		{"stdin is empty", `{"cmd":"cat; echo eof"}`, "eof\n<system>exit=0</system>", false},
		{"default cwd is the workspace", `{"cmd":"pwd"}`, env.Workspace + "\n<system>exit=0</system>", false},
		{"cwd", `{"cmd":"pwd","cwd":"sub"}`, env.Workspace + "/sub\n<system>exit=0</system>", false},
		{"empty cwd", `{"cmd":"pwd","cwd":""}`, env.Workspace + "\n<system>exit=0</system>", false},
		{"head and tail", `{"cmd":"seq 2000","max_output_chars":100}`,
			seq[:50] + "\n[… 8793 characters omitted …]\n" + seq[len(seq)-50:] +
				"<system>exit=0 truncated=true shown_chars=100 total_chars=8893</system>", false},
		{"cap above max is clamped", `{"cmd":"seq 2000","max_output_chars":900000}`, seq + "<system>exit=0</system>", false},
		{"binary output", `{"cmd":"printf 'a\\377b'"}`, "a\ufffdb\n<system>exit=0 binary_output=true</system>", true},
		{"cwd outside", `{"cmd":"pwd","cwd":"/etc"}`, "~outside the workspace", true},
		{"cwd through symlink", `{"cmd":"pwd","cwd":"escape/etc"}`, "~outside the workspace", true},
		{"cwd not a directory", `{"cmd":"pwd","cwd":"nope"}`, "~error: shell cwd:", true},
		{"timeout too large", `{"cmd":"true","timeout_ms":600001}`, "error: shell timeout_ms 600001 is over the maximum 600000", true},
		{"missing cmd", `{}`, "error: shell requires arguments.cmd", true},
		{"blank cmd", `{"cmd":"  "}`, "error: shell requires arguments.cmd", true},
		{"not an object", `[]`, "error: shell requires object arguments", true},
		{"background without jobs", `{"cmd":"true","background":true}`, "~background jobs are not available", true},
		{"timeout without jobs", `{"cmd":"echo started; sleep 30","timeout_ms":200}`,
			"error: shell command timed out after 200ms; its output until then:\nstarted\n", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := call(t, Shell(), env, tt.args)
			got := r.Content.Text()
			if sub, ok := strings.CutPrefix(tt.want, "~"); ok {
				if !strings.Contains(got, sub) {
					t.Errorf("got %q, want it to contain %q", got, sub)
				}
			} else if got != tt.want {
				t.Errorf("got  %q\nwant %q", got, tt.want)
			}
			if r.IsError != tt.isErr {
				t.Errorf("is_error = %v, want %v", r.IsError, tt.isErr)
			}
		})
	}
}

func TestShellBriefAndData(t *testing.T) {
	env, _ := newEnv(t, false)
	r := call(t, Shell(), env, `{"cmd":"echo one\necho two","cwd":"sub"}`)
	if r.Brief != "echo one…" {
		t.Errorf("brief %q", r.Brief)
	}
	var d shellData
	if err := json.Unmarshal(r.Data, &d); err != nil || d.ExitCode == nil || *d.ExitCode != 0 || d.Cwd != "sub" || d.TotalChars != 8 {
		t.Errorf("data %s %v", r.Data, err)
	}
}

// pidGone reports whether pid no longer runs (a zombie counts as gone).
func pidGone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, rest, _ := bytes.Cut(b, []byte(") "))
	return len(rest) > 0 && rest[0] == 'Z'
}

func readPid(t *testing.T, path string) int {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); ; time.Sleep(5 * time.Millisecond) {
		b, _ := os.ReadFile(path)
		if pid, err := strconv.Atoi(strings.TrimSpace(string(b))); err == nil && pid > 0 {
			return pid
		}
		if time.Now().After(deadline) {
			t.Fatalf("no pid in %s", path)
		}
	}
}

func waitPidGone(t *testing.T, pid int) {
	t.Helper()
	for deadline := time.Now().Add(5 * time.Second); !pidGone(pid); time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still runs", pid)
		}
	}
}

func TestShellTimeoutKillsGroupWithoutJobs(t *testing.T) {
	env, _ := newEnv(t, false)
	r := call(t, Shell(), env, `{"cmd":"sleep 1000 & echo $! > child.pid; wait","timeout_ms":300}`)
	if got := r.Content.Text(); got != "error: shell command timed out after 300ms" || !r.IsError {
		t.Errorf("got %q", got)
	}
	waitPidGone(t, readPid(t, filepath.Join(env.Workspace, "child.pid")))
}

func TestShellCancelKillsGroup(t *testing.T) {
	env, _ := newEnv(t, true)
	ctx, cancel := context.WithCancel(context.Background())
	pidFile := filepath.Join(env.Workspace, "child.pid")
	done := make(chan tool.Result)
	go func() {
		done <- callCtx(t, ctx, Shell(), env, `{"cmd":"sleep 1000 & echo $! > child.pid; wait"}`)
	}()
	pid := readPid(t, pidFile)
	cancel()
	var r tool.Result
	select {
	case r = <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("shell did not return after cancellation")
	}
	if !r.IsError || !strings.Contains(r.Content.Text(), "cancelled") {
		t.Errorf("got %q", r.Content.Text())
	}
	waitPidGone(t, pid)
	if snap := env.Jobs.(*jobs.Manager).Snapshot(); len(snap) != 0 {
		t.Errorf("cancelled command became a job: %+v", snap)
	}
}

func TestShellTimeoutMovesToJob(t *testing.T) {
	env, n := newEnv(t, true)
	r := call(t, Shell(), env, `{"cmd":"echo early; sleep 0.5; echo late; exit 4","timeout_ms":200}`)
	want := "early\nmoved to the background as job bg-1 after 0.2s; use job_output / job_stop (a notice arrives when it exits)\n<system>job=bg-1 running</system>"
	if got := r.Content.Text(); got != want || r.IsError {
		t.Errorf("got  %q\nwant %q", got, want)
	}
	notes := n.wait(t, 1)
	if !strings.HasPrefix(notes[0], "[job bg-1 exited 4] `echo early; sleep 0.5; echo late; exit 4` (") {
		t.Errorf("notice %q", notes[0])
	}
	r = call(t, JobOutput(), env, `{"job_id":"bg-1"}`)
	if got := r.Content.Text(); got != "early\nlate\n<system>job=bg-1 exit=4</system>" || !r.IsError {
		t.Errorf("job_output %q is_error=%v", got, r.IsError)
	}
	if rec, _ := env.Jobs.Job("bg-1"); rec.Revision < 2 || rec.FinishedAtMs == nil {
		t.Errorf("record %+v", rec)
	}
}

func TestShellBackground(t *testing.T) {
	env, n := newEnv(t, true)
	r := call(t, Shell(), env, `{"cmd":"read x < /dev/null; sleep 0.3; echo done","background":true,"description":"wait a bit","cwd":"sub"}`)
	want := "started job bg-1 in the background; use job_output / job_stop (a notice arrives when it exits)\n<system>job=bg-1 running</system>"
	if got := r.Content.Text(); got != want || r.IsError {
		t.Errorf("got %q", got)
	}
	rec, _ := env.Jobs.Job("bg-1")
	if *rec.Description != "wait a bit" || *rec.Cwd != filepath.Join(env.Workspace, "sub") {
		t.Errorf("record %+v", rec)
	}
	r = call(t, JobOutput(), env, `{"job_id":"bg-1"}`)
	if got := r.Content.Text(); got != "<system>job=bg-1 running</system>" || r.IsError {
		t.Errorf("early job_output %q", got)
	}
	n.wait(t, 1)
	r = call(t, JobOutput(), env, `{"job_id":"bg-1"}`)
	if got := r.Content.Text(); got != "done\n<system>job=bg-1 exit=0</system>" || r.IsError {
		t.Errorf("late job_output %q", got)
	}
}

func TestJobOutputWindows(t *testing.T) {
	env, n := newEnv(t, true)
	call(t, Shell(), env, `{"cmd":"seq 5000","background":true}`) // 23893 characters
	n.wait(t, 1)
	tests := []struct {
		args   string
		prefix string
		footer string
		isErr  bool
	}{
		{`{"job_id":"bg-1"}`, "", "<system>job=bg-1 exit=0 truncated=true total_chars=23893 shown_chars=12000</system>", false},
		{`{"job_id":"bg-1","offset":0}`, "1\n2\n3\n", "<system>job=bg-1 exit=0 truncated=true total_chars=23893 shown_chars=12000 window_offset=0</system>", false},
		{`{"job_id":"bg-1","offset":23888}`, "5000\n", "<system>job=bg-1 exit=0 truncated=true total_chars=23893 shown_chars=5 window_offset=23888</system>", false},
		{`{"job_id":"bg-1","offset":-1}`, "", "error: job_output offset must be non-negative", true},
		{`{"job_id":"bg-9"}`, "", "error: no background job with id bg-9", true},
		{`{}`, "", "error: job_output requires arguments.job_id", true},
	}
	for _, tt := range tests {
		r := call(t, JobOutput(), env, tt.args)
		got := r.Content.Text()
		if !strings.HasPrefix(got, tt.prefix) || !strings.HasSuffix(got, tt.footer) || r.IsError != tt.isErr {
			t.Errorf("%s: got %q… %q is_error=%v", tt.args, got[:min(len(got), 20)], got[max(len(got)-120, 0):], r.IsError)
		}
	}
	if r := call(t, JobOutput(), env, `{"job_id":"bg-1"}`); !strings.HasSuffix(strings.TrimSuffix(r.Content.Text(), "\n"+"<system>job=bg-1 exit=0 truncated=true total_chars=23893 shown_chars=12000</system>"), "4999\n5000") {
		t.Errorf("tail window does not end the output")
	}
}

func TestJobStop(t *testing.T) {
	env, n := newEnv(t, true)
	call(t, Shell(), env, `{"cmd":"sleep 1000 & echo $! > child.pid; wait","background":true}`)
	pid := readPid(t, filepath.Join(env.Workspace, "child.pid"))
	tests := []struct {
		tool  tool.Tool
		args  string
		want  string
		isErr bool
	}{
		{JobStop(), `{"job_id":"bg-1"}`, "stopped job bg-1", false},
		{JobStop(), `{"job_id":"bg-1"}`, "job bg-1 had already ended (stopped)", false},
		{JobOutput(), `{"job_id":"bg-1"}`, "<system>job=bg-1 stopped</system>", true},
		{JobStop(), `{"job_id":"bg-9"}`, "error: no background job with id bg-9", true},
		{JobStop(), `{"job_id":5}`, "error: job_stop requires arguments.job_id", true},
	}
	for _, tt := range tests {
		r := call(t, tt.tool, env, tt.args)
		if got := r.Content.Text(); got != tt.want || r.IsError != tt.isErr {
			t.Errorf("%s %s = %q is_error=%v, want %q", tt.tool.Name, tt.args, got, r.IsError, tt.want)
		}
	}
	waitPidGone(t, pid)
	if got := n.get(); len(got) != 0 {
		t.Errorf("job_stop produced notices %q", got)
	}
	// Ended on its own: job_stop is a no-op that says how it ended.
	call(t, Shell(), env, `{"cmd":"exit 2","background":true}`)
	n.wait(t, 1)
	if r := call(t, JobStop(), env, `{"job_id":"bg-2"}`); r.Content.Text() != "job bg-2 had already ended (exit=2)" || r.IsError {
		t.Errorf("got %q", r.Content.Text())
	}
}

func TestJobToolsWithoutJobs(t *testing.T) {
	env, _ := newEnv(t, false)
	for _, tl := range []tool.Tool{JobOutput(), JobStop()} {
		r := call(t, tl, env, `{"job_id":"bg-1"}`)
		if r.Content.Text() != "error: no background jobs in this session" || !r.IsError {
			t.Errorf("%s: %q", tl.Name, r.Content.Text())
		}
	}
}

// TestToolSize keeps what the three tools cost in every request lean.
func TestToolSize(t *testing.T) {
	total := 0
	for _, tl := range Tools() {
		var v map[string]any
		if err := json.Unmarshal(tl.Schema, &v); err != nil || v["type"] != "object" {
			t.Errorf("%s schema %s: %v", tl.Name, tl.Schema, err)
		}
		total += len(tl.Name) + len(tl.Description) + len(tl.Schema)
	}
	t.Logf("shell+job_output+job_stop: %d bytes", total)
	if total > 2560 {
		t.Errorf("tools take %d bytes, want at most 2560", total)
	}
}

func TestShellReturnsWhenDescendantKeepsPipe(t *testing.T) {
	env, _ := newEnv(t, true)
	r := call(t, Shell(), env, `{"cmd":"sleep 1000 & echo $! > child.pid; echo started"}`)
	pid := readPid(t, filepath.Join(env.Workspace, "child.pid"))
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL); waitPidGone(t, pid) })
	if got := r.Content.Text(); got != "started\n<system>exit=0</system>" || r.IsError {
		t.Errorf("got %q", got)
	}
	if pidGone(pid) {
		t.Error("a process the command left running on purpose was killed")
	}
}

func TestShellOutputCap(t *testing.T) {
	env, _ := newEnv(t, false)
	m := jobs.NewManager(jobs.Options{Dir: t.TempDir(), MaxOutputBytes: 4096})
	env.Jobs = m
	t.Cleanup(m.Close)
	r := call(t, Shell(), env, `{"cmd":"yes","max_output_chars":10}`)
	// Five characters of head ("y\ny\ny") and of tail ("\ny\ny\n").
	want := "y\ny\ny\n[… 4086 characters omitted …]\n\ny\ny\n" +
		"<system>exit=137 truncated=true shown_chars=10 total_chars=4096 output_dropped_at_cap=true killed_at_output_cap=true</system>"
	if got := r.Content.Text(); got != want || !r.IsError {
		t.Errorf("got %q", got)
	}
}
