package agent

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

func namedTool(name, desc string) tool.Tool {
	t := noopTool()
	t.Name, t.Description = name, desc
	return t
}

// Deferred tools are found with tool_search, appended in the order found,
// and offered again by an agent that resumes the session from its log.
func TestToolSearchOffersFoundToolsAcrossResume(t *testing.T) {
	pad := strings.Repeat(" more words", 20)
	reg := tool.NewRegistry(noopTool(),
		namedTool("mcp__srv__alpha", "Counts the alphas."+pad),
		namedTool("mcp__srv__beta", "Bakes the betas."+pad),
		namedTool("mcp__other__gamma", "Grinds gammas."+pad))
	srv := llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "s1", Name: "tool_search", Args: `{"query":"nothing-like-it"}`}),
		llmtest.Calls(llmtest.Call{ID: "s2", Name: "tool_search", Args: `{"query":"beta"}`}),
		llmtest.Calls(llmtest.Call{ID: "b", Name: "mcp__srv__beta", Args: `{}`}),
		llmtest.Calls(llmtest.Call{ID: "s3", Name: "tool_search", Args: `{"query":"all","server":"srv"}`}),
		llmtest.Text("done"),
		llmtest.Text("resumed"),
	)
	results := map[string]string{}
	log := NewMemoryLog("t", "sys")
	newA := func() *Agent {
		p := testProvider(srv)
		return New(Config{Provider: p, Model: "test", Tools: reg, Env: &tool.Env{Workspace: "/"}, Log: log, Backoff: time.Millisecond,
			ToolSearchBudget: 300, Deferrable: func(n string) bool { return strings.HasPrefix(n, "mcp__") },
			Emit: func(e protocol.Event) {
				if r, ok := e.(protocol.ToolResult); ok {
					results[r.ToolCallID] = r.Content
				}
			}})
	}
	if out, err := newA().Turn(context.Background(), protocol.Text("go"), nil); err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	reqs := srv.Requests()
	if got := reqs[0].Tools; !slices.Equal(got, []string{"noop", "tool_search"}) {
		t.Errorf("first request's tools %v", got)
	}
	if !strings.HasPrefix(results["s1"], "No tool matches") {
		t.Errorf("no match: %q", results["s1"])
	}
	if want := "1 tool(s) found; call them from your next step on.\nsrv:\n  mcp__srv__beta — Bakes the betas."; !strings.HasPrefix(results["s2"], want) {
		t.Errorf("search result %q, want %q…", results["s2"], want)
	}
	if got := reqs[2].Tools; !slices.Equal(got, []string{"noop", "tool_search", "mcp__srv__beta"}) {
		t.Errorf("tools after the search %v", got)
	}
	if results["b"] != "ok" {
		t.Errorf("the found tool's result %q", results["b"])
	}
	want := []string{"noop", "tool_search", "mcp__srv__beta", "mcp__srv__alpha"}
	if got := reqs[4].Tools; !slices.Equal(got, want) {
		t.Errorf("tools after all of srv %v, want %v", got, want)
	}
	// A new agent on the same log offers what was found, in that order.
	if out, err := newA().Turn(context.Background(), protocol.Text("again"), nil); err != nil || !out.OK() {
		t.Fatalf("%+v %v", out, err)
	}
	if got := srv.Requests()[5].Tools; !slices.Equal(got, want) {
		t.Errorf("resumed tools %v, want %v", got, want)
	}
}
