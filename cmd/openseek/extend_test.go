package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// mcpServerMain makes the test binary a small stdio MCP server (a real
// go-sdk server in its own process) when OPENSEEK_TEST_MCP_SERVER is set.
func mcpServerMain() {
	type shoutArgs struct {
		Text string `json:"text" jsonschema:"what to shout"`
	}
	s := sdk.NewServer(&sdk.Implementation{Name: "shouter", Version: "1"}, nil)
	sdk.AddTool(s, &sdk.Tool{Name: "shout", Description: "Upper-cases text."}, func(_ context.Context, _ *sdk.CallToolRequest, a shoutArgs) (*sdk.CallToolResult, any, error) {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: strings.ToUpper(a.Text)}}}, nil, nil
	})
	if err := s.Run(context.Background(), &sdk.StdioTransport{}); err != nil {
		os.Exit(1)
	}
	os.Exit(0)
}

func writeMCPConfig(t *testing.T, dir, name string) string {
	t.Helper()
	cfg := map[string]any{"mcpServers": map[string]any{"t": map[string]any{
		"command": os.Args[0], "args": []string{"-test.run=^$"},
		"env": map[string]string{"OPENSEEK_TEST_MCP_SERVER": "1", "GORACE": "atexit_sleep_ms=0"},
	}}}
	data, _ := json.Marshal(cfg)
	path := filepath.Join(dir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

func TestMCPToolsAreCalledLikeAnyOther(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	cfg := writeMCPConfig(t, t.TempDir(), "mcp.json")
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "m", Name: "mcp__t__shout", Args: `{"text":"hello"}`}),
		llmtest.Text("it shouted"),
	)
	r := openseek(t, ws, "", nil, append(modelArgs(srv), "--mcp-config", cfg, "run", "shout")...)
	if r.code != 0 {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	reg := find[protocol.McpToolsRegistered](r.events)
	if len(reg) != 1 || reg[0].Servers != 1 || len(reg[0].Names) != 1 || reg[0].Names[0] != "mcp__t__shout" {
		t.Errorf("mcp_tools_registered %+v", reg)
	}
	res := find[protocol.ToolResult](r.events)
	if len(res) != 1 || res[0].IsError || res[0].Content != "HELLO" {
		t.Errorf("result %+v", res)
	}
	if tools := srv.Requests()[0].Tools; !strings.Contains(strings.Join(tools, ","), "mcp__t__shout") {
		t.Errorf("the model was not offered the MCP tool: %v", tools)
	}
	list := openseek(t, ws, "", nil, "--mcp-config", cfg, "mcp")
	if list.code != 0 || !strings.Contains(list.stdout, "t (stdio") || !strings.Contains(list.stdout, "shout") {
		t.Errorf("openseek mcp: %d %q %q", list.code, list.stdout, list.stderr)
	}
}

func TestWorkspaceMCPConfigNeedsTrust(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	writeMCPConfig(t, ws, ".mcp.json")
	srv := llmtest.NewServer(t, llmtest.Text("a"), llmtest.Text("b"))
	env := []string{"HOME=" + home}
	r := openseek(t, ws, "", env, append(modelArgs(srv), "run", "--no-session", "x")...)
	if ign := find[protocol.McpConfigIgnored](r.events); len(ign) != 1 {
		t.Errorf("an untrusted .mcp.json was not ignored: %v", names(r.events))
	}
	if tr := openseek(t, ws, "", env, "trust"); tr.code != 0 || !strings.Contains(tr.stdout, "trusted "+filepath.Join(ws, ".mcp.json")) {
		t.Fatalf("trust: %d %q %q", tr.code, tr.stdout, tr.stderr)
	}
	srv.ExpectPrefixBreak()
	r = openseek(t, ws, "", env, append(modelArgs(srv), "run", "--no-session", "y")...)
	if reg := find[protocol.McpToolsRegistered](r.events); len(reg) != 1 || reg[0].Tools != 1 {
		t.Errorf("a trusted .mcp.json did not load: %v", names(r.events))
	}
}

