package evidence

import (
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/verify"
)

// Finding is a claim of the answer that the record does not back.
type Finding struct {
	Claim Claim
	// Message says so in one sentence for a person.
	Message string
}

// editTools change files when they succeed.
var editTools = map[string]bool{"write": true, "edit": true, "multi_edit": true, "apply_patch": true, "remove": true}

// place is where an event happened: its turn (1-based) and step.
type place struct{ turn, step int }

// run is a test or build run found in the record.
type run struct {
	kind    Kind
	ok      bool
	command string
	at      place
}

// Check looks for a claim in answer, the final answer of the session's
// last turn, and reports it when the session's record does not back it:
// no run of the kind claimed (a passing test run backs a build claim too),
// the last such run failed, or a file was edited after it. Events a
// conversation rewind hid do not count.
func Check(answer string, s *session.Session) (Finding, bool) {
	claim, ok := FindClaim(answer)
	if !ok {
		return Finding{}, false
	}
	var (
		last     *run
		lastEdit *place
		runSeq   int
		editSeq  int
	)
	turnStarts := map[int]bool{}
	for _, t := range s.Turns() {
		turnStarts[t.Sequence] = true
	}
	hidden := s.Hidden()
	calls := map[string]chat.ToolCall{}
	callAt := map[string]place{}
	var now place
	for i, e := range s.Events {
		if hidden != nil && hidden[i] {
			continue
		}
		switch it := e.Item.(type) {
		case *session.User:
			if turnStarts[e.Sequence] {
				now = place{turn: now.turn + 1}
			}
		case *session.Assistant:
			if it.IsReplay {
				continue
			}
			now.step++
			for _, c := range it.ToolCalls {
				calls[c.ID], callAt[c.ID] = c, now
			}
		case *session.ToolResult:
			name, args, at := it.ToolName, it.Arguments, now
			if c, ok := calls[it.ToolCallID]; ok && it.Parent == "" {
				name, args, at = c.Name, c.Arguments, callAt[it.ToolCallID]
			} else if p, ok := callAt[it.Parent]; ok {
				at = p
			}
			switch {
			case editTools[name] && !it.IsError:
				lastEdit, editSeq = &at, e.Sequence
			case name == "shell":
				var a struct {
					Cmd        string `json:"cmd"`
					Background bool   `json:"background"`
				}
				if json.Unmarshal([]byte(args), &a) != nil || a.Background {
					continue
				}
				if k := Classify(a.Cmd); k >= claim.Kind {
					last, runSeq = &run{kind: k, ok: !it.IsError, command: a.Cmd, at: at}, e.Sequence
				}
			}
		case *session.Notice:
			if cmd, ok, isRun := verifierRun(it.Content); isRun {
				if k := max(Classify(cmd), Build); k >= claim.Kind {
					last, runSeq = &run{kind: k, ok: ok, command: cmd, at: now}, e.Sequence
				}
			}
		}
	}
	what, ran := "the tests pass", "no test ran"
	runName := "test run"
	if claim.Kind == Build {
		what, ran, runName = "the build succeeds", "no build or test ran", "build or test run"
	}
	where := func(p place) string {
		if p.turn == now.turn {
			return fmt.Sprintf("step %d", p.step)
		}
		return fmt.Sprintf("turn %d, step %d", p.turn, p.step)
	}
	var msg string
	switch {
	case last == nil:
		msg = fmt.Sprintf("The answer says %s, but %s in this session.", what, ran)
	case lastEdit != nil && editSeq > runSeq:
		msg = fmt.Sprintf("The answer says %s, but %s after the last edit (%s).", what, ran, where(*lastEdit))
	case !last.ok:
		msg = fmt.Sprintf("The answer says %s, but the last %s (`%s`, %s) failed.", what, runName, oneLine(last.command), where(last.at))
	default:
		return Finding{}, false
	}
	return Finding{Claim: claim, Message: msg}, true
}

