package hooks

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"
)

// Runner runs the hooks loaded from hooks files. The zero value and a nil
// *Runner run nothing.
type Runner struct {
	hooks map[Event][]hook
}

// Input is what a hook is told about the event, sent as JSON on its stdin.
// Only the fields the event has are sent (see the package comment).
type Input struct {
	SessionID, TranscriptPath, Cwd string
	ToolName                       string
	ToolInput, ToolResponse        json.RawMessage
	Prompt                         string
	StopHookActive                 bool
	// Summary is the summary a compaction made (PostCompact).
	Summary string
	// Trigger is what set the event off: Pre/PostCompact "manual" | "auto",
	// SessionStart "startup" | "resume" | "clear" | "compact", SessionEnd
	// the reason. The matcher of those events is matched against it.
	Trigger string
}

// Outcome is what the hooks of one event decided, combined over all of
// them: any block blocks; reasons, contexts and messages are joined in
// hook order.
type Outcome struct {
	// Block: PreToolUse — do not run the tool, tell the model Reason;
	// PostToolUse — give the model Reason after the tool's output;
	// UserPromptSubmit — refuse the prompt, tell the user Reason; Stop —
	// do not stop, tell the model Reason and keep going.
	Block             bool
	Reason            string
	AdditionalContext string // for the model, appended to the conversation
	Errors            []string
	// Halt: a hook answered {"continue": false}; end the turn and show
	// HaltReason (its stopReason) to the user.
	Halt       bool
	HaltReason string
	// Permission is a PreToolUse hook's permissionDecision: "allow" (run
	// without asking), "ask" (ask the user) or "deny" (Block is set too).
	// With several hooks deny beats ask beats allow.
	Permission string
	// UpdatedInput, when set, replaces the tool call's arguments
	// (PreToolUse hookSpecificOutput.updatedInput; the last one wins).
	UpdatedInput json.RawMessage
	// Messages are systemMessage texts for the user, not the model.
	Messages []string
	// Summary, when set, replaces a compaction's summary (PostCompact
	// hookSpecificOutput.summary; the last one wins).
	Summary string
}

// Has reports whether any hook is attached to ev, so callers can skip
// building an Input.
func (r *Runner) Has(ev Event) bool {
	return r != nil && len(r.hooks[ev]) > 0
}

// Run runs the hooks of ev that match in, one after another, and combines
// what they decided. It returns when the last hook has ended, or been
// killed at its timeout; a cancelled ctx kills the running hook and skips
// the rest.
func (r *Runner) Run(ctx context.Context, ev Event, in Input) Outcome {
	var out Outcome
	if !r.Has(ev) {
		return out
	}
	var stdin []byte
	ran := map[string]bool{}
	for _, h := range r.hooks[ev] {
		if !h.matches(ev, in) {
			continue
		}
		if ran[h.command] {
			continue
		}
		ran[h.command] = true
		if ctx.Err() != nil {
			out.Errors = append(out.Errors, fmt.Sprintf("%s hook %s: not run: %v", ev, short(h.command), context.Cause(ctx)))
			continue
		}
		if stdin == nil {
			stdin = payload(ev, in)
		}
		res := execute(ctx, h, in.Cwd, stdin)
		out.apply(ev, h, res)
	}
	return out
}

// matches reports whether h runs for this event: tool events match the
// tool name, PreCompact and the session events match Trigger, and
// UserPromptSubmit and Stop have no matcher.
func (h hook) matches(ev Event, in Input) bool {
	if h.match == nil {
		return true
	}
	switch ev {
	case PreToolUse, PostToolUse:
		alias := ClaudeName(in.ToolName)
		return h.match.MatchString(in.ToolName) || alias != "" && h.match.MatchString(alias)
	case PreCompact, PostCompact, SessionStart, SessionEnd:
		return h.match.MatchString(in.Trigger)
	}
	return true
}

// result is how one hook process ended.
type result struct {
	code           int // exit status; -1 when err is set
	stdout, stderr string
	err            error // did not start, timed out or was cancelled
}

