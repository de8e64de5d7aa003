package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"
	"github.com/charmbracelet/x/exp/teatest/v2"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// scripted is a Backend whose session plays the events a test feeds it
// and records the commands the UI sends.
type scripted struct {
	mu   sync.Mutex
	cmds []protocol.Command
	evs  chan []protocol.Event
	hist *session.Session
	// opens are the sessions the UI opened, in order.
	opens []OpenRequest
}

func newScripted() *scripted { return &scripted{evs: make(chan []protocol.Event, 16)} }

func (s *scripted) Open(_ context.Context, req OpenRequest) (Conn, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.opens = append(s.opens, req)
	return s, nil
}
func (s *scripted) Sessions(context.Context) ([]engine.SessionInfo, error) {
	return []engine.SessionInfo{{ID: "s1"}, {ID: "s2"}}, nil
}
func (s *scripted) SetsApproval() bool        { return true }
func (s *scripted) Close() error              { return nil }
func (s *scripted) ID() string                { return "s1" }
func (s *scripted) Model() string             { return "test/model" }
func (s *scripted) Window() int               { return 100000 }
func (s *scripted) History() *session.Session { return s.hist }
func (s *scripted) Next(ctx context.Context) ([]protocol.Event, error) {
	select {
	case e := <-s.evs:
		return e, nil
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
func (s *scripted) Apply(_ context.Context, c protocol.Command) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if a, ok := c.(protocol.ApprovalCmd); ok && a.ID == "gone" {
		return errors.New("approval gone was already answered")
	}
	s.cmds = append(s.cmds, c)
	return nil
}
func (s *scripted) commands() []protocol.Command {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]protocol.Command(nil), s.cmds...)
}

var epoch = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

func newModel(t testing.TB, b *scripted) *Model {
	m := New(context.Background(), b, b, Options{NoColor: true, Approval: "ask", Workspace: "/home/dev/project", Now: func() time.Time { return epoch }})
	m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
	return m
}

func screen(m *Model) string {
	lines := strings.Split(ansi.Strip(m.render()), "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " ")
	}
	return strings.Join(lines, "\n") + "\n"
}

func press(m *Model, keys ...string) {
	for _, k := range keys {
		if msg, ok := specialKey(k); ok {
			m.Update(msg)
			continue
		}
		for _, r := range k {
			m.Update(tea.KeyPressMsg{Code: r, Text: string(r)})
		}
	}
}

// keyMsg is the press of one named key.
func keyMsg(k string) tea.KeyPressMsg {
	msg, _ := specialKey(k)
	return msg
}

func specialKey(k string) (tea.KeyPressMsg, bool) {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}, true
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}, true
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}, true
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}, true
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}, true
	case "ctrl+c":
		return tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}, true
	case "alt+enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter, Mod: tea.ModAlt}, true
	}
	return tea.KeyPressMsg{}, false
}

func feed(m *Model, evs ...protocol.Event) {
	m.Update(eventsMsg{gen: m.gen, evs: evs})
}

func str(s string) *string { return &s }

