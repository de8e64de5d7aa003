package runtime

import (
	"context"
	"fmt"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/agents"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/prompt"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// Sub-agent limits: how deep agents may nest, and how many of one
// message's agent calls run at once.
const (
	MaxAgentDepth    = 2
	MaxParallelAgent = 4
	agentToolName    = "agent"
	// subagentPrompt frames a general-purpose child.
	subagentPrompt = `You are a sub-agent: another agent delegated one task to you. You see nothing of its conversation — the task below is all you know. Do the task completely with your tools, then answer with a concise report of what you found or changed (paths, commands, results) — that report is all the other agent will see.`
)

// childCounter hands out sub-agent session numbers: <parent>-sr-<N>.
type childCounter struct {
	mu    sync.Mutex
	next  int
	sem   chan struct{}
	usage protocol.Usage // what the children used, for the cost budget
}

// add counts a finished child's usage.
func (c *childCounter) add(u protocol.Usage) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.usage = c.usage.Add(u)
}

// spent prices what the children used.
func (c *childCounter) spent(p llm.Price) float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return p.Cost(c.usage.PromptCacheHitTokens, c.usage.PromptCacheMissTokens, c.usage.CompletionTokens)
}

func (c *childCounter) number(store *session.Store, parent string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.next == 0 {
		c.next = 1
		for store != nil && store.Exists(parent+"-sr-"+strconv.Itoa(c.next)) {
			c.next++
		}
	}
	n := c.next
	c.next++
	return n
}

func (c *childCounter) slot() chan struct{} {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.sem == nil {
		c.sem = make(chan struct{}, MaxParallelAgent)
	}
	return c.sem
}

type agentArgs struct {
	Description string `json:"description" jsonschema:"3-5 words on what the sub-agent does (shown to the user)"`
	Prompt      string `json:"prompt" jsonschema:"the whole task: the sub-agent sees nothing of this conversation, so give every fact, path and constraint it needs and say what to report back"`
	Agent       string `json:"agent,omitempty" jsonschema:"a custom agent to run (listed above); default: a general-purpose agent with your tools"`
}

// agentTool is the tool that runs a sub-agent at the given depth.
func (e *Engine) agentTool(depth int) tool.Tool {
	var b strings.Builder
	b.WriteString("Delegate a self-contained task to a sub-agent with its own conversation and the same tools; its final report is the result. Use it for broad searches or independent pieces of work that would flood your context. Several agent calls in one message run in parallel.")
	if len(e.subagents) > 0 {
		b.WriteString(" Custom agents:")
		for _, a := range e.subagents {
			fmt.Fprintf(&b, "\n- %s: %s", a.Name, a.Description)
		}
	}
	t := tool.Func(agentToolName, b.String(), func(ctx context.Context, env *tool.Env, a agentArgs) tool.Result {
		return e.runChild(ctx, depth, a)
	})
	t.Concurrent = true
	return t
}

// runChild runs one sub-agent turn to its end and returns its report.
func (e *Engine) runChild(ctx context.Context, depth int, a agentArgs) tool.Result {
	if strings.TrimSpace(a.Prompt) == "" {
		return tool.Errorf("error: agent requires a non-empty prompt")
	}
	var def *agents.Agent
	if a.Agent != "" {
		for i := range e.subagents {
			if e.subagents[i].Name == a.Agent {
				def = &e.subagents[i]
			}
		}
		if def == nil {
			names := make([]string, 0, len(e.subagents))
			for _, d := range e.subagents {
				names = append(names, d.Name)
			}
			return tool.Errorf("error: no custom agent named %q; known: %s", a.Agent, strings.Join(names, ", "))
		}
	}
	sem := e.children.slot()
	select {
	case sem <- struct{}{}:
		defer func() { <-sem }()
	case <-ctx.Done():
		return tool.Errorf("error: not run: the turn was cancelled")
	}

	var store *session.Store
	if e.writer != nil {
		store = session.NewStore(e.root)
	}
	id := e.id + "-sr-" + strconv.Itoa(e.children.number(store, e.id))
	kind, label := "general", oneLine(a.Description, 60)
	if def != nil {
		kind = def.Name
	}
	e.opts.Emit(protocol.SubrunStarted{ID: id, Kind: kind, Label: label})
	out, err := e.childTurn(ctx, depth, id, def, a)
	e.children.add(out.Usage)
	fin := protocol.SubrunFinished{ID: id, Status: subrunStatus(out, err), Steps: out.Steps,
		PromptTokens: out.Usage.PromptTokens, CompletionTokens: out.Usage.CompletionTokens}
	e.opts.Emit(fin)
	switch {
	case err != nil:
		return tool.Errorf("error: sub-agent %s failed: %v", id, err)
	case !out.OK():
		return tool.Result{Content: protocol.Text(fmt.Sprintf("error: sub-agent %s ended without a report (%s): %s", id, out.Kind, out.Answer)), IsError: true, Brief: "agent " + label}
	}
	return tool.Result{Content: protocol.Text(out.Answer), Brief: "agent " + label}
}

