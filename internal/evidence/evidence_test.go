package evidence

import (
	"fmt"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/chat"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/protocol"
)

func TestFindClaim(t *testing.T) {
	for _, tc := range []struct {
		answer string
		kind   Kind
		quote  string
	}{
		{"Fixed the parser. All tests pass.", Tests, "All tests pass"},
		{"I fixed it and the tests are green now.", Tests, "the tests are green"},
		{"Done: tests pass and the build succeeds.", Tests, "tests pass"},
		{"All 42 tests passed.", Tests, "All 42 tests passed"},
		{"The unit tests now pass.", Tests, "The unit tests now pass"},
		{"The test suite passes.", Tests, "The test suite passes"},
		{"Everything is done, with all tests passing.", Tests, "with all tests passing"},
		{"The build succeeds.", Build, "The build succeeds"},
		{"It compiles cleanly now.", Build, "It compiles"},
		{"The code now builds without errors.", Build, "The code now builds"},
		{"I renamed the function.", 0, ""},
		{"Run `go test ./...` to check that all tests pass.", 0, ""},
		{"Not all tests pass yet.", 0, ""},
		{"The tests don't pass: two fail.", 0, ""},
		{"If the tests pass, merge it.", 0, ""},
		{"The tests should pass now.", 0, ""},
		{"Most tests pass except TestFoo.", 0, ""},
		{"I could not make sure the build succeeds.", 0, ""},
		{"I added a test that checks the parser.", 0, ""},
	} {
		c, ok := FindClaim(tc.answer)
		if ok != (tc.kind != 0) || c.Kind != tc.kind || c.Quote != tc.quote {
			t.Errorf("FindClaim(%q) = %+v %v, want kind %d %q", tc.answer, c, ok, tc.kind, tc.quote)
		}
	}
}

func TestClassify(t *testing.T) {
	for cmd, want := range map[string]Kind{
		"go test ./...":                     Tests,
		"cd pkg && go test -run X . | tail": Tests,
		"GOFLAGS=-mod=mod go build ./...":   Build,
		"go vet ./... && go test ./...":     Tests,
		"cargo test --quiet":                Tests,
		"cargo build":                       Build,
		"npm test":                          Tests,
		"npm run test:unit":                 Tests,
		"pnpm run build":                    Build,
		"npx vitest run":                    Tests,
		"python3 -m pytest -q":              Tests,
		"pytest tests/":                     Tests,
		"make test":                         Tests,
		"make":                              Build,
		"ls -la && cat go.mod":              0,
		"echo go test":                      0,
		"grep -r 'npm test' .":              0,
		"for":                               0, // does not parse
	} {
		if got := Classify(cmd); got != want {
			t.Errorf("Classify(%q) = %d, want %d", cmd, got, want)
		}
	}
}

// rec builds a session from a compact script: "u:text" a prompt, "call
// shell:cmd" / "call write" a model call, "ok"/"fail" its result, "verify
// cmd ok|fail" a verifier note, "a:text" an answer ending the turn.
func rec(lines ...string) *session.Session {
	s := &session.Session{ID: "t"}
	add := func(it session.Item) {
		s.Events = append(s.Events, session.Event{Sequence: len(s.Events) + 1, Item: it})
	}
	var pending chat.ToolCall
	n := 0
	for _, l := range lines {
		var arg string
		switch {
		case l[:2] == "u:":
			add(&session.User{Content: protocol.Text(l[2:])})
		case l[:2] == "a:":
			add(&session.Assistant{Content: l[2:], ToolCalls: []chat.ToolCall{}})
			add(&session.Terminal{Kind: session.Finished, Message: l[2:]})
		case l == "ok" || l == "fail":
			add(&session.ToolResult{ToolCallID: pending.ID, ToolName: pending.Name, IsError: l == "fail", Content: protocol.Text("x")})
		case len(l) > 7 && l[:7] == "verify ":
			var cmd, res string
			fmt.Sscanf(l, "verify %q %s", &cmd, &res)
			word := "passed"
			if res == "fail" {
				word = "failed (exit 1)"
			}
			add(&session.Notice{Content: fmt.Sprintf("[verify] `%s` %s in 1.2s", cmd, word)})
		default:
			n++
			name := l[5:]
			if i := indexByte(name, ':'); i >= 0 {
				name, arg = name[:i], name[i+1:]
			}
			args := "{}"
			if name == "shell" {
				args = fmt.Sprintf(`{"cmd":%q}`, arg)
			}
			pending = chat.ToolCall{ID: fmt.Sprint("c", n), Name: name, Arguments: args}
			add(&session.Assistant{ToolCalls: []chat.ToolCall{pending}})
		}
	}
	return s
}

