package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/subrun"
	"github.com/openseek/openseek/protocol"
)

// held runs the CLI with stdin held open as a parent does: input is
// written, then stdin closes once a stdout line starts with closeAt (or
// at once when closeAt is ""), the way a parent cancels or finishes.
func held(t *testing.T, dir, input, closeAt string, env []string, args ...string) result {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Dir = dir
	cmd.Env = append([]string{"OPENSEEK_TEST_MAIN=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "OPENSEEK_RETRY_BACKOFF_MS=1"}, env...)
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	outp, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb bytes.Buffer
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	io.WriteString(in, input)
	if closeAt == "" {
		in.Close()
	}
	var out bytes.Buffer
	sc := bufio.NewScanner(outp)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		out.Write(sc.Bytes())
		out.WriteByte('\n')
		if closeAt != "" && strings.HasPrefix(sc.Text(), closeAt) {
			in.Close()
		}
	}
	in.Close()
	err = cmd.Wait()
	r := result{stdout: out.String(), stderr: errb.String()}
	if ee, ok := err.(*exec.ExitError); ok {
		r.code = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}
	r.events = parseEvents(t, out.Bytes())
	return r
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	return lines[len(lines)-1]
}

func TestSubrunEcho(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	r := openseek(t, ws, "{\"probe\": 42}\n", nil, "subrun", "echo")
	want := `{"event":"agent_step","step":1}
{"event":"usage","usage":{"prompt_tokens":7,"completion_tokens":3,"total_tokens":10,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":7}}
{"subrun_report":{"probe":42}}
`
	if r.code != 0 || r.stdout != want || r.stderr != "" {
		t.Errorf("exit %d\nstdout %s\nwant   %s\nstderr %s", r.code, r.stdout, want, r.stderr)
	}
}

func TestSubrunRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind, input, want string
	}{
		{"nope", "{}\n", `{"event":"command_error","error":"unknown subrun kind: nope"}`},
		{"worker", `{"task":"x"}` + "\n", "{\"event\":\"command_error\",\"error\":\"subrun worker: worker input requires an absolute `worker_root`\"}"},
		{"worker", `{"task":"x","worker_root":"rel/dir"}` + "\n", "{\"event\":\"command_error\",\"error\":\"subrun worker: worker input requires an absolute `worker_root`\"}"},
		{"explore", `{"query":" "}` + "\n", `{"event":"command_error","error":"subrun explore: explore requires a non-empty query"}`},
		{"general", `{}` + "\n", "{\"event\":\"command_error\",\"error\":\"subrun general: a general request's input needs a non-empty `task`\"}"},
		{"explore", "not json\n", `{"event":"command_error","error":"subrun explore: the input is not JSON: Invalid character 'o' at line 1, column 1"}`},
		{"echo", "", `{"event":"command_error","error":"subrun echo: stdin closed before an input arrived"}`},
	} {
		ws := t.TempDir()
		// No key anywhere: every refusal comes before a key is needed.
		r := openseek(t, ws, tc.input, nil, "subrun", tc.kind)
		if r.code != 1 || r.stdout != tc.want+"\n" || r.stderr != "" {
			t.Errorf("%s %q: exit %d\nstdout %q\nwant   %q\nstderr %q", tc.kind, tc.input, r.code, r.stdout, tc.want+"\n", r.stderr)
		}
		if _, err := os.Stat(filepath.Join(ws, ".openseek")); err == nil {
			t.Errorf("%s: a refused subrun created .openseek", tc.kind)
		}
	}
}

func TestSubrunExploreReportsTheAnswer(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "main.go"), []byte("package main\n"), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "look", Calls: []llmtest.Call{{ID: "c1", Name: "read", Args: `{"path":"main.go"}`}}},
		llmtest.Text("main.go declares package main"))
	r := held(t, ws, `{"query":"what package is main.go?"}`+"\n", `{"subrun_report"`, nil, append(modelArgs(srv), "subrun", "explore")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	if got := lastLine(r.stdout); got != `{"subrun_report":"main.go declares package main"}` {
		t.Errorf("last line %s", got)
	}
	if len(find[protocol.AgentStep](r.events)) != 2 || len(find[protocol.AgentFinished](r.events)) != 1 {
		t.Errorf("events %v", names(r.events))
	}
	body := string(srv.Requests()[0].Body)
	if !strings.Contains(body, "what package is main.go?") || !strings.Contains(body, "read-only") {
		t.Errorf("the explore prompt is not in the request: %.300s", body)
	}
}

