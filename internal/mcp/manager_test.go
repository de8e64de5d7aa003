package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// recorder collects emitted events as their wire JSON.
type recorder struct {
	mu     sync.Mutex
	events []string
}

func (r *recorder) emit(e protocol.Event) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.events = append(r.events, string(protocol.Emit(e)))
}

func (r *recorder) all() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.events)
}

// has reports whether some event starts with prefix.
func (r *recorder) has(prefix string) bool {
	return slices.ContainsFunc(r.all(), func(e string) bool { return strings.HasPrefix(e, prefix) })
}

func start(t *testing.T, servers []Server, o Options) (*Manager, *recorder) {
	t.Helper()
	rec := &recorder{}
	o.Emit = rec.emit
	m := Start(context.Background(), servers, o)
	t.Cleanup(func() {
		if err := m.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	return m, rec
}

func toolNames(tools []tool.Tool) []string {
	names := make([]string, len(tools))
	for i, t := range tools {
		names[i] = t.Name
	}
	return names
}

func find(t *testing.T, m *Manager, name string) tool.Tool {
	t.Helper()
	for _, tl := range m.Tools() {
		if tl.Name == name {
			return tl
		}
	}
	t.Fatalf("no tool %s in %v", name, toolNames(m.Tools()))
	return tool.Tool{}
}

// longTool matches the helper's 64-character tool name, cut to fit with a
// hash of the full name.
var longTool = regexp.MustCompile(`^mcp__helper__(long)+lo_[0-9a-f]{8}$`)

func TestStartListsAndNames(t *testing.T) {
	var mu sync.Mutex
	var auth []string
	url := httpServer(t, func(h http.Header) {
		mu.Lock()
		auth = append(auth, h.Get("Authorization"))
		mu.Unlock()
	})
	servers := []Server{
		{Name: "web", URL: url, Headers: map[string]string{"Authorization": "Bearer t0k"}, Source: "cfg"},
		helperServer(t, "helper", "basic"),
	}
	m, rec := start(t, servers, Options{})

	names := toolNames(m.Tools())
	if !slices.IsSorted(names) {
		t.Errorf("tools not sorted: %v", names)
	}
	for _, want := range []string{"mcp__helper__echo", "mcp__helper__weird_name_", "mcp__web__add", "mcp__web__echo"} {
		if !slices.Contains(names, want) {
			t.Errorf("missing %s in %v", want, names)
		}
	}
	for _, n := range names {
		if len(n) > 64 || strings.IndexFunc(n, func(r rune) bool { return !validNameRune(r) }) >= 0 {
			t.Errorf("bad tool name %q", n)
		}
	}
	if !slices.ContainsFunc(names, func(n string) bool { return longTool.MatchString(n) && len(n) == 64 }) {
		t.Errorf("long tool name not cut to 64 with a hash: %v", names)
	}
	if !rec.has(`{"event":"mcp_tool_renamed","from":"mcp__helper__weird.name!","to":"mcp__helper__weird_name_"}`) {
		t.Errorf("no rename event: %v", rec.all())
	}
	evs := rec.all()
	last := evs[len(evs)-1]
	want := fmt.Sprintf(`{"event":"mcp_tools_registered","servers":2,"tools":%d,`, len(names))
	if !strings.HasPrefix(last, want) {
		t.Errorf("last event %s, want prefix %s", last, want)
	}

	echo := find(t, m, "mcp__web__echo")
	var schema map[string]any
	if err := json.Unmarshal(echo.Schema, &schema); err != nil {
		t.Fatal(err)
	}
	if _, ok := schema["$schema"]; ok || schema["type"] != "object" {
		t.Errorf("schema not tightened: %s", echo.Schema)
	}
	if echo.Description != "Echo text back." {
		t.Errorf("description %q", echo.Description)
	}
	res, err := echo.Run(context.Background(), nil, json.RawMessage(`{"text":"over http"}`))
	if err != nil || res.Content.Text() != "echo: over http" {
		t.Errorf("http echo = %q, %v", res.Content.Text(), err)
	}
	mu.Lock()
	if len(auth) == 0 || slices.ContainsFunc(auth, func(a string) bool { return a != "Bearer t0k" }) {
		t.Errorf("Authorization headers seen: %q", auth)
	}
	mu.Unlock()

	st := m.Status()
	if len(st) != 2 || st[0].Name != "helper" || st[0].State != Connected || st[1].Transport != "http" || st[1].Source != "cfg" {
		t.Fatalf("status = %+v", st)
	}
	if i := slices.IndexFunc(st[0].Tools, func(ti ToolInfo) bool { return ti.Remote == "weird.name!" }); i < 0 || st[0].Tools[i].Name != "mcp__helper__weird_name_" {
		t.Errorf("status tools = %+v", st[0].Tools)
	}
}

func TestCall(t *testing.T) {
	s := helperServer(t, "h", "basic", "FROM_CONFIG", "yes")
	m, _ := start(t, []Server{s}, Options{CallTimeout: 300 * time.Millisecond, MaxResultBytes: 100})
	tests := []struct {
		tool, args string
		wantText   string // prefix of the text
		wantError  bool
		argError   bool
		wantImage  bool
	}{
		{tool: "echo", args: `{"text":"hi"}`, wantText: "echo: hi"},
		{tool: "add", args: `{"a":2,"b":3.5}`, wantText: `{"sum":5.5}`},
		{tool: "fail", args: ``, wantText: "the widget is broken", wantError: true},
		{tool: "hang", args: `{}`, wantText: "error: MCP tool mcp__h__hang timed out after 300ms", wantError: true},
		{tool: "big", args: `{"n":1000}`, wantText: strings.Repeat("x", 100) + "\n[output truncated: 100 of 1000 bytes shown]"},
		{tool: "image", args: `{}`, wantText: "a dot", wantImage: true},
		{tool: "env", args: `{"name":"FROM_CONFIG"}`, wantText: "yes"},
		{tool: "env", args: `{"name":"HOME"}`, wantText: os.Getenv("HOME")},
		{tool: "echo", args: `{}`, wantText: "error: mcp__h__echo requires arguments.text", wantError: true, argError: true},
		{tool: "echo", args: `["hi"]`, wantText: "error: mcp__h__echo requires object arguments", wantError: true, argError: true},
		{tool: "echo", args: `{"text":`, wantText: "error: mcp__h__echo arguments are not valid JSON", wantError: true, argError: true},
		{tool: "echo", args: `{"text":7}`, wantText: "", wantError: true}, // the server's validation error
	}
	for _, tc := range tests {
		t.Run(tc.tool+tc.args, func(t *testing.T) {
			res, err := find(t, m, "mcp__h__"+tc.tool).Run(context.Background(), nil, json.RawMessage(tc.args))
			var ae *tool.ArgError
			if tc.argError != errors.As(err, &ae) || (!tc.argError && err != nil) {
				t.Fatalf("err = %v, want ArgError %v", err, tc.argError)
			}
			got := res.Content.Text()
			if res.IsError != tc.wantError || !strings.HasPrefix(got, tc.wantText) {
				t.Errorf("result = %q (error %v), want prefix %q (error %v)", got, res.IsError, tc.wantText, tc.wantError)
			}
			if tc.tool == "add" && strings.Count(got, "sum") != 1 {
				t.Errorf("structured content repeated: %q", got)
			}
			hasImage := slices.ContainsFunc(res.Content, func(p protocol.Part) bool {
				return p.Type == "image" && p.MediaType == "image/png" && len(p.Data) > 0
			})
			if hasImage != tc.wantImage {
				t.Errorf("image part = %v, want %v: %+v", hasImage, tc.wantImage, res.Content)
			}
		})
	}
	// The server still answers after a call that timed out.
	res, _ := find(t, m, "mcp__h__echo").Run(context.Background(), nil, json.RawMessage(`{"text":"still here"}`))
	if res.Content.Text() != "echo: still here" {
		t.Errorf("after timeout: %q", res.Content.Text())
	}
}

func TestCallCancelled(t *testing.T) {
	m, _ := start(t, []Server{helperServer(t, "h", "basic")}, Options{})
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(100*time.Millisecond, cancel)
	res, err := find(t, m, "mcp__h__hang").Run(ctx, nil, nil)
	if err != nil || !res.IsError || res.Content.Text() != "error: MCP tool mcp__h__hang cancelled" {
		t.Errorf("cancelled call = %q, %v", res.Content.Text(), err)
	}
}

func TestStartFailures(t *testing.T) {
	servers := []Server{
		helperServer(t, "bad", "exit"),
		helperServer(t, "empty", "notools"),
		helperServer(t, "good", "basic"),
		{Name: "missing", Command: "openseek-no-such-mcp-server"},
		helperServer(t, "nolist", "hanglist"),
		{Name: "refused", URL: "http://127.0.0.1:1/mcp"},
	}
	m, rec := start(t, servers, Options{ConnectTimeout: 20 * time.Second, ListTimeout: 500 * time.Millisecond})
	evs := rec.all()
	wantPrefixes := []string{
		`{"event":"mcp_connect_failed","server":"bad","error":"`,
		`{"event":"mcp_no_tools","server":"empty"}`,
		`{"event":"mcp_connect_failed","server":"missing","error":"`,
		`{"event":"mcp_list_tools_timeout","server":"nolist"}`,
		`{"event":"mcp_connect_failed","server":"refused","error":"`,
		`{"event":"mcp_tools_registered","servers":1,`,
	}
	var got []string
	for _, e := range evs {
		if !strings.HasPrefix(e, `{"event":"mcp_tool_renamed"`) {
			got = append(got, e)
		}
	}
	if len(got) != len(wantPrefixes) {
		t.Fatalf("events:\n%s", strings.Join(evs, "\n"))
	}
	for i, w := range wantPrefixes {
		if !strings.HasPrefix(got[i], w) {
			t.Errorf("event %d = %s, want prefix %s", i, got[i], w)
		}
	}
	if !strings.Contains(got[0], "API token missing") {
		t.Errorf("connect failure does not quote stderr: %s", got[0])
	}
	if !strings.Contains(got[2], "executable file not found") {
		t.Errorf("missing command: %s", got[2])
	}
	for _, n := range toolNames(m.Tools()) {
		if !strings.HasPrefix(n, "mcp__good__") {
			t.Errorf("tool %s from a failed server", n)
		}
	}
	states := map[string]State{}
	for _, s := range m.Status() {
		states[s.Name] = s.State
		if s.State == Failed && s.Error == "" {
			t.Errorf("%s failed without an error", s.Name)
		}
	}
	want := map[string]State{"bad": Failed, "empty": Connected, "good": Connected, "missing": Failed, "nolist": Failed, "refused": Failed}
	for k, v := range want {
		if states[k] != v {
			t.Errorf("state of %s = %s, want %s", k, states[k], v)
		}
	}
}

func TestConnectTimeout(t *testing.T) {
	servers := []Server{helperServer(t, "slow", "hanginit")}
	m, rec := start(t, servers, Options{ConnectTimeout: 500 * time.Millisecond})
	want := []string{
		`{"event":"mcp_connect_failed","server":"slow","error":"no answer to initialize within 500ms"}`,
		`{"event":"mcp_tools_registered","servers":0,"tools":0,"names":[]}`,
	}
	if got := rec.all(); !slices.Equal(got, want) {
		t.Errorf("events:\n%s", strings.Join(got, "\n"))
	}
	if st := m.Status(); st[0].State != Failed {
		t.Errorf("status %+v", st)
	}
}

func TestCaps(t *testing.T) {
	servers := []Server{
		helperServer(t, "a", "many"),
		helperServer(t, "b", "many"),
		helperServer(t, "c", "many"),
		helperServer(t, "d", "dups"),
	}
	m, rec := start(t, servers, Options{MaxToolsPerServer: 4, MaxTools: 6})
	want := []string{
		`{"event":"mcp_tools_capped","server":"a","kept":4}`,
		`{"event":"mcp_tools_capped","server":"b","kept":2}`,
		`{"event":"mcp_server_skipped_over_cap","server":"c"}`,
		`{"event":"mcp_server_skipped_over_cap","server":"d"}`,
		`{"event":"mcp_tools_registered","servers":2,"tools":6,"names":["mcp__a__t00","mcp__a__t01","mcp__a__t02","mcp__a__t03","mcp__b__t00","mcp__b__t01"]}`,
	}
	if got := rec.all(); !slices.Equal(got, want) {
		t.Errorf("events:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if len(m.Tools()) != 6 {
		t.Errorf("tools = %v", toolNames(m.Tools()))
	}
}

func TestDuplicateTool(t *testing.T) {
	m, rec := start(t, []Server{helperServer(t, "d", "dups")}, Options{})
	if !rec.has(`{"event":"mcp_tool_duplicate","server":"d","tool":"add"}`) {
		t.Errorf("events: %v", rec.all())
	}
	if n := strings.Count(strings.Join(toolNames(m.Tools()), ","), "mcp__d__add"); n != 1 {
		t.Errorf("add registered %d times", n)
	}
}

func TestCrashedServer(t *testing.T) {
	m, _ := start(t, []Server{helperServer(t, "h", "basic")}, Options{CallTimeout: 5 * time.Second})
	res, err := find(t, m, "mcp__h__crash").Run(context.Background(), nil, nil)
	if err != nil || !res.IsError || !strings.HasPrefix(res.Content.Text(), "error: MCP tool mcp__h__crash failed") {
		t.Fatalf("crash call = %q, %v", res.Content.Text(), err)
	}
	res, _ = find(t, m, "mcp__h__echo").Run(context.Background(), nil, json.RawMessage(`{"text":"x"}`))
	if !res.IsError || !strings.Contains(res.Content.Text(), "not running") {
		t.Errorf("call after crash = %q", res.Content.Text())
	}
	if st := m.Status()[0]; st.State != Failed || !strings.Contains(st.Error, "crashed on purpose") {
		t.Errorf("status after crash = %+v", st)
	}
}

func TestCloseStopsProcesses(t *testing.T) {
	pidfile := filepath.Join(t.TempDir(), "pids")
	m := Start(context.Background(), []Server{helperServer(t, "g", "grandchild", "PIDFILE", pidfile)}, Options{})
	data, err := os.ReadFile(pidfile)
	if err != nil {
		m.Close()
		t.Fatalf("helper did not start: %v (%+v)", err, m.Status())
	}
	var pids []int
	for _, f := range strings.Fields(string(data)) {
		pid, _ := strconv.Atoi(f)
		pids = append(pids, pid)
	}
	for _, pid := range pids {
		if !alive(pid) {
			t.Fatalf("pid %d not running before Close", pid)
		}
	}
	if err := m.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	for _, pid := range pids {
		// The grandchild is reparented and may take a moment to be reaped.
		deadline := time.Now().Add(5 * time.Second)
		for alive(pid) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
		}
		if alive(pid) {
			t.Errorf("pid %d still running after Close", pid)
		}
	}
	res, _ := find(t, m, "mcp__g__echo").Run(context.Background(), nil, json.RawMessage(`{"text":"x"}`))
	if !res.IsError {
		t.Errorf("call after Close = %q, want an error result", res.Content.Text())
	}
	if err := m.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

// alive reports whether pid runs (a zombie counts as gone).
func alive(pid int) bool {
	if syscall.Kill(pid, 0) != nil {
		return false
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return true
	}
	if i := strings.LastIndexByte(string(stat), ')'); i > 0 && i+2 < len(stat) {
		return stat[i+2] != 'Z'
	}
	return true
}

func TestStartNoServers(t *testing.T) {
	m, rec := start(t, nil, Options{})
	if len(m.Tools()) != 0 || len(m.Status()) != 0 || len(rec.all()) != 0 {
		t.Errorf("empty start: tools %v status %v events %v", m.Tools(), m.Status(), rec.all())
	}
}

// BenchmarkCall is one echo call through the registry tool to a stdio
// server (the helper), argument check and result conversion included.
func BenchmarkCall(b *testing.B) {
	exe, err := os.Executable()
	if err != nil {
		b.Fatal(err)
	}
	s := Server{Name: "h", Command: exe, Args: []string{"-test.run=^$"}, Env: map[string]string{helperEnv: "basic", "GORACE": "atexit_sleep_ms=0"}}
	m := Start(context.Background(), []Server{s}, Options{})
	defer m.Close()
	var echo tool.Tool
	for _, tl := range m.Tools() {
		if tl.Name == "mcp__h__echo" {
			echo = tl
		}
	}
	if echo.Run == nil {
		b.Fatalf("no echo tool: %+v", m.Status())
	}
	args := json.RawMessage(`{"text":"benchmark"}`)
	b.ReportAllocs()
	for b.Loop() {
		if res, err := echo.Run(context.Background(), nil, args); err != nil || res.IsError {
			b.Fatalf("%v %q", err, res.Content.Text())
		}
	}
}