func indexByte(s string, c byte) int {
	for i := range len(s) {
		if s[i] == c {
			return i
		}
	}
	return -1
}

func TestCheck(t *testing.T) {
	const claim = "Done. All tests pass."
	for _, tc := range []struct {
		name string
		s    *session.Session
		want string // "" = no warning
	}{
		{"no test ever", rec("u:fix", "call write", "ok"),
			"The answer says the tests pass, but no test ran in this session."},
		{"test after the edit passed", rec("u:fix", "call write", "ok", "call shell:go test ./...", "ok"), ""},
		{"edit after the test", rec("u:fix", "call shell:go test ./...", "ok", "call edit", "ok", "call shell:ls", "ok"),
			"The answer says the tests pass, but no test ran after the last edit (step 2)."},
		{"a failed edit is no edit", rec("u:fix", "call shell:go test ./...", "ok", "call edit", "fail"), ""},
		{"the last test failed", rec("u:fix", "call write", "ok", "call shell:go test ./...", "ok", "call shell:make test", "fail"),
			"The answer says the tests pass, but the last test run (`make test`, step 3) failed."},
		{"a build does not back a test claim", rec("u:fix", "call write", "ok", "call shell:go build ./...", "ok"),
			"The answer says the tests pass, but no test ran in this session."},
		{"a verifier running tests backs it", rec("u:fix", "call write", "ok", "verify \"go test ./...\" ok"), ""},
		{"an edit in an earlier turn", rec("u:one", "call shell:go test ./...", "ok", "call write", "ok", "a:written", "u:two", "call shell:ls", "ok"),
			"The answer says the tests pass, but no test ran after the last edit (turn 1, step 2)."},
		{"a test in an earlier turn after every edit", rec("u:one", "call write", "ok", "call shell:go test ./...", "ok", "a:ok", "u:two", "call shell:ls", "ok"), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, ok := Check(claim, tc.s)
			if ok != (tc.want != "") || f.Message != tc.want {
				t.Errorf("Check = %q %v, want %q", f.Message, ok, tc.want)
			}
		})
	}
	// A build claim: a verifier's build or a passing test run backs it.
	for _, tc := range []struct {
		s    *session.Session
		want string
	}{
		{rec("u:fix", "call write", "ok", "verify \"go build -o /dev/null ./... && go vet ./...\" ok"), ""},
		{rec("u:fix", "call write", "ok", "call shell:cargo test", "ok"), ""},
		{rec("u:fix", "call write", "ok", "verify \"go build ./...\" fail"),
			"The answer says the build succeeds, but the last build or test run (`go build ./...`, step 1) failed."},
		{rec("u:fix", "call write", "ok"), "The answer says the build succeeds, but no build or test ran in this session."},
	} {
		f, _ := Check("The build succeeds.", tc.s)
		if f.Message != tc.want {
			t.Errorf("build claim: %q, want %q", f.Message, tc.want)
		}
	}
	if _, ok := Check("I renamed it.", rec("u:fix", "call write", "ok")); ok {
		t.Error("an answer without a claim was flagged")
	}
}

// BenchmarkCheck is the turn-end cost: an answer without a claim (the
// common case: the record is not read), and a claim checked against a
// 10,000-event session.
func BenchmarkCheck(b *testing.B) {
	var lines []string
	for range 1000 {
		lines = append(lines, "u:go on", "call write", "ok", "call shell:go test ./...", "ok", "a:Done.")
	}
	s := rec(lines...)
	answer := strings.Repeat("I changed the parser so that it reads nested lists. ", 20)
	b.Run("no claim", func(b *testing.B) {
		for b.Loop() {
			Check(answer, s)
		}
	})
	b.Run("claim, 10k events", func(b *testing.B) {
		for b.Loop() {
			Check(answer+" All tests pass.", s)
		}
	})
}
