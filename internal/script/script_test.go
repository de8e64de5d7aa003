package script

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"go.starlark.net/starlark"

	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// fakeCaller answers read and shell calls from a table and records them.
type fakeCaller struct {
	mu    sync.Mutex
	calls []string // "name args"
	files map[string]string
}

func (f *fakeCaller) Tools() []string {
	return []string{"mcp__gh__create-issue", "read", "script", "shell"}
}

func (f *fakeCaller) Call(ctx context.Context, name, args string) tool.Result {
	f.mu.Lock()
	f.calls = append(f.calls, name+" "+args)
	f.mu.Unlock()
	var a map[string]any
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		return tool.Result{Content: protocol.Text("error: bad JSON " + args), IsError: true}
	}
	switch name {
	case "read":
		p, _ := a["path"].(string)
		if text, ok := f.files[p]; ok {
			return tool.Result{Content: protocol.Text(text)}
		}
		return tool.Result{Content: protocol.Text("error: " + p + " does not exist"), IsError: true}
	case "mcp__gh__create-issue":
		return tool.Result{Content: protocol.Text("issue #1")}
	case "shell":
		if a["cmd"] == "sleep" {
			<-ctx.Done()
			return tool.Result{Content: protocol.Text("error: cancelled"), IsError: true}
		}
		return tool.Result{Content: protocol.Text("ran " + args)}
	}
	return tool.Result{Content: protocol.Text("error: no tool " + name), IsError: true}
}

func newFake() *fakeCaller {
	return &fakeCaller{files: map[string]string{"a.txt": "alpha", "b.txt": "beta"}}
}

var testLimits = Limits{Steps: 100_000, Timeout: time.Minute, Output: 1000}

func TestRun(t *testing.T) {
	tests := []struct {
		name, code string
		out        string   // exact output
		err        string   // a regular expression the error matches; "" = none
		calls      []string // the calls made, in order
	}{
		{name: "tools are functions with keyword arguments",
			code:  "for p in ['a.txt', 'b.txt']:\n    print(p, read(path=p))\nprint(shell(cmd='go test', timeout_ms=5))",
			out:   "a.txt alpha\nb.txt beta\nran {\"cmd\":\"go test\",\"timeout_ms\":5}\n",
			calls: []string{`read {"path":"a.txt"}`, `read {"path":"b.txt"}`, `shell {"cmd":"go test","timeout_ms":5}`}},
		{name: "a failed call raises and names the line",
			code: "print('before')\nx = read(path='nope')\nprint('after')",
			out:  "before\n", err: "line 2: read failed: nope does not exist"},
		{name: "check=False returns ok and text",
			code: "r = read(path='nope', check=False)\nprint(r.ok, r.text)\nr = read(path='a.txt', check=False)\nprint(r.ok, r.text)",
			out:  "False error: nope does not exist\nTrue alpha\n"},
		{name: "positional arguments are refused",
			code: "read('a.txt')", err: "line 1: read takes keyword arguments only"},
		{name: "the script tool is not a function inside a script",
			code: "script(code='print(1)')", err: "line 1: undefined: script", calls: nil},
		{name: "syntax error names line and column",
			code: "print('ok')\nfor x in [1, 2]\n    print(x)", err: "syntax error at line 3, column 1: got newline, want ':'"},
		{name: "runaway loop is stopped by the step limit",
			code: "n = 0\nwhile True:\n    n += 1", err: `line 3: the script was stopped after 100000 execution steps \(an endless loop\?\)`},
		{name: "runaway loop in a function names the function's line",
			code: "def spin():\n    n = 0\n    while n >= 0:\n        n += 1\n\nspin()", err: `line [34]: the script was stopped after 100000 execution steps`},
		{name: "a tool whose name is no identifier is called with _",
			code: "print(mcp__gh__create_issue(title='x'))", out: "issue #1\n", calls: []string{`mcp__gh__create-issue {"title":"x"}`}},
		{name: "json is available",
			code: "d = json.decode('{\"a\": [1, 2]}')\nprint(d['a'][1], json.encode({'k': True}))",
			out:  "2 {\"k\":true}\n"},
		{name: "non-JSON arguments are refused",
			code: "read(path=len)", err: "read: arguments are not JSON values"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			f := newFake()
			out, err := Run(context.Background(), tc.code, f, testLimits)
			if out != tc.out && (tc.out != "" || tc.err == "") {
				t.Errorf("output %q, want %q", out, tc.out)
			}
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("error %v", err)
			case tc.err != "" && (err == nil || !regexp.MustCompile(tc.err).MatchString(err.Error())):
				t.Errorf("error %v, want %q", err, tc.err)
			}
			if tc.calls != nil && strings.Join(f.calls, "\n") != strings.Join(tc.calls, "\n") {
				t.Errorf("calls\n%s\nwant\n%s", strings.Join(f.calls, "\n"), strings.Join(tc.calls, "\n"))
			}
			if strings.Contains(tc.code, "script(") && len(f.calls) > 0 {
				t.Errorf("a script made calls: %v", f.calls)
			}
		})
	}
}