func TestSubrunCancelsOnStdinEOF(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Stall{})
	r := held(t, ws, `{"task":"wait forever"}`+"\n", `{"event":"agent_step"`, nil, append(modelArgs(srv), "subrun", "general")...)
	if r.code != 1 {
		t.Errorf("exit %d, want 1 (cancelled)", r.code)
	}
	if strings.Contains(r.stdout, "subrun_report") {
		t.Errorf("a cancelled child reported: %s", r.stdout)
	}
	sums := find[protocol.TurnSummary](r.events)
	if len(sums) != 1 || sums[0].Outcome != "interrupted" {
		t.Errorf("turn summaries %+v, events %v", sums, names(r.events))
	}
}

func TestSubrunWorkerUsesItsOwnWorktree(t *testing.T) {
	t.Parallel()
	repo := gitRepo(t)
	root := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "write", Calls: []llmtest.Call{{ID: "w", Name: "write", Args: `{"path":"notes.txt","content":"hi\n"}`}}},
		llmtest.Text("wrote notes.txt"))
	in := `{"task":"add notes.txt","worker_root":"` + root + `"}` + "\n"
	r := held(t, repo, in, `{"subrun_report"`, []string{"OPENSEEK_VERIFY=off"}, append(modelArgs(srv), "subrun", "worker")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	var rep struct {
		SubrunReport struct {
			Worktree, Branch, Report string
			Changed                  []string
		} `json:"subrun_report"`
	}
	if err := json.Unmarshal([]byte(lastLine(r.stdout)), &rep); err != nil {
		t.Fatal(err)
	}
	got := rep.SubrunReport
	if !strings.HasPrefix(got.Worktree, root+string(filepath.Separator)) || !strings.HasPrefix(got.Branch, "openseek/worker-") ||
		got.Report != "wrote notes.txt" || strings.Join(got.Changed, ",") != "notes.txt" {
		t.Errorf("report %+v", got)
	}
	if b, err := os.ReadFile(filepath.Join(got.Worktree, "notes.txt")); err != nil || string(b) != "hi\n" {
		t.Errorf("worktree file: %q %v", b, err)
	}
	if _, err := os.Stat(filepath.Join(repo, "notes.txt")); err == nil {
		t.Error("the worker wrote into the parent's checkout")
	}
}