const (
	maxStdout = 1 << 20
	maxStderr = 64 << 10
)

// execute runs one hook with its timeout and returns how it ended.
func execute(ctx context.Context, h hook, cwd string, stdin []byte) result {
	hctx, cancel := context.WithTimeout(ctx, h.timeout)
	defer cancel()
	cmd := exec.CommandContext(hctx, "sh", "-c", h.command)
	cmd.Dir = cwd
	cmd.Env = append(os.Environ(), "CLAUDE_PROJECT_DIR="+cwd, "OPENSEEK_PROJECT_DIR="+cwd)
	cmd.Stdin = bytes.NewReader(stdin)
	stdout, stderr := &capped{max: maxStdout}, &capped{max: maxStderr}
	cmd.Stdout, cmd.Stderr = stdout, stderr
	// A background child may keep the output pipes open after the hook
	// exits; stop waiting for them after a moment.
	cmd.WaitDelay = time.Second
	ownGroup(cmd)
	err := cmd.Run()
	res := result{code: -1, stdout: stdout.String(), stderr: stderr.String()}
	switch {
	case err == nil || errors.Is(err, exec.ErrWaitDelay):
		res.code = 0
		if cmd.ProcessState != nil {
			res.code = cmd.ProcessState.ExitCode()
		}
	case ctx.Err() != nil:
		res.err = fmt.Errorf("cancelled: %w", context.Cause(ctx))
	case hctx.Err() != nil:
		res.err = fmt.Errorf("timed out after %v; killed", h.timeout)
	default:
		var ee *exec.ExitError
		if errors.As(err, &ee) && ee.ExitCode() >= 0 {
			res.code = ee.ExitCode()
		} else {
			res.err = err
		}
	}
	return res
}

// canBlock reports whether exit 2 or a block decision means something for
// ev; for the others it is reported as an error.
func canBlock(ev Event) bool {
	switch ev {
	case PreToolUse, PostToolUse, UserPromptSubmit, Stop:
		return true
	}
	return false
}

// output is the JSON a hook may print on stdout when it exits 0.
type output struct {
	Continue           *bool  `json:"continue"`
	StopReason         string `json:"stopReason"`
	SystemMessage      string `json:"systemMessage"`
	Decision           string `json:"decision"`
	Reason             string `json:"reason"`
	HookSpecificOutput struct {
		PermissionDecision       string          `json:"permissionDecision"`
		PermissionDecisionReason string          `json:"permissionDecisionReason"`
		AdditionalContext        string          `json:"additionalContext"`
		UpdatedInput             json.RawMessage `json:"updatedInput"`
		Summary                  string          `json:"summary"`
	} `json:"hookSpecificOutput"`
}

// apply folds one hook's result into o.
func (o *Outcome) apply(ev Event, h hook, res result) {
	name := fmt.Sprintf("%s hook %s (%s)", ev, short(h.command), h.file)
	stderr := strings.TrimSpace(res.stderr)
	switch {
	case res.err != nil:
		o.fail(name, res.err.Error(), stderr)
	case res.code == 2 && canBlock(ev):
		reason := stderr
		if reason == "" {
			reason = fmt.Sprintf("blocked by %s (exit 2, no message)", name)
		}
		o.block(reason)
	case res.code != 0:
		o.fail(name, fmt.Sprintf("exited %d", res.code), stderr)
	default:
		o.passed(ev, name, strings.TrimSpace(res.stdout))
	}
}