// verifierRun reads a verifier's session note ("[verify] `cmd` passed in
// 1.2s"): the command, whether it passed, and whether c is such a note.
var verifyNote = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile("^" + regexp.QuoteMeta(verify.RepairPrefix) + " `(.*)` (passed|failed \\(exit -?\\d+\\)|timed out|could not run) in ")
})

func verifierRun(c string) (cmd string, ok, isRun bool) {
	m := verifyNote().FindStringSubmatch(c)
	if m == nil {
		return "", false, false
	}
	return m[1], m[2] == "passed", true
}

func oneLine(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

// Classify says whether a shell command line runs tests (Tests), builds
// (Build) or neither (0): the strongest of its simple commands.
func Classify(cmdline string) Kind {
	if !mentionsRunner(cmdline) {
		return 0 // most commands (ls, cat, grep…) are not parsed at all
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmdline), "")
	if err != nil {
		return 0
	}
	var k Kind
	syntax.Walk(f, func(n syntax.Node) bool {
		if ce, ok := n.(*syntax.CallExpr); ok {
			var argv []string
			for _, w := range ce.Args {
				argv = append(argv, w.Lit())
			}
			k = max(k, classifyArgv(argv))
		}
		return true
	})
	return k
}

// runners are substrings one of which every recognised command holds.
var runners = []string{"go", "cargo", "npm", "pnpm", "yarn", "bun", "npx", "pnpx", "test", "jest", "mocha", "tox", "nox", "rspec", "phpunit",
	"python", "make", "just", "task", "tsc", "gcc", "g++", "clang", "javac", "rustc", "mvn", "gradle", "dotnet"}

func mentionsRunner(s string) bool {
	for _, r := range runners {
		if strings.Contains(s, r) {
			return true
		}
	}
	return false
}

// classifyArgv recognises one simple command.
func classifyArgv(argv []string) Kind {
	for len(argv) > 0 && (argv[0] == "env" || argv[0] == "time" || argv[0] == "nice" || argv[0] == "sudo" || strings.Contains(argv[0], "=")) {
		argv = argv[1:]
	}
	if len(argv) == 0 {
		return 0
	}
	prog := argv[0][strings.LastIndexByte(argv[0], '/')+1:]
	sub := func(i int) string {
		if i < len(argv) {
			return argv[i]
		}
		return ""
	}
	switch prog {
	case "go":
		switch sub(1) {
		case "test":
			return Tests
		case "build", "vet", "install":
			return Build
		}
	case "cargo":
		switch sub(1) {
		case "test", "nextest":
			return Tests
		case "build", "check", "clippy":
			return Build
		}
	case "npm", "pnpm", "yarn", "bun":
		s := sub(1)
		if s == "run" || s == "run-script" {
			s = sub(2)
		}
		switch {
		case s == "test" || s == "t" || strings.HasPrefix(s, "test:"):
			return Tests
		case s == "build" || s == "typecheck" || s == "tsc" || strings.HasPrefix(s, "build:"):
			return Build
		}
	case "npx", "pnpx":
		return classifyArgv(argv[1:])
	case "pytest", "py.test", "jest", "vitest", "mocha", "tox", "nox", "rspec", "phpunit", "ctest":
		return Tests
	case "python", "python3":
		if sub(1) == "-m" && (sub(2) == "pytest" || sub(2) == "unittest") {
			return Tests
		}
	case "make", "gmake", "just", "task":
		for _, t := range argv[1:] {
			switch {
			case t == "test" || t == "tests" || t == "check" || strings.HasPrefix(t, "test-") || strings.HasPrefix(t, "test_"):
				return Tests
			case t == "build" || t == "all":
				return Build
			}
		}
		if prog == "make" && len(argv) == 1 {
			return Build
		}
	case "tsc", "gcc", "g++", "clang", "javac", "rustc":
		return Build
	case "mvn", "gradle", "gradlew", "dotnet":
		for _, t := range argv[1:] {
			switch t {
			case "test", "verify", "check":
				return Tests
			case "build", "compile", "package", "assemble":
				return Build
			}
		}
	}
	return 0
}