func TestRunJSONRefusals(t *testing.T) {
	t.Parallel()
	const general = `{"version":1,"request_id":"r-7","input":{"task":"t"}}`
	for _, tc := range []struct {
		name   string
		args   []string
		stdin  string
		env    []string
		want   string
		result string // the result file, "" = no --result-file
	}{
		{"task words", []string{"--input-format", "json", "do it"}, general, nil, "a task on the command line cannot be combined with --input-format json", ""},
		{"kind without json", []string{"--kind", "echo", "x"}, "", nil, "--kind needs --input-format json: a preset reads a JSON request", ""},
		{"eof without json", []string{"--cancel-on-stdin-eof", "x"}, "", nil, "--cancel-on-stdin-eof needs --input-format json", ""},
		{"gate delegated", []string{"--input-format", "json", "--cancel-on-stdin-eof", "--review-gate"}, general, nil,
			"--review-gate is not available with --cancel-on-stdin-eof: a delegated run does not delegate further", ""},
		{"delegated escalation", []string{"--input-format", "json", "--cancel-on-stdin-eof", "--approval", "always"}, general, nil,
			"a delegated run (--cancel-on-stdin-eof) refuses every escalation: --approval must be never", ""},
		{"hosted workflow", []string{"--input-format", "json", "--session", ""}, general, []string{"WORKFLOW_HOST=1"},
			"a run launched from a hosted workflow needs its reserved --session; delegate through @hosted.run so the child gets a transcript", ""},
		{"unknown flag kind", []string{"--input-format", "json", "--kind", "nope"}, general, nil, "unknown kind: nope", ""},
		{"unknown request kind", []string{"--input-format", "json"}, `{"version":1,"request_id":"r-2","kind":"nope","input":{}}`, nil, "unknown kind: nope",
			`{"version":1,"request_id":"r-2","status":"failed","reason":"unknown kind: nope"}`},
		{"not json", []string{"--input-format", "json"}, "not json", nil, "the request on stdin is not JSON: Invalid character 'o' at line 1, column 1",
			`{"version":1,"status":"failed","reason":"the request on stdin is not JSON: Invalid character 'o' at line 1, column 1"}`},
		{"version", []string{"--input-format", "json"}, `{"version":2,"request_id":"r-4","input":{}}`, nil, "unsupported request version 2",
			`{"version":1,"request_id":"r-4","status":"failed","reason":"unsupported request version 2"}`},
		{"schema", []string{"--input-format", "json"}, `{"version":1,"schema":{"type":"object"},"input":{"task":"t"}}`, nil, "this engine does not support the request's `schema`", ""},
		{"no task", []string{"--input-format", "json"}, `{"version":1,"request_id":"r-5","input":{"task":""}}`, nil, "a general request's input needs a non-empty `task`",
			"{\"version\":1,\"request_id\":\"r-5\",\"status\":\"failed\",\"reason\":\"a general request's input needs a non-empty `task`\"}"},
		{"kind mismatch", []string{"--input-format", "json", "--kind", "worker"}, `{"version":1,"kind":"explore","input":{"query":"q"}}`, nil, "--kind worker does not match the request's kind explore", ""},
		{"explore query", []string{"--input-format", "json"}, `{"version":1,"request_id":"r-3","kind":"explore","input":{"query":""}}`, nil, "explore requires a non-empty query",
			`{"version":1,"request_id":"r-3","status":"failed","reason":"explore requires a non-empty query"}`},
		{"worker root", []string{"--input-format", "json", "--kind", "worker"}, `{"version":1,"input":{"task":"t","worker_root":"rel"}}`, nil, "worker input requires an absolute `worker_root`", ""},
		{"eof before request", []string{"--input-format", "json", "--cancel-on-stdin-eof"}, "", nil, "stdin closed before a request arrived",
			`{"version":1,"status":"failed","reason":"stdin closed before a request arrived"}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			args := append([]string{"run", "--dir", "new"}, tc.args...)
			res := filepath.Join(ws, "result.json")
			if tc.result != "" {
				args = append(args, "--result-file", res)
			}
			r := openseek(t, ws, tc.stdin, tc.env, args...)
			if r.code != 1 || r.stderr != "error: "+tc.want+"\n" || r.stdout != "" {
				t.Errorf("exit %d\nstderr %q\nwant   %q\nstdout %q", r.code, r.stderr, "error: "+tc.want+"\n", r.stdout)
			}
			if _, err := os.Stat(filepath.Join(ws, "new")); err == nil {
				t.Error("the workspace was created before the refusal")
			}
			if tc.result != "" {
				if b, err := os.ReadFile(res); err != nil || string(b) != tc.result+"\n" {
					t.Errorf("result file %q %v\nwant %q", b, err, tc.result)
				}
			}
		})
	}
}

func TestRunJSONEchoResultFile(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	res := filepath.Join(ws, "out.json")
	// An inherited OPENSEEK_APPROVAL is ignored by a delegated run.
	r := held(t, ws, `{"version":1,"request_id":"r-1","kind":"echo","input":{"probe": 42}}`+"\n", `{"event":"usage"`, []string{"OPENSEEK_APPROVAL=always"},
		"run", "--input-format", "json", "--cancel-on-stdin-eof", "--result-file", res)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := `{"version":1,"request_id":"r-1","kind":"echo","status":"completed","output":{"probe":42}}` + "\n"
	if b, _ := os.ReadFile(res); string(b) != want {
		t.Errorf("result %s want %s", b, want)
	}
	if got := names(r.events); strings.Join(got, ",") != "agent_step,usage" {
		t.Errorf("events %v", got)
	}
}

func TestRunJSONGeneralBatch(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("all done"))
	res := filepath.Join(ws, "out.json")
	r := openseek(t, ws, `{"version":1,"request_id":"r-6","input":{"task":"say done"}}`, nil,
		append(modelArgs(srv), "run", "--input-format", "json", "--result-file", res)...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	want := `{"version":1,"request_id":"r-6","status":"completed","output":"all done"}` + "\n"
	if b, _ := os.ReadFile(res); string(b) != want {
		t.Errorf("result %s want %s", b, want)
	}
	if len(find[protocol.SessionStarted](r.events)) != 1 {
		t.Errorf("events %v", names(r.events))
	}
	if !strings.Contains(string(srv.Requests()[0].Body), "say done") {
		t.Error("the task did not reach the model")
	}
}

func TestRunJSONDelegatedCancel(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Stall{})
	res := filepath.Join(ws, "out.json")
	r := held(t, ws, `{"version":1,"request_id":"r-9","input":{"task":"wait"}}`+"\n", `{"event":"agent_step"`, nil,
		append(modelArgs(srv), "run", "--input-format", "json", "--cancel-on-stdin-eof", "--result-file", res)...)
	if r.code != 1 {
		t.Errorf("exit %d: %s", r.code, r.stderr)
	}
	// OpenSeek's own transcript, byte for byte: cancelled before the model
	// answered, so no usage and no step.
	b, _ := os.ReadFile(res)
	want := `{"version":1,"request_id":"r-9","status":"interrupted","reason":"cancelled","usage":{"prompt_tokens":0,"completion_tokens":0,"total_tokens":0,"prompt_cache_hit_tokens":0,"prompt_cache_miss_tokens":0},"steps":0}` + "\n"
	if string(b) != want {
		t.Errorf("result\n%s\nwant\n%s", b, want)
	}
}

func TestRunJSONOneDelegatedGeneralRunPerWorkspace(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	real, _ := filepath.EvalSymlinks(ws)
	lease, err := subrun.AcquireLease(real)
	if err != nil {
		t.Fatal(err)
	}
	srv := llmtest.NewServer(t, llmtest.Text("second"))
	tmp := []string{"TMPDIR=" + os.TempDir()} // the lease lives there
	r := held(t, ws, `{"version":1,"input":{"task":"write"}}`+"\n", "", tmp,
		append(modelArgs(srv), "run", "--input-format", "json", "--cancel-on-stdin-eof")...)
	want := "error: another delegated general run is already working in " + real + "; run a worker for parallel writes\n"
	if r.code != 1 || r.stderr != want {
		t.Errorf("exit %d stderr %q want %q", r.code, r.stderr, want)
	}
	lease.Release()
	// Released, the next delegated run gets in.
	r = held(t, ws, `{"version":1,"input":{"task":"write"}}`+"\n", `{"event":"turn_summary"`, tmp,
		append(modelArgs(srv), "run", "--input-format", "json", "--cancel-on-stdin-eof")...)
	if r.code != 0 {
		t.Errorf("after release: exit %d %s", r.code, r.stderr)
	}
}

func TestRunReviewGateSendsTheTurnBackOnce(t *testing.T) {
	t.Parallel()
	repo := gitRepo(t)
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "edit", Calls: []llmtest.Call{{ID: "e", Name: "write", Args: `{"path":"app.py","content":"def f(x):\n    return eval(x)\n\n# more\n"}`}}},
		llmtest.Text("changed app.py"),
		llmtest.Text(cliReport),
		llmtest.Text("kept it: the input is trusted"))
	srv.MultiConversation()
	r := openseek(t, repo, "", []string{"OPENSEEK_VERIFY=off"}, append(modelArgs(srv), "run", "--review-gate", "--format", "jsonl", "change app.py")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s", r.code, r.stderr)
	}
	reqs := srv.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4 (turn, turn, review, gated turn)", len(reqs))
	}
	if !strings.Contains(string(reqs[3].Body), "[review gate]") || !strings.Contains(string(reqs[3].Body), "eval of input") {
		t.Errorf("the findings were not sent back: %.400s", reqs[3].Body)
	}
	fins := find[protocol.AgentFinished](r.events)
	if len(fins) != 2 || len(find[protocol.SubrunFinished](r.events)) != 1 {
		t.Errorf("events %v", names(r.events))
	}
}

func TestEditProgram(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, args, stdin string
		env               []string
		code              int
		stdout, stderr    string
		file              string // a.txt afterwards
	}{
		{"argument", `{"path":"a.txt","old_string":"two","new_string":"2"}`, "", nil, 0, "ok: replaced 1 occurrence(s) at line 2 in a.txt\n", "", "one\n2\nthree\n"},
		{"stdin", "", `{"path":"a.txt","old_string":"three","new_string":"3"}`, nil, 0, "ok: replaced 1 occurrence(s) at line 3 in a.txt\n", "", "one\ntwo\n3\n"},
		{"bad json", "not json", "", nil, 1, "", "error: Invalid character 'o' at line 1, column 1\n", "one\ntwo\nthree\n"},
		{"missing field", `{"path":"a.txt","new_string":"x"}`, "", nil, 1, "", "error: edit requires arguments.old_string\n", "one\ntwo\nthree\n"},
		{"escape", `{"path":"../escape.txt","old_string":"a","new_string":"b"}`, "", nil, 1, "", "error editing ../escape.txt: write blocked: path resolves outside the writable root ROOT (through a symlink or ..)\n", "one\ntwo\nthree\n"},
		{"allowed paths", `{"path":"other/b.txt","old_string":"x","new_string":"y"}`, "", []string{"OPENSEEK_EDIT_ALLOWED_PATHS=allowed"}, 1, "", "error editing other/b.txt: write blocked: path is outside allowed_paths (allowed)\n", "one\ntwo\nthree\n"},
		{"parse gate", `{"path":"p.go","old_string":"func f() {}","new_string":"func f() {} }","revert_on_parse_errors":true}`, "", nil, 1, "", "rejected: the edit would introduce 1 new parse error(s) in p.go, so the file was NOT modified.", "one\ntwo\nthree\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ws := t.TempDir()
			root, _ := filepath.EvalSymlinks(ws)
			os.WriteFile(filepath.Join(ws, "a.txt"), []byte("one\ntwo\nthree\n"), 0o644)
			os.WriteFile(filepath.Join(ws, "p.go"), []byte("package p\n\nfunc f() {}\n"), 0o644)
			os.MkdirAll(filepath.Join(ws, "other"), 0o755)
			os.WriteFile(filepath.Join(ws, "other", "b.txt"), []byte("x\n"), 0o644)
			args := []string{"edit"}
			if tc.args != "" {
				args = append(args, tc.args)
			}
			r := openseek(t, ws, tc.stdin, append([]string{"OPENSEEK_EDIT_ROOT=" + ws}, tc.env...), args...)
			wantErr := strings.ReplaceAll(tc.stderr, "ROOT", root)
			okErr := r.stderr == wantErr || (strings.HasPrefix(tc.stderr, "rejected") && strings.HasPrefix(r.stderr, wantErr))
			if r.code != tc.code || r.stdout != tc.stdout || !okErr {
				t.Errorf("exit %d\nstdout %q want %q\nstderr %q want %q", r.code, r.stdout, tc.stdout, r.stderr, wantErr)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(b) != tc.file {
				t.Errorf("a.txt = %q, want %q", b, tc.file)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "p.go")); string(b) != "package p\n\nfunc f() {}\n" {
				t.Errorf("p.go changed: %q", b)
			}
			if b, _ := os.ReadFile(filepath.Join(ws, "other", "b.txt")); string(b) != "x\n" {
				t.Errorf("other/b.txt changed: %q", b)
			}
		})
	}
}

func TestAgentToolRunsAProcessChild(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".openseek", "agents"), 0o755)
	os.WriteFile(filepath.Join(ws, ".openseek", "agents", "scout.md"), []byte("---\nname: scout\ndescription: Looks around.\nrun: process\ntools: read\n---\nYou look around and report briefly.\n"), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "delegate", Calls: []llmtest.Call{{ID: "a1", Name: "agent", Args: `{"description":"look around","prompt":"list what you see","agent":"scout"}`}}},
		llmtest.Text("child saw a README"),
		llmtest.Text("parent done"))
	srv.MultiConversation()
	r := openseek(t, ws, "", []string{"OPENSEEK_VERIFY=off"}, append(modelArgs(srv), "run", "--session", "p1", "--format", "jsonl", "delegate")...)
	if r.code != 0 {
		t.Fatalf("exit %d: %s\n%s", r.code, r.stderr, r.stdout)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 {
		t.Fatalf("%d requests, want 3", len(reqs))
	}
	child := string(reqs[1].Body)
	if !strings.Contains(child, "list what you see") || !strings.Contains(child, "You look around and report briefly.") {
		t.Errorf("the child's task: %.400s", child)
	}
	if strings.Join(reqs[1].Tools, ",") != "read" {
		t.Errorf("the child's tools %v, want read only", reqs[1].Tools)
	}
	if !strings.Contains(string(reqs[2].Body), "child saw a README") {
		t.Error("the child's report did not reach the parent")
	}
	fins := find[protocol.SubrunFinished](r.events)
	if len(fins) != 1 || fins[0].ID != "p1-sr-1" || fins[0].Status != "captured" || fins[0].Steps != 1 {
		t.Errorf("subrun_finished %+v", fins)
	}
	if _, err := os.Stat(filepath.Join(ws, ".openseek", "sessions", "p1-sr-1")); err != nil {
		if m, _ := filepath.Glob(filepath.Join(ws, ".openseek", "*p1-sr-1*")); len(m) == 0 {
			out, _ := exec.Command("find", filepath.Join(ws, ".openseek")).CombinedOutput()
			t.Errorf("the child recorded no session p1-sr-1 under the parent root: %s\n%s", out, r.stdout)
		}
	}
}