func TestHooksAndSkills(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	// A user-level PreToolUse hook (Claude Code's shape) that blocks rm.
	script := filepath.Join(home, "guard.sh")
	os.WriteFile(script, []byte("#!/bin/sh\nif grep -q '\"rm ' ; then echo 'no deleting here' >&2; exit 2; fi\nexit 0\n"), 0o755)
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	hooks := fmt.Sprintf(`{"hooks":{"PreToolUse":[{"matcher":"Bash","hooks":[{"type":"command","command":%q,"timeout":10}]}]}}`, script)
	os.WriteFile(filepath.Join(home, ".openseek", "hooks.json"), []byte(hooks), 0o644)
	// A workspace skill.
	os.MkdirAll(filepath.Join(ws, ".openseek", "skills", "release"), 0o755)
	os.WriteFile(filepath.Join(ws, ".openseek", "skills", "release", "SKILL.md"), []byte("---\nname: release\ndescription: How to cut a release\n---\nTag with git tag vX.Y.Z, then push the tag.\n"), 0o644)
	os.WriteFile(filepath.Join(ws, "AGENTS.md"), []byte("Always run make check.\n"), 0o644)

	srv := llmtest.NewServer(t,
		llmtest.Calls(
			llmtest.Call{ID: "s", Name: "skill", Args: `{"name":"release"}`},
			llmtest.Call{ID: "r", Name: "shell", Args: `{"cmd":"rm -rf build"}`},
			llmtest.Call{ID: "e", Name: "shell", Args: `{"cmd":"echo fine"}`},
		),
		llmtest.Text("done"),
	)
	r := openseek(t, ws, "", []string{"HOME=" + home}, append(modelArgs(srv), "run", "release it")...)
	if r.code != 0 {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	res := find[protocol.ToolResult](r.events)
	if len(res) != 3 {
		t.Fatalf("results %+v", res)
	}
	if !strings.Contains(res[0].Content, "Tag with git tag") {
		t.Errorf("skill body not loaded: %q", res[0].Content)
	}
	if !res[1].IsError || !strings.Contains(res[1].Content, "no deleting here") {
		t.Errorf("the hook did not block rm: %+v", res[1])
	}
	if res[2].IsError || !strings.Contains(res[2].Content, "fine") {
		t.Errorf("the hook blocked an allowed command: %+v", res[2])
	}
	system := string(srv.Requests()[0].Messages[0])
	for _, want := range []string{"release: How to cut a release", "Always run make check."} {
		if !strings.Contains(system, want) {
			t.Errorf("system prompt lacks %q", want)
		}
	}
	if strings.Contains(system, "Tag with git tag") {
		t.Error("the skill body was put in the system prompt")
	}
}

func TestRulesCheck(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(ws, ".openseek", "config.toml"), []byte("[[rules]]\npattern = [\"git\", \"push\"]\ndecision = \"deny\"\n"), 0o644)
	r := openseek(t, ws, "", nil, "rules", "check", "--", "ls && git push origin main")
	if r.code != 0 || !strings.Contains(r.stdout, "deny") || !strings.Contains(r.stdout, "config.toml:1") {
		t.Errorf("rules check: %d %q %q", r.code, r.stdout, r.stderr)
	}
	os.WriteFile(filepath.Join(ws, ".openseek", "config.toml"), []byte("[[rules]]\npattern = [\"git\"]\ndecision = \"maybe\"\n"), 0o644)
	srv := llmtest.NewServer(t)
	r = openseek(t, ws, "", nil, append(modelArgs(srv), "run", "x")...)
	if r.code != 1 || !strings.Contains(r.stderr, "config.toml:") {
		t.Errorf("a bad rules file did not stop the start: %d %q", r.code, r.stderr)
	}
}

