package runtime

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/tool"
)

// UserShellPrefix starts the notice that records a command the user ran
// themselves (Engine.Shell); the model reads it with its next request.
// UserShellID starts the tool call id its events carry.
const (
	UserShellPrefix = "[user shell]"
	UserShellID     = "user-shell-"
)

// Shell runs a command line the user typed (`!cmd`) through the session's
// shell tool between turns: under the session's command rules, permission
// mode, approval and sandbox, exactly as the model's call would run, and
// reported as tool_started/tool_result with the id user-shell-N. Its result
// is recorded as a notice the model reads at its next request. It refuses
// to start while a turn runs (the session queues it behind the turn).
func (e *Engine) Shell(ctx context.Context, command string) (tool.Result, error) {
	args, _ := json.Marshal(map[string]string{"cmd": command}) // a string map always marshals
	call := chat.ToolCall{ID: fmt.Sprintf("%s%d", UserShellID, e.log.Session().LastSequence()+1), Name: "shell", Arguments: string(args)}
	e.agent.SetTools(e.tools)
	finish := e.setGate(nil) // the sandbox's first build, when New left it for later
	res, err := e.agent.UserCall(ctx, call, func(r tool.Result) string { return userShellNotice(command, r) })
	finish()
	return res, err
}

// userShellNotice is what the model reads of a command the user ran.
func userShellNotice(command string, r tool.Result) string {
	verb := "ran"
	if r.IsError {
		verb = "ran (it failed)"
	}
	return fmt.Sprintf("%s The user %s this command themselves, in the workspace:\n$ %s\n%s", UserShellPrefix, verb,
		strings.ReplaceAll(command, "\n", " "), strings.TrimRight(r.Content.Text(), "\n"))
}

// ParseUserShell reads a notice Shell recorded: the command, its output
// and whether it failed (ok is false for any other notice).
func ParseUserShell(notice string) (command, output string, failed, ok bool) {
	rest, ok := strings.CutPrefix(notice, UserShellPrefix)
	if !ok {
		return "", "", false, false
	}
	head, rest, _ := strings.Cut(rest, "\n$ ")
	command, output, _ = strings.Cut(rest, "\n")
	return command, output, strings.Contains(head, "(it failed)"), true
}

// queueShell is Apply's shell command: queued like a prompt.
func (s *Session) queueShell(command string) error {
	return s.enqueue(job{run: func(ctx context.Context) (agent.Outcome, error) {
		_, err := s.eng.Shell(ctx, command)
		return agent.Outcome{}, err
	}})
}