// Golden screens at 80x24 without colour: go test -update rewrites them.
func TestScreens(t *testing.T) {
	diff := "--- a/main.go\n+++ b/main.go\n@@ -1,3 +1,3 @@\n package main\n-func old() {}\n+func new() {}\n"
	cases := []struct {
		name  string
		keys  []string
		evs   []protocol.Event
		hist  *session.Session
		width int // resized to this after the events
	}{
		{name: "first_screen"},
		{name: "slash_menu", keys: []string{"/"}},
		{name: "slash_menu_filtered", keys: []string{"/o", "down"}},
		{name: "slash_menu_tab", keys: []string{"/go", "tab"}},
		{name: "streaming", keys: []string{"explain", "enter"}, evs: []protocol.Event{
			protocol.AgentStep{Step: 1},
			protocol.ReasoningDelta{Content: "The user wants an explanation.\nLet me think."},
			protocol.AssistantDelta{Content: "# Title\n\nA first paragraph with **bold** text.\n\n```go\nfunc main() {\n"},
			protocol.AssistantDelta{Content: "\tprintln(1)\n}\n```\n\nAnd a growing ta"},
		}},
		{name: "tools", keys: []string{"fix it", "enter"}, evs: []protocol.Event{
			protocol.ToolStarted{ToolCallID: "c1", ToolName: "shell", Arguments: `{"cmd":"go test ./..."}`},
			protocol.ToolResult{ToolCallID: "c1", ToolName: "shell", IsError: true, Content: "line 1\nline 2\nline 3\nline 4\nline 5"},
			protocol.ToolStarted{ToolCallID: "c2", ToolName: "edit", Arguments: `{"path":"main.go","old":"a","new":"b"}`},
			protocol.ToolResult{ToolCallID: "c2", ToolName: "edit", Content: "edited", Diff: &diff},
			protocol.ToolStarted{ToolCallID: "c3", ToolName: "read", Arguments: `{"path":"README.md"}`},
		}},
		{name: "script", keys: []string{"check both", "enter"}, evs: []protocol.Event{
			protocol.ToolStarted{ToolCallID: "s1", ToolName: "script", Arguments: `{"code":"print(read(path='a.go'))"}`},
			protocol.ToolStarted{ToolCallID: "s1.1", ToolName: "read", Arguments: `{"path":"a.go"}`, Parent: "s1"},
			protocol.ToolResult{ToolCallID: "s1.1", ToolName: "read", Content: "package a\n\nfunc A() {}\nfunc B() {}"},
			protocol.ToolStarted{ToolCallID: "s1.2", ToolName: "shell", Arguments: `{"cmd":"go vet ./..."}`, Parent: "s1"},
		}},
		{name: "script_resumed", hist: &session.Session{ID: "old", Events: []session.Event{
			{Sequence: 1, Item: &session.User{Content: protocol.Text("check both")}},
			{Sequence: 2, Item: &session.Assistant{ToolCalls: []chatCall{{ID: "s1", Name: "script", Arguments: `{"code":"print(read(path='a.go'))"}`}}}},
			{Sequence: 3, Item: &session.ToolResult{ToolCallID: "s1.1", ToolName: "read", Content: protocol.Text("package a"), Parent: "s1", Arguments: `{"path":"a.go"}`}},
			{Sequence: 4, Item: &session.ToolResult{ToolCallID: "s1.2", ToolName: "shell", Content: protocol.Text("vet: bad\n<system>exit=1</system>"), IsError: true, Parent: "s1", Arguments: `{"cmd":"go vet ./..."}`}},
			{Sequence: 5, Item: &session.ToolResult{ToolCallID: "s1", ToolName: "script", Content: protocol.Text("package a\nerror: line 2: shell failed: vet: bad"), IsError: true}},
			{Sequence: 6, Item: &session.Terminal{Kind: session.Finished}},
		}}},
		{name: "approval", keys: []string{"touch it", "enter"}, evs: []protocol.Event{
			protocol.ApprovalRequested{ID: "ap-1", ToolName: "shell", Detail: "touch x (not known to be safe)", Body: str("touch x"), Prefixes: []string{"touch"}},
		}},
		{name: "steer_and_status", keys: []string{"go", "enter", "also this", "enter"}, evs: []protocol.Event{
			protocol.UsageEvent{Usage: protocol.Usage{PromptTokens: 25000, CompletionTokens: 500, PromptCacheHitTokens: 20000, PromptCacheMissTokens: 5000}},
			protocol.JobChanged{Kind: "started", Job: protocol.JobRecord{Generation: "g1", ID: "bg-1", State: protocol.JobState{Kind: protocol.JobStateRunning}}},
			protocol.McpConnectFailed{Server: "gh", Error: "exec: not found"},
		}},
		{name: "resumed", hist: &session.Session{ID: "old", Events: []session.Event{
			{Sequence: 1, Item: &session.User{Content: protocol.Text("what is here?")}},
			{Sequence: 2, Item: &session.Assistant{Reasoning: str("look"), ToolCalls: []chatCall{{ID: "c1", Name: "shell", Arguments: `{"cmd":"ls"}`}}}},
			{Sequence: 3, Item: &session.ToolResult{ToolCallID: "c1", ToolName: "shell", Content: protocol.Text("a.go\nb.go")}},
			{Sequence: 4, Item: &session.Assistant{Content: "Two Go files: `a.go` and `b.go`."}},
			{Sequence: 5, Item: &session.Terminal{Kind: session.Finished}},
		}}},
		{name: "no_internals", hist: &session.Session{ID: "old", Events: []session.Event{
			{Sequence: 1, Item: &session.Notice{Content: session.SnapshotMarkerFor("3f2a9c1d0e", 1)}},
			{Sequence: 2, Item: &session.User{Content: protocol.Text("build it")}},
			{Sequence: 3, Item: &session.Assistant{ToolCalls: []chatCall{{ID: "c1", Name: "shell", Arguments: `{"cmd":"make"}`}}}},
			{Sequence: 4, Item: &session.ToolResult{ToolCallID: "c1", ToolName: "shell", Content: protocol.Text("cc main.c\n[… 900 characters omitted …]\ndone\n<system>exit=0 truncated=true shown_chars=12000 total_chars=12900</system>")}},
			{Sequence: 5, Item: &session.Terminal{Kind: session.Finished}},
		}}, keys: []string{"again", "enter"}, evs: []protocol.Event{
			protocol.BackgroundNotice{Content: "[api-url] http://127.0.0.1:1 is a base URL; requests go to http://127.0.0.1:1/chat/completions"},
			protocol.ToolStarted{ToolCallID: "c2", ToolName: "shell", Arguments: `{"cmd":"make test"}`},
			protocol.ToolResult{ToolCallID: "c2", ToolName: "shell", IsError: true, Content: "FAIL\n<system>exit=2</system>"},
			protocol.BackgroundNotice{Content: "[api-url] http://127.0.0.1:1 is a base URL; requests go to http://127.0.0.1:1/chat/completions"},
		}},
		{name: "model_error", keys: []string{"go", "enter"}, evs: []protocol.Event{
			protocol.StreamRetry{Attempt: 2, MaxAttempts: 4, Reason: "HTTP 503"},
			protocol.TurnFailed{Error: "HTTP 401: invalid api key"},
			protocol.TurnSummary{Outcome: "failed"},
		}},
		{name: "narrow_rewrap", keys: []string{"a long question that will have to wrap on a narrow terminal screen", "enter"}, evs: []protocol.Event{
			protocol.AssistantMessage{Content: "A long answer paragraph that wraps again when the terminal is resized to a narrower width."},
		}, width: 50},
		{name: "finished_turn", keys: []string{"hi", "enter"}, evs: []protocol.Event{
			protocol.AssistantDelta{Content: "Hello!"},
			protocol.AssistantMessage{Content: "Hello!"},
			protocol.AgentFinished{Answer: "Hello!"},
			protocol.TurnSummary{Session: "s1", Outcome: "finished", DurationMs: 1500, Steps: 1, CostUSD: func() *float64 { c := 0.0012; return &c }()},
		}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newScripted()
			b.hist = c.hist
			m := newModel(t, b)
			press(m, c.keys...)
			feed(m, c.evs...)
			if c.width > 0 {
				screen(m) // rendered at 80 first: the resize must re-wrap
				m.Update(tea.WindowSizeMsg{Width: c.width, Height: 24})
			}
			golden.RequireEqual(t, screen(m))
		})
	}
}

