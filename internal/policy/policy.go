package policy

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/openseek/openseek/internal/beneath"
	"github.com/openseek/openseek/internal/secretfile"
)

// Policy is the permission policy of one session: the approval mode, the
// command rules, and where writes must never go.
type Policy struct {
	Mode  Mode
	Rules []Rule
	// Workspace is the absolute workspace root; .git and .openseek are
	// protected below it. Empty: those names are protected anywhere.
	Workspace string
	// Protected are further absolute paths (config files given on the
	// command line, say) that no write may touch, nor anything below them.
	Protected []string
	// Pinned are the protected directories by device and inode (Pin): the
	// file tools change nothing inside them whatever name they have by
	// then, so a directory exchanged into a checked path mid-way is caught
	// even where a command can rename .git (no sandbox). Deeper .git and
	// .openseek directories are protected by name only.
	Pinned beneath.Set
	// Sandboxed: commands run in the OS sandbox, which writes only in the
	// workspace and temporary directories. Auto mode runs unasked only
	// what the sandbox contains; without one it asks like ask mode.
	Sandboxed bool
	// Network: the sandbox lets commands reach the network, so auto mode
	// need not ask about the programs that use it.
	Network bool
	// Secrets say which files hold secrets: the file tools neither read
	// nor write them (CheckRead, CheckWrite). nil checks none.
	Secrets *secretfile.Rules
}

// Match is a rule that matched a command.
type Match struct {
	Rule    Rule
	Command []string // the argv the rule was matched against (after wrappers)
	// Maybe: a word of the command is only known when it runs, and could
	// be the pattern's. Deny and ask rules then ask; allow rules never
	// match this way.
	Maybe bool
}

// Verdict is the policy's answer about one action.
type Verdict struct {
	Decision Decision
	Reason   string     // why, in words fit for the model and the user
	Matches  []Match    // the rules that matched, in rule order per command
	Commands [][]string // every simple command found, wrappers included
	// Patterns are what approving "for this session" remembers: one per
	// command that needed approval, e.g. "go test" or "git push".
	Patterns []string
	// Outside: the command needs more than the sandbox gives (the network,
	// writes outside the workspace, another user, a rule's approval, the
	// model's escalate request), so once allowed it runs outside the
	// sandbox.
	Outside bool
	// ReadOnly: every command is a known read-only one (the list plan
	// mode allows) and none writes its output to a file, so running it
	// cannot change the workspace's files.
	ReadOnly bool
	// Destructive says what the first destructive command of the script
	// destroys ("`rm -rf src` deletes recursively"), "" when none: the
	// guard takes a snapshot before such a command runs.
	Destructive string
}

// finding is the judgement of one simple command.
type finding struct {
	argv     []string
	need     need
	reason   string
	readOnly bool
	pattern  string
	matches  []Match
	// outside says why the command needs more than the sandbox gives
	// (auto mode only): the network, or a write outside the workspace.
	outside string
	// destroys says what a destructive command destroys (destructive.go).
	destroys string
}

// maxDepth bounds nesting of bash -c, eval, find -exec and the like.
const maxDepth = 8

// CheckCommand judges a shell script under the policy. Every simple
// command in it — in pipelines, lists, subshells, $(…), `…`, <(…),
// functions, bash -c '…', eval, find -exec, xargs — is judged, and the
// strictest judgement wins.
func (p *Policy) CheckCommand(script string) Verdict { return p.CheckCommandIn("", script) }

// CheckCommandIn is CheckCommand for a script that starts in dir (""
// the workspace root): the targets of destructive commands are judged
// from there.
func (p *Policy) CheckCommandIn(dir, script string) Verdict {
	c := p.checker(dir)
	c.script(script, 0)
	return c.verdict()
}

func (p *Policy) checker(dir string) *checker {
	if dir == "" {
		dir = p.Workspace
	}
	return &checker{p: p, dir: dir}
}

// CheckEscalation judges a script the model asks to run outside the
// sandbox (the shell tool's escalate), why saying what for: auto and ask
// mode ask, always grants it, never and plan refuse it, and the script's
// own commands are judged as by CheckCommand (a deny rule still wins).
func (p *Policy) CheckEscalation(script, why string) Verdict {
	return p.CheckEscalationIn("", script, why)
}

// CheckEscalationIn is CheckEscalation for a script that starts in dir.
func (p *Policy) CheckEscalationIn(dir, script, why string) Verdict {
	c := p.checker(dir)
	c.escalate, c.why = true, why
	c.script(script, 0)
	return c.verdict()
}

type checker struct {
	p        *Policy
	findings []finding
	escalate bool   // the model asks to leave the sandbox
	why      string // and says why
	// dir is where the next command runs, followed through cd; "" once
	// it is only known at run time.
	dir string
}

// script parses and walks a script (the top level, or the text of a
// bash -c, eval, alias or trap).
func (c *checker) script(src string, depth int) {
	if depth > maxDepth {
		c.add(finding{argv: []string{src}, need: needAsk, reason: "commands nested more than 8 levels deep cannot be checked"})
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		c.add(finding{argv: []string{src}, need: needAsk, reason: "the command does not parse, so it cannot be checked (" + err.Error() + ")"})
		return
	}
	c.walk(f, depth)
}