// An approval round trip over serve: the controller allows one command
// and denies another; the denied tool's result tells the model why.
func TestServeApprovalRoundTrip(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"touch allowed.txt"}`}),
		llmtest.Calls(llmtest.Call{ID: "d", Name: "shell", Args: `{"cmd":"touch denied.txt"}`}),
		llmtest.Text("done"),
	)
	var results []protocol.ToolResult
	var errs []string
	asked := 0
	serveTurn(t, ws, nil, append(modelArgs(srv), "--approval", "ask"), func(ev protocol.Event, stdin io.Writer) {
		switch e := ev.(type) {
		case protocol.CommandError:
			errs = append(errs, e.Error)
		case protocol.ApprovalRequested:
			asked++
			allow := asked == 1
			fmt.Fprintf(stdin, `{"command":"approval","id":%q,"allow":%v}`+"\n", e.ID, allow)
		case protocol.ToolResult:
			results = append(results, e)
		}
	}, `{"command":"approval","id":"ap-404","allow":true}`, `{"command":"prompt","content":"touch two files"}`)
	if len(errs) != 1 || !strings.Contains(errs[0], "ap-404") {
		t.Errorf("an approval for an unknown id: %q", errs)
	}
	if asked != 2 || len(results) != 2 {
		t.Fatalf("asked %d times, %d results", asked, len(results))
	}
	if results[0].IsError || !results[1].IsError || !strings.Contains(results[1].Content, "denied") && !strings.Contains(results[1].Content, "refused") && !strings.Contains(results[1].Content, "rejected") {
		t.Errorf("results %+v", results)
	}
	if _, err := os.Stat(filepath.Join(ws, "allowed.txt")); err != nil {
		t.Error("the allowed command did not run")
	}
	if _, err := os.Stat(filepath.Join(ws, "denied.txt")); err == nil {
		t.Error("the denied command ran")
	}
}

func TestModelsDoctorAndConfigErrors(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	env := []string{"HOME=" + home, "DEEPSEEK_API_KEY=sk-test-abcdef123456"}
	r := openseek(t, ws, "", env, "models")
	if r.code != 0 || !strings.HasPrefix(r.stdout, "  MODEL ") || !regexp.MustCompile(`(?m)^\* deepseek/deepseek-v4-flash +128k +\$[0-9./$]+ +ready$`).MatchString(r.stdout) {
		t.Errorf("models: headers, and the default model marked in use: %d %q %q", r.code, r.stdout, r.stderr)
	}
	r = openseek(t, ws, "", env, "--model", "deepseek-v4-pro", "models")
	if lines := regexp.MustCompile(`(?m)^\* .*$`).FindAllString(r.stdout, -1); len(lines) != 2 || !strings.HasPrefix(lines[0], "* deepseek/deepseek-v4-pro ") {
		t.Errorf("--model marks its model in use: %q", r.stdout)
	}
	models := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"data":[]}`)
	}))
	defer models.Close()
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[providers.local]\nbase_url = \""+models.URL+"/v1\"\n"), 0o644)
	os.MkdirAll(filepath.Join(ws, ".openseek"), 0o755)
	r = openseek(t, ws, "", env, "doctor")
	if !strings.Contains(r.stdout, "sandbox") || !strings.Contains(r.stdout, "local") || strings.Contains(r.stdout, "sk-test-abcdef123456") {
		t.Errorf("doctor: %q", r.stdout)
	}
	// A malformed config: file, line and reason; nothing starts.
	os.WriteFile(filepath.Join(ws, ".openseek", "config.toml"), []byte("[providers.x]\nbase_url = \"http://a\"\napi_kye = \"k\"\n"), 0o644)
	r = openseek(t, ws, "", env, "run", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, filepath.Join(ws, ".openseek", "config.toml")+":3") || r.stdout != "" {
		t.Errorf("malformed config: %d %q %q", r.code, r.stderr, r.stdout)
	}
	if _, err := os.Stat(filepath.Join(ws, ".openseek", "sessions")); err == nil {
		t.Error("a session was created despite the bad config")
	}
}

// A provider/model from a config file is used end to end; the unknown
// model error lists what is known.
func TestConfiguredProviderEndToEnd(t *testing.T) {
	t.Parallel()
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("from the local server"))
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[providers.local]\nbase_url = \""+strings.TrimSuffix(srv.URL(), "/chat/completions")+"\"\n\n[models.\"local/qwen3-coder\"]\nwindow = 32000\n"), 0o644)
	env := []string{"HOME=" + home}
	r := openseek(t, ws, "", env, "--model", "local/qwen3-coder", "run", "hi")
	if r.code != 0 {
		t.Fatalf("%d %s", r.code, r.stderr)
	}
	if m := srv.Requests()[0].Model; m != "qwen3-coder" {
		t.Errorf("model sent %q", m)
	}
	r = openseek(t, ws, "", env, "--model", "nosuch/model", "run", "hi")
	if r.code != 1 || !strings.Contains(r.stderr, "deepseek") {
		t.Errorf("unknown provider: %q", r.stderr)
	}
}

// Claude through the Anthropic Messages API, end to end through the turn
// loop: thinking with its signature travels back with the tool call.
func TestAnthropicEndToEnd(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewAnthropicServer(t,
		llmtest.Reply{Reasoning: "list first", Calls: []llmtest.Call{{ID: "toolu_1", Name: "shell", Args: `{"cmd":"echo claude"}`}}},
		llmtest.Text("Claude ran echo."),
	)
	env := []string{"ANTHROPIC_API_KEY=sk-ant-test", "ANTHROPIC_BASE_URL=" + srv.URL()}
	r := openseek(t, ws, "", env, "--model", "anthropic/claude-sonnet-4-5", "--thinking", "high", "run", "echo")
	if r.code != 0 {
		t.Fatalf("%d %s %s", r.code, r.stderr, r.stdout)
	}
	if f := find[protocol.AgentFinished](r.events); len(f) != 1 || f[0].Answer != "Claude ran echo." {
		t.Errorf("finished %+v", f)
	}
	if res := find[protocol.ToolResult](r.events); len(res) != 1 || !strings.Contains(res[0].Content, "claude") {
		t.Errorf("results %+v", res)
	}
	reqs := srv.Requests()
	if len(reqs) != 2 || !strings.Contains(string(reqs[1].Body), `"signature"`) || !strings.Contains(string(reqs[1].Body), `"cache_control"`) {
		t.Errorf("second request lacks the signed thinking or cache breakpoints")
	}
}

