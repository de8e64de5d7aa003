package main

import (
	"bytes"
	"encoding/json"
	"github.com/openseek/openseek/internal/e2etest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

// The real ACP client library from the npm registry, pinned. CI
// pre-installs it with `npm install --prefix $XDG_CACHE_HOME/openseek-test/acp
// @agentclientprotocol/sdk@2.4.0` (or ~/.cache/...); the test installs it
// itself when missing.
const (
	acpSDKPkg     = "@agentclientprotocol/sdk"
	acpSDKVersion = "2.4.0"
)

// acpSDK returns the SDK's entry file, installing the pinned version into
// the test cache when it is missing. No node or no npm registry fails the
// test: the real client is what the ACP server promises to work with.
func acpSDK(t *testing.T) string {
	t.Helper()
	return e2etest.NPM(t, "acp", acpSDKPkg, acpSDKVersion, "dist/v1/stable/acp.js")
}

// acpReport is what testdata/acp_client.mjs prints.
type acpReport struct {
	Init struct {
		AgentCapabilities struct {
			LoadSession        bool
			PromptCapabilities struct{ Image, EmbeddedContext bool }
		}
	}
	SessionID      string
	TurnStop       string
	CancelStop     string
	UnknownSession string
	Updates        map[string][]acpUpdate
	Asked          []struct {
		ToolCall struct {
			ToolCallID string
			Kind       string
			Title      string
		}
		Options []struct{ OptionID, Kind, Name string }
	}
	Error    string
	ExitCode *int
}

type acpUpdate struct {
	SessionUpdate string
	Content       json.RawMessage // a content block, or a tool call's content list
	ToolCallID    string
	Kind          string
	Title         string
	Status        string
	Entries       []struct{ Content, Status string }
	Used, Size    int // usage_update: the context meter
}

// text joins the text of the updates of kind.
func acpText(us []acpUpdate, kind string) string {
	var b strings.Builder
	for _, u := range us {
		var c struct{ Text string }
		if u.SessionUpdate == kind && json.Unmarshal(u.Content, &c) == nil {
			b.WriteString(c.Text)
		}
	}
	return b.String()
}

// acpSeq names the updates in order, leaving out the context meter's
// (one per model response).
func acpSeq(us []acpUpdate) string {
	var out []string
	for _, u := range us {
		k := u.SessionUpdate
		switch k {
		case "usage_update":
			continue
		case "tool_call":
			k += ":" + u.Kind
		case "tool_call_update":
			k += ":" + u.Status
		}
		if n := len(out); n > 0 && out[n-1] == k && strings.HasSuffix(k, "_chunk") {
			continue
		}
		out = append(out, k)
	}
	return strings.Join(out, " ")
}

// `openseek acp` against the npm ACP client: initialize, a new session,
// a prompt streaming thoughts, an edit with its diff, a command the
// sandbox contains run unasked (the default, auto), one that needs the
// network asked about (naming what "for this session" covers) and
// allowed, the answer; a cancelled turn; an error that keeps
// the connection; the session loaded and replayed.
func TestACPWithTheNpmClient(t *testing.T) {
	t.Parallel()
	sdkEntry := acpSDK(t)
	ws := t.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello world\n"), 0o644)
	srv := llmtest.NewServer(t,
		llmtest.Reply{Reasoning: "two steps", Calls: []llmtest.Call{
			{ID: "e1", Name: "edit", Args: `{"path":"a.txt","old_string":"world","new_string":"editor"}`},
		}},
		llmtest.Calls(llmtest.Call{ID: "s1", Name: "shell", Args: `{"cmd":"touch made.txt"}`}),
		llmtest.Calls(llmtest.Call{ID: "s2", Name: "shell", Args: `{"cmd":"curl -s http://127.0.0.1:9/ || touch curled.txt"}`}),
		llmtest.Text("greeting fixed"),
		llmtest.Stall{After: 2},
	)
	args, _ := json.Marshal(append(modelArgs(srv), "acp"))
	script, _ := filepath.Abs(filepath.Join("testdata", "acp_client.mjs"))
	cmd := exec.Command("node", script)
	cmd.Dir = ws
	cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + t.TempDir(), "OPENSEEK_TEST_MAIN=1", "OPENSEEK_RETRY_BACKOFF_MS=1",
		"ACP_SDK=" + sdkEntry, "OPENSEEK_BIN=" + os.Args[0], "OPENSEEK_ARGS=" + string(args), "WORKSPACE=" + ws}
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	timer := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	err := cmd.Run()
	timer.Stop()
	if err != nil {
		t.Fatalf("node client: %v\nstdout %s\nstderr %s", err, stdout.String(), stderr.String())
	}
	var r acpReport
	if err := json.Unmarshal(stdout.Bytes(), &r); err != nil {
		t.Fatalf("report %q: %v (stderr %s)", stdout.String(), err, stderr.String())
	}
	if r.Error != "" {
		t.Fatalf("client error: %s\nstderr %s", r.Error, stderr.String())
	}
	if r.ExitCode == nil || *r.ExitCode != 0 {
		t.Errorf("openseek acp exited with %v; stderr %s", r.ExitCode, stderr.String())
	}
	caps := r.Init.AgentCapabilities
	if !caps.LoadSession || !caps.PromptCapabilities.Image || !caps.PromptCapabilities.EmbeddedContext {
		t.Errorf("capabilities %+v", caps)
	}
	turn := r.Updates["turn"]
	if got, want := acpSeq(turn), "agent_thought_chunk tool_call:edit tool_call_update:completed tool_call:execute tool_call_update:completed tool_call:execute tool_call_update:completed agent_message_chunk"; got != want {
		t.Errorf("turn updates\n got %s\nwant %s", got, want)
	}
	if r.TurnStop != "end_turn" || acpText(turn, "agent_message_chunk") != "greeting fixed" || acpText(turn, "agent_thought_chunk") != "two steps" {
		t.Errorf("turn: stop %q, answer %q, thought %q", r.TurnStop, acpText(turn, "agent_message_chunk"), acpText(turn, "agent_thought_chunk"))
	}
	meters := 0
	for _, u := range turn {
		if u.SessionUpdate == "usage_update" && u.Used > 0 && u.Size > u.Used {
			meters++
		}
	}
	if meters != 4 { // one per model response
		t.Errorf("%d context meter updates in a turn of four model responses", meters)
	}
	var diff []struct{ Type, Path, OldText, NewText string }
	for _, u := range turn {
		if u.SessionUpdate == "tool_call_update" && u.ToolCallID == "e1" {
			json.Unmarshal(u.Content, &diff)
		}
	}
	if len(diff) == 0 || diff[0].Type != "diff" || diff[0].Path != filepath.Join(ws, "a.txt") || diff[0].OldText != "world" || diff[0].NewText != "editor" {
		t.Errorf("edit content %+v", diff)
	}
	if len(r.Asked) != 1 || r.Asked[0].ToolCall.ToolCallID != "s2" || r.Asked[0].ToolCall.Kind != "execute" || len(r.Asked[0].Options) != 3 ||
		r.Asked[0].Options[1].Name != "Don't ask again for `curl` in this session" {
		t.Errorf("permission requests %+v", r.Asked)
	}
	for _, f := range []string{"made.txt", "curled.txt"} {
		if _, err := os.Stat(filepath.Join(ws, f)); err != nil {
			t.Errorf("%s: the contained command and the allowed one did not both run", f)
		}
	}
	if data, _ := os.ReadFile(filepath.Join(ws, "a.txt")); string(data) != "hello editor\n" {
		t.Errorf("a.txt = %q", data)
	}
	if req := srv.Requests(); len(req) == 0 || !strings.Contains(string(req[0].Messages[len(req[0].Messages)-1]), `<context uri=\"file://`) {
		t.Error("the embedded resource did not reach the model")
	}
	if r.CancelStop != "cancelled" {
		t.Errorf("cancelled turn stopped with %q", r.CancelStop)
	}
	if !strings.Contains(r.UnknownSession, "unknown session") {
		t.Errorf("a prompt to an unknown session: %q", r.UnknownSession)
	}
	replay := r.Updates["replay"]
	if got := acpSeq(replay); !strings.HasPrefix(got, "user_message_chunk agent_thought_chunk tool_call:edit tool_call_update:completed tool_call:execute tool_call_update:completed tool_call:execute tool_call_update:completed agent_message_chunk user_message_chunk") {
		t.Errorf("replay %s", got)
	}
	if u := acpText(replay, "user_message_chunk"); !strings.Contains(u, "fix the greeting") || !strings.Contains(u, "take your time") {
		t.Errorf("replayed user messages %q", u)
	}
}