// passed reads the stdout of a hook that exited 0.
func (o *Outcome) passed(ev Event, name, stdout string) {
	if !strings.HasPrefix(stdout, "{") {
		if stdout != "" && (ev == UserPromptSubmit || ev == SessionStart) {
			o.addContext(stdout)
		}
		return
	}
	var out output
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		o.fail(name, "printed invalid JSON", err.Error())
		return
	}
	if out.SystemMessage != "" {
		o.Messages = append(o.Messages, out.SystemMessage)
	}
	if out.Continue != nil && !*out.Continue {
		o.Halt = true
		o.HaltReason = join(o.HaltReason, out.StopReason)
	}
	hs := out.HookSpecificOutput
	if hs.AdditionalContext != "" {
		o.addContext(hs.AdditionalContext)
	}
	if ev == PostCompact && strings.TrimSpace(hs.Summary) != "" {
		o.Summary = hs.Summary
	}
	if ev == PreToolUse {
		perm := hs.PermissionDecision
		reason := hs.PermissionDecisionReason
		switch {
		case perm != "":
		case out.Decision == "approve":
			perm, reason = "allow", out.Reason
		case out.Decision == "block":
			perm, reason = "deny", out.Reason
		}
		switch perm {
		case "deny":
			if reason == "" {
				reason = "denied by " + name
			}
			o.block(reason)
			o.Permission = "deny"
		case "ask":
			if o.Permission != "deny" {
				o.Permission = "ask"
			}
		case "allow":
			if o.Permission == "" {
				o.Permission = "allow"
			}
		case "":
		default:
			o.fail(name, fmt.Sprintf("unknown permissionDecision %q (want allow, deny or ask)", perm), "")
		}
		if len(hs.UpdatedInput) > 0 && string(hs.UpdatedInput) != "null" {
			o.UpdatedInput = hs.UpdatedInput
		}
		return
	}
	if out.Decision == "block" && canBlock(ev) {
		reason := out.Reason
		if reason == "" {
			reason = "blocked by " + name
		}
		o.block(reason)
	}
}

func (o *Outcome) block(reason string) {
	o.Block = true
	o.Reason = join(o.Reason, reason)
}

func (o *Outcome) addContext(s string) {
	o.AdditionalContext = join(o.AdditionalContext, s)
}

func (o *Outcome) fail(name, what, detail string) {
	msg := name + ": " + what
	if detail != "" {
		msg += ": " + detail
	}
	o.Errors = append(o.Errors, msg)
}

func join(a, b string) string {
	switch {
	case b == "":
		return a
	case a == "":
		return b
	}
	return a + "\n" + b
}

// short abbreviates a command for messages.
func short(cmd string) string {
	cmd = strings.Join(strings.Fields(cmd), " ")
	if r := []rune(cmd); len(r) > 60 {
		cmd = string(r[:57]) + "..."
	}
	return fmt.Sprintf("%q", cmd)
}

// payload is the JSON sent on a hook's stdin.
func payload(ev Event, in Input) []byte {
	m := map[string]any{
		"session_id":      in.SessionID,
		"transcript_path": in.TranscriptPath,
		"cwd":             in.Cwd,
		"hook_event_name": ev,
	}
	switch ev {
	case PreToolUse, PostToolUse:
		m["tool_name"] = in.ToolName
		m["tool_input"] = rawOr(claudeInput(in.ToolName, in.ToolInput), "{}")
		if ev == PostToolUse {
			m["tool_response"] = rawOr(in.ToolResponse, "null")
		}
	case UserPromptSubmit:
		m["prompt"] = in.Prompt
	case Stop:
		m["stop_hook_active"] = in.StopHookActive
	case PreCompact:
		m["trigger"] = in.Trigger
		m["custom_instructions"] = ""
	case PostCompact:
		m["trigger"] = in.Trigger
		m["summary"] = in.Summary
	case SessionStart:
		m["source"] = in.Trigger
	case SessionEnd:
		m["reason"] = in.Trigger
	}
	data, err := json.Marshal(m)
	if err != nil { // unreachable: every value above encodes
		return []byte("{}")
	}
	return append(data, '\n')
}

// rawOr is raw when it is valid JSON, def when empty, and raw as a JSON
// string otherwise, so a caller's bad bytes cannot spoil the payload.
func rawOr(raw json.RawMessage, def string) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return json.RawMessage(def)
	}
	if json.Valid(raw) {
		return raw
	}
	s, _ := json.Marshal(string(raw))
	return s
}

// capped is a buffer that keeps the first max bytes written and discards
// the rest, so a chatty hook cannot fill memory (and never sees a write
// error for it).
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(len(p), room)])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }
