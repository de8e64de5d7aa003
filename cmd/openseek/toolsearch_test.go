package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/e2etest"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// everythingConfig writes an --mcp-config file for the real MCP
// "everything" server over stdio.
func everythingConfig(t *testing.T) string {
	t.Helper()
	main := e2etest.Everything(t)
	data, _ := json.Marshal(map[string]any{"mcpServers": map[string]any{"everything": map[string]any{"command": "node", "args": []string{main, "stdio"}}}})
	path := filepath.Join(t.TempDir(), "mcp.json")
	if err := os.WriteFile(path, data, 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// With the everything server's tools over the default budget the first
// request offers tool_search instead of them; what it finds is appended
// to the tool list of the later requests (the earlier tools keep their
// place) and can be called. With search_budget = 0 every tool is sent.
func TestToolSearchLoadsMCPToolsOnDemand(t *testing.T) {
	t.Parallel()
	cfg := everythingConfig(t)
	ws, home := t.TempDir(), t.TempDir()
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "s1", Name: "tool_search", Args: `{"query":"echo"}`}),
		llmtest.Calls(llmtest.Call{ID: "e", Name: "mcp__everything__echo", Args: `{"message":"found on demand"}`}),
		llmtest.Calls(llmtest.Call{ID: "s2", Name: "tool_search", Args: `{"query":"all","server":"everything"}`}),
		llmtest.Text("done"),
	)
	env := []string{"HOME=" + home}
	r := openseek(t, ws, "", env, append(modelArgs(srv), "--mcp-config", cfg, "run", "echo something")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	reg := find[protocol.McpToolsRegistered](r.events)
	if len(reg) != 1 || reg[0].Tools < 5 {
		t.Fatalf("mcp_tools_registered %+v", reg)
	}
	mcpTools := reg[0].Names
	reqs := srv.Requests()
	first := reqs[0].Tools
	if !slices.Contains(first, "tool_search") || slices.ContainsFunc(first, func(n string) bool { return strings.HasPrefix(n, "mcp__") }) {
		t.Fatalf("first request's tools %v: want tool_search and no MCP tool", first)
	}
	res := map[string]protocol.ToolResult{}
	for _, e := range find[protocol.ToolResult](r.events) {
		res[e.ToolCallID] = e
	}
	if c := res["s1"].Content; !strings.Contains(c, "everything:\n  mcp__everything__echo — ") {
		t.Errorf("tool_search result: %q", c)
	}
	if got := reqs[1].Tools; !slices.Equal(got[:len(first)], first) || got[len(got)-1] != "mcp__everything__echo" {
		t.Errorf("second request's tools %v: want the first's, then mcp__everything__echo", got)
	}
	if c := res["e"].Content; res["e"].IsError || !strings.Contains(c, "found on demand") {
		t.Errorf("the found tool's call: %+v", res["e"])
	}
	if got := reqs[3].Tools; len(got) != len(first)+len(mcpTools) || !slices.Equal(got[:len(reqs[1].Tools)], reqs[1].Tools) {
		t.Errorf("after \"all\" of the server: %d tools %v, want %d, the earlier ones first", len(got), got, len(first)+len(mcpTools))
	}

	// The same first request with every tool sent up front.
	os.MkdirAll(filepath.Join(home, ".openseek"), 0o755)
	os.WriteFile(filepath.Join(home, ".openseek", "config.toml"), []byte("[tools]\nsearch_budget = 0\n"), 0o644)
	all := llmtest.NewServer(t, llmtest.Text("done"))
	r = openseek(t, ws, "", env, append(modelArgs(all), "--mcp-config", cfg, "run", "--no-session", "echo something")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	full := all.Requests()[0]
	if slices.Contains(full.Tools, "tool_search") || len(full.Tools) != len(first)-1+len(mcpTools) {
		t.Errorf("with search_budget = 0: tools %v", full.Tools)
	}
	before, after := len(full.Body), len(reqs[0].Body)
	if after >= before {
		t.Errorf("first request: %d bytes with tool_search, %d with every tool", after, before)
	}
	t.Logf("first request: %d bytes with every tool (%d MCP tools), %d bytes with tool_search (%.0f%% smaller); the request after a search shares %d of %d bytes with the one before",
		before, len(mcpTools), after, 100*float64(before-after)/float64(before), llmtest.SharedPrefix(reqs[0].Prompt, reqs[1].Prompt), len(reqs[1].Prompt))
}
