package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/tool"
)

// ToolSearchName is the tool that finds the tools not sent up front.
const ToolSearchName = "tool_search"

// DefaultToolSearchBudget is the size, in bytes of names, descriptions
// and schemas, that the deferrable tools may take together before they
// are sent only once found. A small server's few tools (under 4 KB) are
// cheaper sent than searched for; the reference "everything" server's 14
// (about 4.6 KB) are found on demand.
const DefaultToolSearchBudget = 4 << 10

// maxFound bounds the tools one search returns (a server's "all" aside).
const maxFound = 15

// toolSearch is the agent's record of the deferred tools the model has
// found: they are offered, in the order found, after the other tools in
// every later request, so earlier requests' tool lists stay a prefix.
// It is read back from the log once (tool_search results carry the names
// they found), so a resumed session offers the same tools. Used by the
// running turn only.
type toolSearch struct {
	loaded bool
	found  []string
}

// load reads the found tools back from the log, once.
func (ts *toolSearch) load(s *session.Session) {
	if ts.loaded {
		return
	}
	ts.loaded = true
	for _, e := range s.Events {
		if r, ok := e.Item.(*session.ToolResult); ok && r.ToolName == ToolSearchName && !r.IsError {
			ts.add(foundIn(r.Data))
		}
	}
}

// add appends the names not yet found and returns them.
func (ts *toolSearch) add(names []string) []string {
	var added []string
	for _, n := range names {
		if !slices.Contains(ts.found, n) {
			ts.found = append(ts.found, n)
			added = append(added, n)
		}
	}
	return added
}

type searchData struct {
	Found []string `json:"found"`
}

func foundIn(data json.RawMessage) []string {
	var d searchData
	_ = json.Unmarshal(data, &d)
	return d.Found
}

// specBytes is what a tool's spec weighs against the budget.
func specBytes(s llm.ToolSpec) int { return len(s.Name) + len(s.Description) + len(s.Parameters) }

// offer decides the tools of the turn's requests. When the deferrable
// tools' specs together pass the budget, they are left out but for those
// found before, and tool_search is offered to find the others.
func (t *turn) offer() []llm.ToolSpec {
	cfg := &t.a.cfg
	all := toolSpecs(t.tools)
	if cfg.ToolSearchBudget <= 0 || cfg.Deferrable == nil {
		return all
	}
	var core []llm.ToolSpec
	deferred := map[string]llm.ToolSpec{}
	size := 0
	for _, s := range all {
		if cfg.Deferrable(s.Name) {
			deferred[s.Name] = s
			size += specBytes(s)
		} else {
			core = append(core, s)
		}
	}
	if size <= cfg.ToolSearchBudget {
		return all
	}
	t.deferred = deferred
	search := t.searchTool()
	t.tools = t.tools.Without()
	if err := t.tools.Add(search); err != nil {
		return all // a tool of that name is already offered: keep everything
	}
	core = append(core, llm.ToolSpec{Name: search.Name, Description: search.Description, Parameters: search.Schema})
	slices.SortFunc(core, func(a, b llm.ToolSpec) int { return strings.Compare(a.Name, b.Name) })
	t.a.search.load(cfg.Log.Session())
	for _, n := range t.a.search.found {
		if s, ok := deferred[n]; ok {
			core = append(core, s)
		}
	}
	return core
}

type searchArgs struct {
	Query  string `json:"query" jsonschema:"words to look for in tool names and descriptions; \"all\" with server lists all of that server's tools"`
	Server string `json:"server,omitempty" jsonschema:"only the tools of this MCP server"`
}

// searchTool is tool_search for this turn's deferred tools; what it
// finds is offered from the next request on.
func (t *turn) searchTool() tool.Tool {
	servers := map[string]int{}
	for n := range t.deferred {
		servers[serverOf(n)]++
	}
	names := make([]string, 0, len(servers))
	for s := range servers {
		names = append(names, s)
	}
	slices.Sort(names)
	var b strings.Builder
	fmt.Fprintf(&b, "Find and load tools that are not loaded yet (%d, from MCP servers: ", len(t.deferred))
	for i, s := range names {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", s, servers[s])
	}
	b.WriteString("). Returns the matching tools' names and one-line descriptions, grouped by server; the tools found can be called from your next step on.")
	return tool.Func(ToolSearchName, b.String(), func(ctx context.Context, env *tool.Env, a searchArgs) tool.Result {
		return t.search(a)
	})
}

// search finds deferred tools for a query, offers the new ones, and
// lists them by server.
func (t *turn) search(a searchArgs) tool.Result {
	q := strings.ToLower(strings.TrimSpace(a.Query))
	all := q == "all" || q == "*"
	terms := strings.Fields(q)
	type hit struct {
		spec  llm.ToolSpec
		score int
	}
	var hits []hit
	for n, s := range t.deferred {
		if a.Server != "" && serverOf(n) != a.Server {
			continue
		}
		score := 1
		if !all {
			score = 0
			name, desc := strings.ToLower(n), strings.ToLower(s.Description)
			for _, term := range terms {
				if strings.Contains(name, term) {
					score += 2
				}
				if strings.Contains(desc, term) {
					score++
				}
			}
		}
		if score > 0 {
			hits = append(hits, hit{s, score})
		}
	}
	slices.SortFunc(hits, func(x, y hit) int {
		if x.score != y.score {
			return y.score - x.score
		}
		return strings.Compare(x.spec.Name, y.spec.Name)
	})
	if !all || a.Server == "" {
		hits = hits[:min(len(hits), maxFound)]
	}
	if len(hits) == 0 {
		return tool.TextResult(fmt.Sprintf("No tool matches %q. Try other words, or query \"all\" with a server.", a.Query))
	}
	found := make([]string, len(hits))
	for i, h := range hits {
		found[i] = h.spec.Name
	}
	for _, n := range t.a.search.add(found) {
		s := t.deferred[n]
		t.specs = append(t.specs, s)
		t.meter.toolBytes += len(s.Name) + len(s.Description) + len(s.Parameters) + 32
	}
	t.a.hist.useTools(t.specs)
	// Group by server, servers and tools in name order.
	byServer := slices.Clone(hits)
	slices.SortFunc(byServer, func(x, y hit) int { return strings.Compare(x.spec.Name, y.spec.Name) })
	var b strings.Builder
	fmt.Fprintf(&b, "%d tool(s) found; call them from your next step on.", len(hits))
	server := ""
	for _, h := range byServer {
		if s := serverOf(h.spec.Name); s != server {
			server = s
			fmt.Fprintf(&b, "\n%s:", s)
		}
		fmt.Fprintf(&b, "\n  %s — %s", h.spec.Name, firstLine(h.spec.Description, 120))
	}
	data, _ := json.Marshal(searchData{Found: found})
	return tool.Result{Content: tool.TextResult(b.String()).Content, Brief: fmt.Sprintf("tool_search %q: %d found", a.Query, len(hits)), Data: data}
}

// serverOf is the MCP server of a tool named mcp__<server>__<tool>, or
// "other".
func serverOf(name string) string {
	if rest, ok := strings.CutPrefix(name, "mcp__"); ok {
		if s, _, ok := strings.Cut(rest, "__"); ok {
			return s
		}
	}
	return "other"
}

func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	return clip(s, n)
}
