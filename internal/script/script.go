// Package script is the script tool: a Starlark program (go.starlark.net,
// hermetic and step-limited) in which every other tool the agent has is a
// function. Each call goes through the tool.Caller the turn loop hands the
// tool — the same hooks, permission guard, approval, sandbox and recording
// as a call the model makes itself — so a script can do nothing the model
// could not do call by call. The script's print output is the tool's
// result.
//
// Invariants:
//   - No recursion: the script tool is never a function inside a script,
//     and the calls a script makes carry no Caller of their own.
//   - Every run is bounded: execution steps (Limits.Steps), wall time
//     (Limits.Timeout, and the call's context) and output (Limits.Output,
//     head and tail kept).
package script

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"go.starlark.net/resolve"
	"go.starlark.net/starlark"
	"go.starlark.net/starlarkjson"
	"go.starlark.net/starlarkstruct"
	"go.starlark.net/syntax"

	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// Name is the script tool's name.
const Name = "script"

// Limits bound one script run.
type Limits struct {
	Steps   uint64        // Starlark execution steps
	Timeout time.Duration // wall time, the tools' own time included
	Output  int           // characters of print output kept (head and tail)
}

// DefaultLimits are the script tool's limits: ten million steps is a few
// seconds of pure computation; the wall time leaves room for a few slow
// commands; the output is the shell tool's default.
var DefaultLimits = Limits{Steps: 10_000_000, Timeout: 10 * time.Minute, Output: 12_000}

const description = `Runs a Starlark program (Python-like; no imports, classes, try or f-strings) in which your other tools are functions of the same name: keyword arguments in, text out. Example:
for p in ["a.go", "b.go"]:
    print(read(path=p))
r = shell(cmd="go test ./...", check=False)
if not r.ok:
    print("tests failed:", r.text)
A failed call raises an error that stops the script (naming the line) unless you pass check=False, which returns a struct with .ok and .text. What the script prints is the result. json.encode/json.decode are available. Use it to batch calls or act on results in one step; each call is checked and approved as if you made it.`

type args struct {
	Code string `json:"code" jsonschema:"Starlark source"`
}

// Tool is the script tool with limits l.
func Tool(l Limits) tool.Tool {
	return tool.Func(Name, description, func(ctx context.Context, _ *tool.Env, a args) tool.Result {
		c, ok := tool.CallerFrom(ctx)
		if !ok {
			return fail("error: script cannot run here (a script cannot call script)")
		}
		out, err := Run(ctx, a.Code, c, l)
		if err != nil {
			text := "error: " + err.Error()
			if out != "" {
				text = out + "\n" + text
			}
			return fail(text)
		}
		return tool.Result{Content: protocol.Text(out)}
	})
}

func fail(text string) tool.Result {
	return tool.Result{Content: protocol.Text(text), IsError: true}
}

// Run executes code with every tool of c (but the script tool) as a
// function and returns what it printed. An error — a syntax error, an
// uncaught tool error, a limit — names the script's line; out is what was
// printed before it.
func Run(ctx context.Context, code string, c tool.Caller, l Limits) (out string, err error) {
	return RunWith(ctx, code, c, l, Options{})
}

// Options extend a run for programs other than the script tool (the
// workflows): the file name errors report and more predeclared names.
type Options struct {
	Filename string              // "" = "script"
	Extra    starlark.StringDict // more builtins; they shadow tools of the same name
}

// RunWith is Run with o: the same tools, limits and line-named errors,
// plus o's builtins.
func RunWith(ctx context.Context, code string, c tool.Caller, l Limits, o Options) (out string, err error) {
	file := o.Filename
	if file == "" {
		file = Name
	}
	if l.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, l.Timeout)
		defer cancel()
	}
	buf := newCapped(l.Output)
	thread := &starlark.Thread{
		Name:  Name,
		Print: func(_ *starlark.Thread, msg string) { buf.WriteString(msg + "\n") },
	}
	Bound(thread, l.Steps)
	stop := context.AfterFunc(ctx, func() {
		reason := "it was cancelled"
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			reason = fmt.Sprintf("it ran longer than %s", l.Timeout)
		}
		thread.Cancel(reason)
	})
	defer stop()

	predeclared := starlark.StringDict{
		"json": starlarkjson.Module,
	}
	for _, name := range c.Tools() {
		if name != Name {
			// A name that is no identifier (an MCP tool "create-issue")
			// is called by its spelling with _ for the other characters.
			predeclared[identifier(name)] = toolFunc(ctx, c, name)
		}
	}
	for k, v := range o.Extra {
		predeclared[k] = v
	}
	opts := &syntax.FileOptions{While: true, TopLevelControl: true, GlobalReassign: true, Recursion: true, Set: true}
	_, err = starlark.ExecFileOptions(opts, thread, file, code, predeclared)
	return buf.String(), describe(err, file, l)
}