func TestCommandsFromKeys(t *testing.T) {
	cases := []struct {
		name  string
		setup []protocol.Event
		keys  []string
		want  []string // the commands sent, as wire lines
	}{
		{"prompt", nil, []string{"hello", "enter"}, []string{`{"command":"prompt","content":"hello"}`}},
		{"multi-line", nil, []string{"a", "alt+enter", "b", "enter"}, []string{`{"command":"prompt","content":"a\nb"}`}},
		{"steer while busy", []protocol.Event{protocol.AgentStep{Step: 1}}, []string{"more", "enter"},
			[]string{`{"command":"steer","kind":"prompt","content":"more","submission_id":"tui-steer-1"}`}},
		{"esc cancels", []protocol.Event{protocol.AgentStep{Step: 1}}, []string{"esc"}, []string{`{"command":"cancel"}`}},
		{"esc idle does nothing", nil, []string{"esc"}, nil},
		{"ctrl-c interrupts a turn", []protocol.Event{protocol.AgentStep{Step: 1}}, []string{"ctrl+c"}, []string{`{"command":"cancel"}`}},
		{"ctrl-c interrupts a turn waiting for approval", []protocol.Event{protocol.AgentStep{Step: 1}, protocol.ApprovalRequested{ID: "ap-1", ToolName: "shell", Detail: "x"}},
			[]string{"ctrl+c"}, []string{`{"command":"cancel"}`}},
		{"esc denies the approval", []protocol.Event{protocol.AgentStep{Step: 1}, protocol.ApprovalRequested{ID: "ap-1", ToolName: "shell", Detail: "x"}},
			[]string{"esc"}, []string{`{"command":"approval","id":"ap-1","allow":false}`}},
		{"esc while denying denies without a reason", []protocol.Event{protocol.AgentStep{Step: 1}, protocol.ApprovalRequested{ID: "ap-1", ToolName: "shell", Detail: "x"}},
			[]string{"n", "esc"}, []string{`{"command":"approval","id":"ap-1","allow":false}`}},
		{"menu enter runs the chosen command", nil, []string{"/comp", "enter"}, []string{`{"command":"compact"}`}},
		{"menu enter completes a partial name", nil, []string{"/j", "enter"}, []string{`{"command":"jobs_snapshot","request_id":"tui-jobs"}`}},
		{"menu down chooses", nil, []string{"/", "down", "enter"}, []string{`{"command":"compact"}`}},
		{"menu tab completes", nil, []string{"/goa", "tab", "ship", "enter"}, []string{`{"command":"goal","action":"set","text":"ship"}`}},
		{"esc hides the menu, enter sends what was typed", nil, []string{"/comp", "esc", "enter"}, nil},
		{"allow once", []protocol.Event{protocol.ApprovalRequested{ID: "ap-1", ToolName: "shell", Detail: "x"}}, []string{"y"},
			[]string{`{"command":"approval","id":"ap-1","allow":true}`}},
		{"allow for the session", []protocol.Event{protocol.ApprovalRequested{ID: "ap-1", ToolName: "shell", Detail: "x"}}, []string{"a"},
			[]string{`{"command":"approval","id":"ap-1","allow":true,"remember":true}`}},
		{"deny with a reason", []protocol.Event{protocol.AgentStep{Step: 1}, protocol.ApprovalRequested{ID: "ap-1", ToolName: "shell", Detail: "rm -rf x"}},
			[]string{"n", "keep x", "enter"}, []string{`{"command":"approval","id":"ap-1","allow":false,"reason":"keep x"}`}},
		{"compact", nil, []string{"/compact", "enter"}, []string{`{"command":"compact"}`}},
		{"goal", nil, []string{"/goal ship it", "enter"}, []string{`{"command":"goal","action":"set","text":"ship it"}`}},
		{"goal clear", nil, []string{"/goal clear", "enter"}, []string{`{"command":"goal","action":"clear"}`}},
		{"jobs", nil, []string{"/jobs", "enter"}, []string{`{"command":"jobs_snapshot","request_id":"tui-jobs"}`}},
		{"network list", nil, []string{"/network", "enter"}, []string{`{"command":"network_allow"}`}},
		{"network allow", nil, []string{"/network *.example.com:443", "enter"}, []string{`{"command":"network_allow","host":"*.example.com:443"}`}},
		{"job stop", []protocol.Event{protocol.JobChanged{Job: protocol.JobRecord{Generation: "g7", ID: "bg-1", State: protocol.JobState{Kind: "running"}}}},
			[]string{"/jobs stop bg-1", "enter"}, []string{`{"command":"job_stop","request_id":"tui-stop","generation":"g7","job_id":"bg-1"}`}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b := newScripted()
			m := newModel(t, b)
			feed(m, c.setup...)
			press(m, c.keys...)
			var got []string
			for _, cmd := range b.commands() {
				got = append(got, strings.TrimSpace(string(protocol.EmitCommand(cmd))))
			}
			if strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("commands:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
}

func TestSteerPendingUntilApplied(t *testing.T) {
	b := newScripted()
	m := newModel(t, b)
	feed(m, protocol.AgentStep{Step: 1})
	press(m, "wait", "enter")
	if !strings.Contains(screen(m), "pending steer: wait") {
		t.Fatalf("no pending steer:\n%s", screen(m))
	}
	feed(m, protocol.SteerApplied{Kind: "prompt", Content: protocol.Text("wait"), SubmissionID: str("tui-steer-1")})
	if s := screen(m); strings.Contains(s, "pending steer") || !strings.Contains(s, "↳ wait") {
		t.Errorf("steer not applied on screen:\n%s", s)
	}
	// A steer the turn missed becomes the next prompt.
	press(m, "late", "enter")
	feed(m, protocol.SteerDropped{Content: protocol.Text("late"), SubmissionID: str("tui-steer-2")})
	cmds := b.commands()
	if p, ok := cmds[len(cmds)-1].(protocol.PromptCmd); !ok || contentText(p.Content) != "late" {
		t.Errorf("a dropped steer was not resent as a prompt: %#v", cmds[len(cmds)-1])
	}
}

func TestInputHistoryPasteAndQuit(t *testing.T) {
	b := newScripted()
	m := newModel(t, b)
	press(m, "first", "enter")
	feed(m, protocol.TurnSummary{Outcome: "finished"})
	press(m, "up")
	if v := m.input.Value(); v != "first" {
		t.Errorf("history recall = %q", v)
	}
	m.input.Reset()
	big := strings.Repeat("0123456789\n", 5000)
	m.Update(tea.PasteMsg{Content: big})
	if v := m.input.Value(); !strings.HasPrefix(v, "[paste #1: 5001 lines") {
		t.Errorf("a large paste was not folded: %.60q", v)
	}
	press(m, "enter")
	cmds := b.commands()
	if p, ok := cmds[len(cmds)-1].(protocol.PromptCmd); !ok || contentText(p.Content) != strings.TrimSpace(big) {
		t.Errorf("the paste was not sent whole")
	}
	feed(m, protocol.TurnSummary{Outcome: "finished"})
	_, cmd := m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if cmd != nil || !strings.Contains(screen(m), "Press Ctrl-C again") {
		t.Fatalf("first Ctrl-C should only warn")
	}
	_, cmd = m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	if cmd == nil || fmt.Sprint(cmd()) != fmt.Sprint(tea.Quit()) {
		t.Errorf("second Ctrl-C did not quit")
	}
}

// Ctrl-C during a turn interrupts it and keeps the UI: no quit is armed,
// however often it is pressed; once the turn is over, twice quits.
func TestCtrlCInterruptsTheTurn(t *testing.T) {
	b := newScripted()
	m := newModel(t, b)
	press(m, "work", "enter")
	for range 3 {
		if _, cmd := m.Update(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}); cmd != nil {
			t.Fatalf("Ctrl-C during a turn returned a command (%v)", cmd())
		}
	}
	if s := screen(m); strings.Contains(s, "Press Ctrl-C again") || !strings.Contains(s, "interrupting the turn") {
		t.Fatalf("Ctrl-C during a turn should interrupt, not arm quitting:\n%s", s)
	}
	feed(m, protocol.AgentAborted{Reason: "cancelled"}, protocol.TurnSummary{Outcome: "cancelled"})
	press(m, "ctrl+c")
	if m.quit || !strings.Contains(screen(m), "Press Ctrl-C again") {
		t.Fatalf("the first idle Ctrl-C should warn:\n%s", screen(m))
	}
	press(m, "ctrl+c")
	if !m.quit {
		t.Fatalf("the second idle Ctrl-C did not quit")
	}
}

func TestRefusalsAndLostStreamAreShown(t *testing.T) {
	b := newScripted()
	m := newModel(t, b)
	feed(m, protocol.ApprovalRequested{ID: "gone", ToolName: "shell", Detail: "x"})
	press(m, "y")
	m.Update(eventsMsg{gen: m.gen, err: errors.New("lost the server at http://127.0.0.1:1: EOF")})
	s := screen(m)
	for _, want := range []string{"approval refused: approval gone was already answered", "event stream ended: lost the server", "/new or /sessions"} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q:\n%s", want, s)
		}
	}
}

