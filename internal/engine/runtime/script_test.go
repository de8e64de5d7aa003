package runtime

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// scriptCall is a model call of the script tool running code.
func scriptCall(id, code string) llmtest.Turn {
	args, _ := json.Marshal(map[string]string{"code": code})
	return llmtest.Calls(llmtest.Call{ID: id, Name: "script", Args: string(args)})
}

// lastMessage is the last message of the last request the model got: the
// script's result as the model saw it.
func lastMessage(srv *llmtest.Server) string {
	reqs := srv.Requests()
	msgs := reqs[len(reqs)-1].Messages
	return string(msgs[len(msgs)-1])
}

// children are the results the session recorded for the calls that call
// parent made on its own, in order.
func children(s *session.Session, parent string) []*session.ToolResult {
	var out []*session.ToolResult
	for _, ev := range s.Events {
		if r, ok := ev.Item.(*session.ToolResult); ok && r.Parent == parent {
			out = append(out, r)
		}
	}
	return out
}

// A script reads two files and runs a command in the sandbox: its result
// has all three; the session log on disk records the inner calls as
// children of the script's call, and the model's history holds only the
// script's call and result.
func TestScriptCallsToolsAsChildren(t *testing.T) {
	srv := llmtest.NewServer(t,
		scriptCall("s1", "for p in ['a.txt', 'b.txt']:\n    print(p, '=', read(path=p))\nprint(shell(cmd='echo ran-$((20+22))'))"),
		llmtest.Text("done"),
	)
	e, rec, ws := newEngine(t, srv, nil)
	if e.env.Sandbox == nil {
		t.Fatal("the sandbox is off; this test is about the default, sandboxed run")
	}
	for name, text := range map[string]string{"a.txt": "alpha\n", "b.txt": "beta\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	out, err := e.Prompt(context.Background(), protocol.Text("look"), nil)
	if err != nil || !out.OK() || out.Answer != "done" {
		t.Fatalf("%+v %v", out, err)
	}
	got := lastMessage(srv)
	for _, want := range []string{"a.txt = ", "alpha", "b.txt = ", "beta", "ran-42"} {
		if !strings.Contains(got, want) {
			t.Errorf("the script's result lacks %q: %s", want, got)
		}
	}
	s, err := session.NewStore(filepath.Join(ws, ".openseek")).Load(e.SessionID())
	if err != nil {
		t.Fatal(err)
	}
	kids := children(s, "s1")
	if len(kids) != 3 {
		t.Fatalf("%d child calls recorded, want 3: %+v", len(kids), kids)
	}
	for i, want := range []struct{ id, name, args string }{
		{"s1.1", "read", `{"path":"a.txt"}`}, {"s1.2", "read", `{"path":"b.txt"}`}, {"s1.3", "shell", `{"cmd":"echo ran-$((20+22))"}`},
	} {
		k := kids[i]
		if k.ToolCallID != want.id || k.ToolName != want.name || k.Arguments != want.args || k.IsError {
			t.Errorf("child %d = %+v, want %+v", i, k, want)
		}
	}
	if !strings.Contains(kids[2].Content.Text(), "ran-42") {
		t.Errorf("the command's result: %s", kids[2].Content.Text())
	}
	for _, m := range s.Messages() {
		if m.ToolCallID != "" && m.ToolCallID != "s1" {
			t.Errorf("the model's history holds an inner call: %+v", m)
		}
	}
	var started []string
	rec.mu.Lock()
	defer rec.mu.Unlock()
	for _, ev := range rec.evs {
		if st, ok := ev.(protocol.ToolStarted); ok {
			started = append(started, strings.TrimSuffix(st.ToolCallID+"<"+st.Parent, "<"))
		}
	}
	if strings.Join(started, " ") != "s1 s1.1<s1 s1.2<s1 s1.3<s1" {
		t.Errorf("tool_started events for %v", started)
	}
}

// In plan mode a write inside a script is refused as the model's own
// would be: the script gets the refusal as an error (check=False shows
// it, a plain call raises) and nothing is written.
func TestScriptObeysPlanMode(t *testing.T) {
	srv := llmtest.NewServer(t,
		scriptCall("s1", "r = write(path='x.txt', content='hi', check=False)\nprint('ok' if r.ok else 'refused: ' + r.text)\nwrite(path='y.txt', content='hi')\nprint('not reached')"),
		llmtest.Text("done"),
	)
	e, _, ws := newEngine(t, srv, func(o *testOptions) { o.Approval = "plan" })
	if out, err := e.Prompt(context.Background(), protocol.Text("write"), nil); err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	got := lastMessage(srv)
	for _, want := range []string{"refused: ", "plan", "line 3: write failed"} {
		if !strings.Contains(got, want) {
			t.Errorf("the script's result lacks %q: %s", want, got)
		}
	}
	if strings.Contains(got, "not reached") {
		t.Errorf("the script went on after a refused write: %s", got)
	}
	for _, name := range []string{"x.txt", "y.txt"} {
		if _, err := os.Stat(filepath.Join(ws, name)); err == nil {
			t.Errorf("plan mode: a script wrote %s", name)
		}
	}
	kids := children(e.Session(), "s1")
	if len(kids) != 2 || !kids[0].IsError || !kids[1].IsError {
		t.Errorf("children %+v, want two refused writes", kids)
	}
}

// A syntax error and a runaway loop are tool errors naming the line; the
// turn goes on to the model's next answer.
func TestScriptErrorsNameTheLine(t *testing.T) {
	tests := []struct{ name, code, want string }{
		{"syntax error", "print('a')\nif True print(1)", "error: syntax error at line 2, column"},
		{"runaway loop", "n = 0\nwhile True:\n    n += 1", "error: line 3: the script was stopped after 10000000 execution steps (an endless loop?)"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv := llmtest.NewServer(t, scriptCall("s1", tc.code), llmtest.Text("fixed it"))
			e, _, _ := newEngine(t, srv, nil)
			out, err := e.Prompt(context.Background(), protocol.Text("go"), nil)
			if err != nil || !out.OK() || out.Answer != "fixed it" {
				t.Fatalf("the turn did not go on: %+v %v", out, err)
			}
			if got := lastMessage(srv); !strings.Contains(got, tc.want) {
				t.Errorf("the model got %s, want %q", got, tc.want)
			}
		})
	}
}