func (e *Engine) childTurn(ctx context.Context, depth int, id string, def *agents.Agent, a agentArgs) (agent.Outcome, error) {
	if def != nil && def.Process {
		return e.processChild(ctx, depth, id, def, a)
	}
	instructions := subagentPrompt
	provider, model, spec, price := e.provider, e.model, e.spec, e.price
	if def != nil {
		instructions = def.Prompt
		if def.Model != "" && def.Model != e.model {
			res, err := e.opts.Resolve(ctx, def.Model)
			if err != nil {
				return agent.Outcome{}, fmt.Errorf("custom agent %s: %w", def.Name, err)
			}
			provider, model, spec, price = e.tracedProvider(res.Client, res.Model, res.Price), res.Model, res.Spec, res.Price
		}
	}
	sys := prompt.Build(prompt.Options{Workspace: e.opts.Dir, OS: goruntime.GOOS, Shell: "bash", Addendum: instructions, Memory: e.memory})

	tools := e.base
	if def != nil && len(def.Tools) > 0 {
		var keep []tool.Tool
		allowed := map[string]bool{}
		for _, n := range def.Tools {
			allowed[n] = true
		}
		for _, t := range e.base.Tools() {
			if allowed[t.Name] {
				keep = append(keep, t)
			}
		}
		tools = tool.NewRegistry(keep...)
	}
	tools = tools.Without("goal")
	if depth < MaxAgentDepth && (def == nil || len(def.Tools) == 0 || contains(def.Tools, agentToolName)) {
		tools = tools.Without()
		_ = tools.Add(e.traced(e.agentTool(depth + 1)))
	}

	var log agent.Log
	if e.writer != nil {
		w, err := session.NewStore(e.root).OpenWriter(id, sys, "openseek sub-agent of "+e.id)
		if err != nil {
			return agent.Outcome{}, err
		}
		defer w.Close()
		log = w
	} else {
		log = agent.NewMemoryLog(id, sys)
	}
	if _, err := log.Append(&session.Notice{Content: fmt.Sprintf("[sub-agent] of session %s: %s", e.id, a.Description)}); err != nil {
		return agent.Outcome{}, err
	}
	child := agent.New(agent.Config{
		Provider: provider,
		Model:    model,
		Spec:     spec,
		Price:    price,
		Thinking: e.opts.Thinking,
		Tools:    tools,
		Env:      e.env,
		MaxSteps: e.opts.MaxSteps,
		Log:      log,
		Window:   e.window,
		Hooks:    e.agentHooks(),

		ToolSearchBudget: e.searchBudget,
		Deferrable:       isMCPTool,
	})
	return child.Turn(ctx, protocol.Text(a.Prompt), nil)
}

func subrunStatus(out agent.Outcome, err error) string {
	if err != nil {
		return protocol.SubrunFailed
	}
	switch out.Kind {
	case session.Finished:
		return protocol.SubrunCaptured
	case session.MaxStepsExhausted:
		return protocol.SubrunMaxSteps
	case session.ContextYield:
		return protocol.SubrunContextYield
	case session.Interrupted:
		return protocol.SubrunCancelled
	}
	return protocol.SubrunFailed
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

func oneLine(s string, max int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > max {
		s = string(r[:max-1]) + "…"
	}
	return s
}