// The whole program under Bubble Tea's test driver: type, see the
// answer stream in, quit with Ctrl-C twice.
func TestProgram(t *testing.T) {
	b := newScripted()
	m := New(context.Background(), b, b, Options{NoColor: true, Now: func() time.Time { return epoch }})
	tm := teatest.NewTestModel(t, m, teatest.WithInitialTermSize(80, 24))
	tm.Type("say hi")
	tm.Send(tea.KeyPressMsg{Code: tea.KeyEnter})
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("say hi")) }, teatest.WithDuration(10*time.Second))
	b.evs <- []protocol.Event{protocol.AssistantDelta{Content: "Hi **there**"}, protocol.AssistantMessage{Content: "Hi **there**"},
		protocol.TurnSummary{Outcome: "finished", Steps: 1}}
	teatest.WaitFor(t, tm.Output(), func(b []byte) bool { return bytes.Contains(b, []byte("there")) }, teatest.WithDuration(10*time.Second))
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.Send(tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl})
	tm.WaitFinished(t, teatest.WithFinalTimeout(10*time.Second))
	if p, ok := b.commands()[0].(protocol.PromptCmd); !ok || contentText(p.Content) != "say hi" {
		t.Errorf("commands %#v", b.commands())
	}
}

func TestBrief(t *testing.T) {
	briefs := map[string]string{
		`{"cmd":"ls -la\nmore"}`:    "ls -la …",
		`{"path":"a.go","old":"x"}`: "a.go",
		`{"zeta":"z","alpha":"a"}`:  "a",
		`not json`:                  "not json",
	}
	for args, want := range briefs {
		if got := briefOf(args); got != want {
			t.Errorf("briefOf(%s) = %q, want %q", args, got, want)
		}
	}
}