// `openseek mcp serve` offers the agent to another agent: a real go-sdk
// client starts it over stdio, runs a task and continues the session.
// mcpServe starts `openseek [args] mcp serve` in ws under a real go-sdk
// client and completes the MCP handshake.
func mcpServe(t *testing.T, ws string, args ...string) (context.Context, *sdk.ClientSession) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append(args, "--dir", ws, "mcp", "serve")...)
	cmd.Env = []string{"OPENSEEK_TEST_MAIN=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH"), "GORACE=atexit_sleep_ms=0"}
	client := sdk.NewClient(&sdk.Implementation{Name: "test", Version: "1"}, nil)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	t.Cleanup(cancel)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatalf("the MCP handshake failed: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	return ctx, cs
}

func TestMCPServeRunsAndContinuesTasks(t *testing.T) {
	t.Parallel()
	ws := t.TempDir()
	srv := llmtest.NewServer(t, llmtest.Text("first answer"), llmtest.Text("second answer"))
	ctx, cs := mcpServe(t, ws, modelArgs(srv)...)
	call := func(name string, args map[string]any) map[string]any {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: args})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if res.IsError {
			t.Fatalf("%s: error result %+v", name, res.Content)
		}
		var out map[string]any
		data, _ := json.Marshal(res.StructuredContent)
		json.Unmarshal(data, &out)
		return out
	}
	first := call("run", map[string]any{"task": "say something"})
	if first["answer"] != "first answer" || first["session_id"] == "" {
		t.Fatalf("run: %v", first)
	}
	second := call("continue", map[string]any{"session_id": first["session_id"], "task": "and more"})
	if second["answer"] != "second answer" || second["session_id"] != first["session_id"] {
		t.Errorf("continue: %v", second)
	}
	if n := len(srv.Requests()[1].Messages); n != 4 {
		t.Errorf("the continued session did not carry the first turn (%d messages)", n)
	}
	// continue with a session that does not exist is an error, and
	// creates nothing.
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "continue", Arguments: map[string]any{"session_id": "nosuch", "task": "go"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "session nosuch does not exist") {
		t.Errorf("continue of an unknown session: %v %+v", err, res)
	}
	if _, err := os.Stat(filepath.Join(ws, ".openseek", "sessions", "nosuch")); err == nil {
		t.Error("continue created the unknown session")
	}
}

// Without a key, mcp serve still completes the MCP handshake and lists
// its tools; the missing key is the tool call's error, which the client
// shows.
func TestMCPServeWithoutAKeyReportsItOnTheCall(t *testing.T) {
	t.Parallel()
	ctx, cs := mcpServe(t, t.TempDir()) // no key anywhere
	tools, err := cs.ListTools(ctx, nil)
	if err != nil || len(tools.Tools) != 2 {
		t.Fatalf("tools: %v %+v", err, tools)
	}
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "run", Arguments: map[string]any{"task": "hi"}})
	if err != nil || !res.IsError || !strings.Contains(res.Content[0].(*sdk.TextContent).Text, "an API key is required") {
		t.Errorf("run without a key: %v %+v", err, res)
	}
}

// The endpoint every request would go to being down fails doctor, whether
// --api-url or OPENSEEK_API_URL named it; the labels stay aligned.
func TestDoctorFailsWhenTheEndpointInUseIsDown(t *testing.T) {
	t.Parallel()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	down := "http://" + ln.Addr().String() + "/v1"
	ln.Close()
	ws := t.TempDir()
	for _, tc := range []struct {
		name string
		env  []string
		args []string
	}{
		{"flag", nil, []string{"--api-url", down, "doctor"}},
		{"environment", []string{"OPENSEEK_API_URL=" + down}, []string{"doctor"}},
	} {
		r := openseek(t, ws, "", tc.env, tc.args...)
		if r.code != 1 || !regexp.MustCompile(`(?m)^fail  endpoint --api-url nothing is listening`).MatchString(r.stdout) {
			t.Errorf("%s: exit %d\n%s%s", tc.name, r.code, r.stdout, r.stderr)
		}
		col := map[int]bool{}
		for _, line := range strings.Split(strings.TrimSpace(r.stdout), "\n") {
			for _, detail := range []string{"no config file", "requests go to", "nothing is listening", "landlock", "user namespaces"} {
				if i := strings.Index(line, detail); i >= 0 {
					col[i] = true
					break
				}
			}
		}
		if len(col) != 1 {
			t.Errorf("%s: details do not start at one column:\n%s", tc.name, r.stdout)
		}
	}
}