func (c *checker) add(f finding) { c.findings = append(c.findings, f) }

// walk judges every command under n.
func (c *checker) walk(n syntax.Node, depth int) {
	stmtOf := map[*syntax.CallExpr]*syntax.Stmt{}
	// A cd inside a subshell, $(…) or <(…) ends with it (c.dir).
	var open []syntax.Node
	var dirs []string
	syntax.Walk(n, func(n syntax.Node) bool {
		if n == nil { // the end of the last node opened
			switch open[len(open)-1].(type) {
			case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
				c.dir, dirs = dirs[len(dirs)-1], dirs[:len(dirs)-1]
			}
			open = open[:len(open)-1]
			return true
		}
		open = append(open, n)
		switch n := n.(type) {
		case *syntax.Subshell, *syntax.CmdSubst, *syntax.ProcSubst:
			dirs = append(dirs, c.dir)
		case *syntax.Stmt:
			if call, ok := n.Cmd.(*syntax.CallExpr); ok {
				stmtOf[call] = n
			} else if t, ok := writeTarget(n.Redirs); ok {
				c.add(finding{argv: []string{">", t}, need: needSoftAsk, reason: fmt.Sprintf("the output goes to %s", t), pattern: ">", outside: c.writesOutside(t)})
			}
		case *syntax.CallExpr:
			c.call(n, stmtOf[n], depth)
		case *syntax.DeclClause:
			c.decl(n)
		}
		return true
	})
}

// writeTarget reports the first redirection that writes to a file;
// /dev/null and the standard streams do not count.
func writeTarget(rs []*syntax.Redirect) (string, bool) {
	for _, r := range rs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll,
			syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob, syntax.RdrInOut, syntax.DplOut:
		default:
			continue
		}
		if r.Word == nil {
			continue
		}
		t, static := staticWord(r.Word)
		if !static {
			return source(r.Word), true
		}
		switch {
		case t == "/dev/null" || t == "/dev/stdout" || t == "/dev/stderr":
			continue
		case r.Op == syntax.DplOut && (t == "-" || isDigits(t)):
			continue // >&2, 2>&1, >&-
		}
		return t, true
	}
	return "", false
}

func isDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// call judges one simple command with the redirections of its statement.
func (c *checker) call(ce *syntax.CallExpr, st *syntax.Stmt, depth int) {
	var taint string
	for _, a := range ce.Assigns {
		if a.Name != nil && dangerousVar(a.Name.Value) {
			taint = a.Name.Value
			break
		}
	}
	args := argsOf(ce.Args)
	if len(args) == 0 {
		if taint != "" {
			c.add(finding{argv: []string{taint + "=…"}, need: needSoftAsk, pattern: taint + "=",
				reason: fmt.Sprintf("setting %s changes which programs later commands run", taint)})
		}
		return
	}
	var redirs []*syntax.Redirect
	if st != nil {
		redirs = st.Redirs
	}
	c.command(args, redirs, taint, depth)
}

// decl judges export/declare/local/readonly/typeset: harmless unless they
// set a variable that changes which programs run.
func (c *checker) decl(d *syntax.DeclClause) {
	for _, a := range d.Args {
		if a.Name != nil && dangerousVar(a.Name.Value) {
			c.add(finding{argv: []string{d.Variant.Value, a.Name.Value + "=…"}, need: needSoftAsk, pattern: d.Variant.Value + " " + a.Name.Value,
				reason: fmt.Sprintf("setting %s changes which programs later commands run", a.Name.Value)})
		}
	}
}

// dangerousVar: an assignment that changes what a "safe" program does.
func dangerousVar(name string) bool {
	switch name {
	case "PATH", "IFS", "BASH_ENV", "ENV", "PROMPT_COMMAND", "SHELLOPTS", "BASHOPTS", "PAGER", "GIT_PAGER", "EDITOR", "VISUAL",
		// where programs read config that can name commands to run
		"HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "RIPGREP_CONFIG_PATH", "MAGIC", "INPUTRC", "TERMINFO",
		// programs that other programs start
		"MANPAGER", "MANOPT", "BROWSER", "SSH_ASKPASS", "SUDO_ASKPASS", "SHELL", "TAR_OPTIONS", "GREP_OPTIONS",
		// interpreters' start-up hooks
		"NODE_OPTIONS", "PYTHONSTARTUP", "PYTHONPATH", "PYTHONHOME", "PERL5OPT", "PERL5LIB", "PERLLIB", "RUBYOPT", "RUBYLIB",
		"JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "GCONV_PATH", "LOCPATH", "HOSTALIASES":
		return true
	}
	for _, p := range []string{"LD_", "DYLD_", "GIT_", "BASH_FUNC_", "LESS", "GO", "CGO_", "NPM_CONFIG_", "CARGO_", "RUSTC"} {
		if strings.HasPrefix(name, p) {
			return true
		}
	}
	return false
}