// Colours follow NO_COLOR: none at all without them, some with them.
func TestNoColor(t *testing.T) {
	for _, noColor := range []bool{true, false} {
		b := newScripted()
		m := New(context.Background(), b, b, Options{NoColor: noColor, Now: func() time.Time { return epoch }})
		m.Update(tea.WindowSizeMsg{Width: 80, Height: 24})
		press(m, "hi", "enter")
		feed(m, protocol.AssistantMessage{Content: "# Head\n\n```go\nfunc main() {}\n```\n"},
			protocol.McpNoTools{Server: "x"}, protocol.TurnSummary{Outcome: "finished"})
		// The input's cursor is drawn in reverse video, which is no colour.
		out := strings.NewReplacer("\x1b[7m", "", "\x1b[m", "").Replace(m.render())
		if has := strings.Contains(out, "\x1b["); has == noColor {
			t.Errorf("NO_COLOR=%v: escape sequences present = %v", noColor, has)
		}
	}
}

// On quit, Run prints how to resume the session shown last, after the
// program has left the terminal.
func TestRunPrintsResumeHint(t *testing.T) {
	b := newScripted()
	inR, inW := io.Pipe()
	var out syncBuffer
	done := make(chan error, 1)
	go func() {
		done <- Run(context.Background(), b, Options{NoColor: true, ResumeHint: func(id string) string { return "openseek --session " + id }}, inR, &out)
	}()
	// Without a terminal the program draws nothing; the keys still reach
	// it (the pipe holds them until it reads).
	go inW.Write([]byte("\x03\x03"))
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	inW.Close()
	s := out.String()
	if !strings.HasSuffix(s, "Resume this session: openseek --session s1\n") {
		t.Errorf("the output does not end with the resume hint:\n%q", s[max(len(s)-300, 0):])
	}
}

type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}