// The wall-time limit cancels the tool a script waits on and stops it.
func TestRunStopsAtTheWallTimeLimit(t *testing.T) {
	f := newFake()
	l := testLimits
	l.Timeout = 50 * time.Millisecond
	_, err := Run(context.Background(), "print(1)\nshell(cmd='sleep')\nprint(2)", f, l)
	if err == nil || !strings.Contains(err.Error(), "line 2: shell failed: cancelled") {
		t.Fatalf("error %v", err)
	}
	_, err = Run(context.Background(), "while True:\n    pass", f, Limits{Timeout: 50 * time.Millisecond})
	if err == nil || !strings.Contains(err.Error(), "the script was stopped: it ran longer than 50ms") {
		t.Fatalf("error %v", err)
	}
}

// A cancelled turn stops a script that computes.
func TestRunStopsWhenCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Run(ctx, "while True:\n    pass", newFake(), Limits{})
	if err == nil || !strings.Contains(err.Error(), "line 1: the script was stopped: it was cancelled") {
		t.Fatalf("error %v", err)
	}
}

// Output is capped like the shell tool's: head and tail kept.
func TestRunCapsOutput(t *testing.T) {
	out, err := Run(context.Background(), "for i in range(1000):\n    print('line %d' % i)", newFake(), testLimits)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(out, "line 0\nline 1\n") || !strings.HasSuffix(out, "line 998\nline 999\n") {
		t.Errorf("head or tail lost: %q … %q", out[:20], out[len(out)-20:])
	}
	if !strings.Contains(out, "characters of output left out") || len(out) > 1100 {
		t.Errorf("output of %d bytes not capped:\n%s", len(out), out)
	}
}

// The tool refuses to run without a Caller — inside another script's
// call — and reports a script's error as an error result with what it
// printed first.
func TestTool(t *testing.T) {
	tl := Tool(testLimits)
	res, err := tl.Run(context.Background(), nil, json.RawMessage(`{"code":"print(1)"}`))
	if err != nil || !res.IsError || !strings.Contains(res.Content.Text(), "a script cannot call script") {
		t.Fatalf("without a caller: %+v %v", res, err)
	}
	ctx := tool.WithCaller(context.Background(), newFake())
	res, _ = tl.Run(ctx, nil, json.RawMessage(`{"code":"print(read(path='a.txt'))\nread(path='zz')"}`))
	if !res.IsError || res.Content.Text() != "alpha\n\nerror: line 2: read failed: zz does not exist" {
		t.Fatalf("result %+v", res)
	}
	res, _ = tl.Run(ctx, nil, json.RawMessage(`{"code":"print(read(path='b.txt'))"}`))
	if res.IsError || res.Content.Text() != "beta\n" {
		t.Fatalf("result %+v", res)
	}
}

// What the tool adds to every request stays small.
func TestToolIsSmall(t *testing.T) {
	tl := Tool(DefaultLimits)
	desc, _ := json.Marshal(tl.Description)
	if n := len(tl.Name) + len(desc) + len(tl.Schema); n > 1500 {
		t.Errorf("the script tool costs %d bytes of every request; keep it under 1500", n)
	}
}

// RunWith adds builtins (which shadow a tool of the same name) and names
// the program's file in its errors' lines.
func TestRunWithExtraBuiltinsAndFilename(t *testing.T) {
	hello := starlark.NewBuiltin("read", func(*starlark.Thread, *starlark.Builtin, starlark.Tuple, []starlark.Tuple) (starlark.Value, error) {
		return starlark.String("from the builtin"), nil
	})
	out, err := RunWith(context.Background(), "print(read())\nprint(shell(cmd='x'))\nfail('stop')\n", newFake(), testLimits,
		Options{Filename: "flow", Extra: starlark.StringDict{"read": hello}})
	if out != "from the builtin\nran {\"cmd\":\"x\"}\n" || err == nil || err.Error() != "line 3: fail: stop" {
		t.Errorf("out %q, err %v", out, err)
	}
}