// Bound limits thread to steps execution steps (0 = none): past them it
// stops at the next instruction that names a line, so the error says
// where the program looped.
func Bound(thread *starlark.Thread, steps uint64) {
	if steps > 0 {
		thread.SetMaxExecutionSteps(steps)
		thread.OnMaxSteps = stopAtALine()
	}
}

// identifier is name with every character that cannot be in a Starlark
// identifier replaced by _.
func identifier(name string) string {
	return strings.Map(func(r rune) rune {
		if r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			return r
		}
		return '_'
	}, name)
}

// stopAtALine is the step limit's action: it stops the script at the
// first instruction that names a line. Some instructions (a loop's jump
// back) carry no position and report their function's own, which would
// send the model to the wrong line; a few more steps reach one that has.
func stopAtALine() func(*starlark.Thread) {
	grace := 0
	return func(thread *starlark.Thread) {
		if grace < 16 {
			fr := thread.DebugFrame(0)
			if fn, ok := fr.Callable().(*starlark.Function); ok && samePos(fr.Position(), fn.Position()) {
				grace++
				return
			}
		}
		thread.Cancel("too many steps")
	}
}

func samePos(a, b syntax.Position) bool {
	return a.Line == b.Line && a.Col == b.Col && a.Filename() == b.Filename()
}

// describe turns a Starlark error into one the model can act on: what
// went wrong and at which line.
func describe(err error, file string, l Limits) error {
	var se syntax.Error
	var re resolve.ErrorList
	var ee *starlark.EvalError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &se):
		return fmt.Errorf("syntax error at line %d, column %d: %s", se.Pos.Line, se.Pos.Col, se.Msg)
	case errors.As(err, &re) && len(re) > 0:
		var msgs []string
		for _, e := range re {
			msgs = append(msgs, fmt.Sprintf("line %d: %s", e.Pos.Line, e.Msg))
		}
		return errors.New(strings.Join(msgs, "; "))
	case errors.As(err, &ee):
		line := 0
		for _, fr := range ee.CallStack {
			if fr.Pos.Filename() == file {
				line = int(fr.Pos.Line) // the innermost frame of the script itself
			}
		}
		msg := ee.Msg
		if strings.Contains(msg, "too many steps") {
			msg = fmt.Sprintf("the script was stopped after %d execution steps (an endless loop?)", l.Steps)
		} else if strings.HasPrefix(msg, "Starlark computation cancelled: ") {
			msg = "the script was stopped: " + strings.TrimPrefix(msg, "Starlark computation cancelled: ")
		}
		if line > 0 {
			return fmt.Errorf("line %d: %s", line, msg)
		}
		return errors.New(msg)
	}
	return err
}

// toolFunc is the Starlark function for one tool: keyword arguments
// become the call's JSON arguments; the result is the tool's text, or a
// struct(ok, text) with check=False; a failed call raises otherwise.
func toolFunc(ctx context.Context, c tool.Caller, name string) *starlark.Builtin {
	return starlark.NewBuiltin(name, func(thread *starlark.Thread, b *starlark.Builtin, pos starlark.Tuple, kwargs []starlark.Tuple) (starlark.Value, error) {
		if len(pos) > 0 {
			return nil, fmt.Errorf("%s takes keyword arguments only, e.g. %s(name=value)", name, name)
		}
		check := true
		fields := starlark.NewDict(len(kwargs))
		for _, kv := range kwargs {
			k := string(kv[0].(starlark.String))
			if k == "check" {
				v, ok := kv[1].(starlark.Bool)
				if !ok {
					return nil, fmt.Errorf("%s: check must be True or False", name)
				}
				check = bool(v)
				continue
			}
			if err := fields.SetKey(kv[0], kv[1]); err != nil {
				return nil, err
			}
		}
		encoded, err := starlark.Call(thread, starlarkjson.Module.Members["encode"], starlark.Tuple{fields}, nil)
		if err != nil {
			return nil, fmt.Errorf("%s: arguments are not JSON values: %w", name, err)
		}
		res := c.Call(ctx, name, string(encoded.(starlark.String)))
		text := res.Content.Text()
		if !check {
			return starlarkstruct.FromStringDict(starlarkstruct.Default, starlark.StringDict{
				"ok":   starlark.Bool(!res.IsError),
				"text": starlark.String(text),
			}), nil
		}
		if res.IsError {
			return nil, fmt.Errorf("%s failed: %s", name, strings.TrimPrefix(text, "error: "))
		}
		return starlark.String(text), nil
	})
}
