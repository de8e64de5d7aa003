package runtime

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/agents"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

// agentDepthEnv tells a child process the depth its agent tool runs at
// (1 = a top-level engine; past MaxAgentDepth = no agent tool).
const agentDepthEnv = "OPENSEEK_AGENT_DEPTH"

// agentDepth is the depth of this engine's agent tool.
func agentDepth(getenv func(string) string) int {
	if getenv == nil {
		getenv = os.Getenv
	}
	n, err := strconv.Atoi(getenv(agentDepthEnv))
	if err != nil || n < 1 {
		return 1
	}
	return n
}

// processChildGrace is how long a child process has to finish after its
// stdin closed (the cancel signal) before it is killed.
const processChildGrace = 10 * time.Second

// processChild runs a custom agent marked `run: process` as a child
// process, `openseek subrun general` (reference openseek-cli.md §6): the
// task goes in as one JSON line on stdin, which stays open while the child
// works and closes to cancel it; the child records its session as id
// under the parent's session root; its final {"subrun_report":…} line is
// the answer. The child inherits the environment (API keys included) and
// refuses escalation, having no one to ask.
func (e *Engine) processChild(ctx context.Context, depth int, id string, def *agents.Agent, a agentArgs) (agent.Outcome, error) {
	exe, err := os.Executable()
	if err != nil {
		return agent.Outcome{}, fmt.Errorf("find the openseek executable for a child process: %w", err)
	}
	args := []string{"subrun", "general", "--dir", e.opts.Dir, "--approval", "never"}
	if e.writer != nil {
		args = append(args, "--session-root", e.root, "--session", id)
	} else {
		args = append(args, "--no-session")
	}
	model := e.opts.ModelChoice
	if def.Model != "" {
		model = def.Model
	} else if e.opts.APIURL != "" {
		model = e.model
	}
	if model != "" {
		args = append(args, "--model", model)
	}
	if e.opts.APIURL != "" && def.Model == "" {
		args = append(args, "--api-url", e.opts.APIURL)
	}
	if e.opts.MaxSteps > 0 {
		args = append(args, "--max-steps", strconv.Itoa(e.opts.MaxSteps))
	}
	if e.opts.Thinking != "" {
		args = append(args, "--thinking", e.opts.Thinking)
	}
	if len(def.Tools) > 0 {
		args = append(args, "--tools", strings.Join(def.Tools, ","))
	}
	if e.opts.NoSandbox {
		args = append(args, "--no-sandbox")
	}
	if e.opts.Network {
		args = append(args, "--network")
	}
	if e.opts.NoVerify {
		args = append(args, "--no-verify")
	}
	task := fmt.Sprintf("%s\n\n# Your instructions (custom agent %s)\n\n%s", a.Prompt, def.Name, def.Prompt)
	input, _ := json.Marshal(map[string]string{"task": task})

	cmd := exec.Command(exe, args...)
	cmd.Dir = e.opts.Dir
	// The child's own agent tool nests one level deeper, as an in-process
	// child's would; past the bound, or when its tools leave agent out,
	// it has none.
	next := depth + 1
	if depth >= MaxAgentDepth || (len(def.Tools) > 0 && !contains(def.Tools, agentToolName)) {
		next = MaxAgentDepth + 1
	}
	cmd.Env = append(os.Environ(), agentDepthEnv+"="+strconv.Itoa(next))
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return agent.Outcome{}, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return agent.Outcome{}, err
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.WaitDelay = processChildGrace
	if err := cmd.Start(); err != nil {
		return agent.Outcome{}, fmt.Errorf("start the child process: %w", err)
	}
	if _, err := stdin.Write(append(input, '\n')); err != nil {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		return agent.Outcome{}, fmt.Errorf("send the task to the child process: %w", err)
	}
	// Cancelling the turn closes stdin: the child cancels its run and
	// exits; one that does not is killed after the grace period.
	stop := context.AfterFunc(ctx, func() {
		stdin.Close()
		time.AfterFunc(processChildGrace, func() { _ = cmd.Process.Kill() })
	})
	defer stop()

	var (
		out    agent.Outcome
		report json.RawMessage
		failed string
	)
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 64<<20)
	for sc.Scan() {
		line := sc.Bytes()
		if bytes.HasPrefix(line, []byte(`{"subrun_report":`)) {
			var r struct {
				Report json.RawMessage `json:"subrun_report"`
			}
			if json.Unmarshal(line, &r) == nil {
				report = r.Report
			}
			continue
		}
		ev, ok := protocol.ParseEvent(line)
		if !ok {
			continue
		}
		switch v := ev.(type) {
		case protocol.TurnSummary:
			out.Kind, out.Steps, out.Usage = session.TerminalKind(v.Outcome), out.Steps+v.Steps, out.Usage.Add(v.Usage)
		case protocol.CommandError:
			failed = v.Error
		case protocol.TurnFailed:
			failed = v.Error
		}
	}
	_, _ = io.Copy(io.Discard, stdout)
	stdin.Close()
	werr := cmd.Wait()
	switch {
	case report != nil:
		var text string
		if json.Unmarshal(report, &text) != nil {
			text = string(report)
		}
		out.Kind, out.Answer = session.Finished, text
		return out, nil
	case ctx.Err() != nil:
		out.Kind, out.Answer = session.Interrupted, "cancelled"
		return out, nil
	case failed != "":
		return out, fmt.Errorf("child process: %s", failed)
	case out.Kind != "" && out.Kind != session.Finished:
		out.Answer = "the child process ended its turn as " + string(out.Kind)
		return out, nil
	}
	msg := strings.TrimSpace(stderr.String())
	if msg == "" && werr != nil {
		msg = werr.Error()
	}
	return out, fmt.Errorf("the child process left no report: %s", cmpOr(msg, "it exited without one"))
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}