// The user's PreToolUse hooks see the calls a script makes, and may
// refuse them, like the model's own.
func TestScriptCallsPassThePreToolUseHooks(t *testing.T) {
	home := t.TempDir()
	writeHooks(t, home, map[string]string{
		"PreToolUse": `if grep -Eq '"tool_name": ?"shell"'; then echo 'no shell in this project' >&2; exit 2; fi; exit 0`,
	})
	srv := llmtest.NewServer(t,
		scriptCall("s1", "r = shell(cmd='echo hi > hooked.txt', check=False)\nprint(r.ok, r.text)\nprint(list())"),
		llmtest.Text("done"),
	)
	e, _, ws := newEngine(t, srv, func(o *testOptions) { o.Home = home })
	if out, err := e.Prompt(context.Background(), protocol.Text("go"), nil); err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	got := lastMessage(srv)
	if !strings.Contains(got, "False error: a PreToolUse hook blocked this call: no shell in this project") {
		t.Errorf("the script's result: %s", got)
	}
	if _, err := os.Stat(filepath.Join(ws, "hooked.txt")); err == nil {
		t.Error("a command the hook refused ran")
	}
	if kids := children(e.Session(), "s1"); len(kids) != 2 || !kids[0].IsError || kids[1].IsError {
		t.Errorf("children %+v: want the refused shell and the list", kids)
	}
}

// The script tool is offered to every model by default; what it adds to
// the first request (its name, description and schema) stays under
// 1.5 KB, and --tools -script takes it out.
func TestScriptToolCostOfTheFirstRequest(t *testing.T) {
	first := func(tools string) llmtest.Request {
		srv := llmtest.NewServer(t, llmtest.Text("ok"))
		e, _, _ := newEngine(t, srv, func(o *testOptions) { o.Tools = tools })
		if _, err := e.Prompt(context.Background(), protocol.Text("hi"), nil); err != nil {
			t.Fatal(err)
		}
		return srv.Requests()[0]
	}
	with, without := first(""), first("-script")
	if !slices.Contains(with.Tools, "script") || slices.Contains(without.Tools, "script") {
		t.Fatalf("tools %v / with -script %v", with.Tools, without.Tools)
	}
	cost := len(with.Body) - len(without.Body)
	t.Logf("the script tool adds %d bytes to the first request (%d → %d)", cost, len(without.Body), len(with.Body))
	if cost > 1536 {
		t.Errorf("the script tool adds %d bytes to every request; keep it under 1.5 KB", cost)
	}
}

// Only the model ends its turn: finish called from a script is an error
// the script sees, and the turn goes on to the model's own answer.
func TestScriptCannotEndTheTurn(t *testing.T) {
	srv := llmtest.NewServer(t, scriptCall("s1", "r = finish(answer='from the script', check=False)\nprint(r.ok, r.text)"), llmtest.Text("the model's answer"))
	e, _, _ := newEngine(t, srv, nil)
	out, err := e.Prompt(context.Background(), protocol.Text("go"), nil)
	if err != nil || !out.OK() || out.Answer != "the model's answer" {
		t.Fatalf("%+v %v", out, err)
	}
	if got := lastMessage(srv); !strings.Contains(got, "False error: finish ends the turn, which a script cannot do") {
		t.Errorf("the script's result: %s", got)
	}
}
