package policy

import (
	"fmt"
	"path"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// layer is one program in a chain of wrappers: for `sudo env A=1 git
// push` the layers are sudo…, env…, git push.
type layer struct {
	argv      []arg
	escalates bool // sudo, doas: runs as another user
	wrapper   bool // passes the rest of argv on as a command
	safe      bool // this layer alone neither writes nor executes unknown code
}

// command judges one argv (with its statement's redirections) and adds
// the findings: its own, and those of any script or command it runs.
func (c *checker) command(args []arg, redirs []*syntax.Redirect, taint string, depth int) {
	if depth > maxDepth {
		c.add(finding{argv: words(args), need: needAsk, reason: "commands nested more than 8 levels deep cannot be checked"})
		return
	}
	var (
		layers []layer
		cur    = args
		extra  []finding // opaque or script-running problems of the chain
	)
	for len(cur) > 0 {
		if !cur[0].static {
			extra = append(extra, finding{need: needAsk, reason: fmt.Sprintf("the program %s is only known when the command runs", cur[0].s)})
			layers = append(layers, layer{argv: cur})
			break
		}
		name := progName(cur[0].s)
		if w := wrapperFor(name); w != nil {
			inner, safe, t := w(cur)
			if t != "" && taint == "" {
				taint = t
			}
			l := layer{argv: cur, escalates: escalates(name), wrapper: inner != nil, safe: safe}
			layers = append(layers, l)
			if inner == nil {
				break
			}
			cur = inner
			continue
		}
		l := layer{argv: cur}
		switch {
		case isShell(name):
			l.safe = c.shell(cur, redirs, depth, &extra)
		case name == "eval":
			l.safe = c.evalLike(cur[1:], " ", depth, &extra)
		case name == "alias":
			l.safe = c.aliases(cur[1:], depth, &extra)
		case name == "trap":
			l.safe = len(cur) < 2 || c.evalLike(cur[1:2], "", depth, &extra)
		case name == "find":
			l.safe = c.find(cur, depth)
		default:
			l.safe = isSafe(name, cur, path.IsAbs(cur[0].s) || !strings.Contains(cur[0].s, "/"))
		}
		layers = append(layers, l)
		break
	}
	c.judge(layers, redirs, taint, extra)
	c.destroying(layers[len(layers)-1].argv)
}

// judge combines the rule matches and built-in defaults of a chain of
// layers into one finding. A rule that matches a layer decides that layer
// and everything it wraps; the layers outside it keep their defaults (an
// allow rule for ["ls"] does not allow `sudo ls`).
func (c *checker) judge(layers []layer, redirs []*syntax.Redirect, taint string, extra []finding) {
	f := finding{argv: words(layers[0].argv), readOnly: true}
	covered := len(layers) // first layer decided by a rule
	var ruleNeed need
	var ruleReason string
	for i, l := range layers {
		for _, r := range c.p.Rules {
			exact, maybe := matchRule(r, l.argv)
			if !exact && !(maybe && r.Decision != Allow) {
				continue
			}
			f.matches = append(f.matches, Match{Rule: r, Command: words(l.argv), Maybe: !exact})
			covered = min(covered, i)
			n, why := ruleNeedOf(r, exact)
			if n > ruleNeed || ruleReason == "" {
				if n >= ruleNeed {
					ruleNeed, ruleReason = n, why
					if r.Decision == Ask {
						f.pattern = strings.Join(r.Pattern, " ")
					}
				}
			}
		}
	}
	display := displayArgs(layers[0].argv)
	if covered < len(layers) {
		f.need, f.reason = ruleNeed, fmt.Sprintf("%q %s", display, ruleReason)
	}
	for i, l := range layers {
		if !l.safe {
			f.readOnly = false
		}
		if i >= covered {
			continue
		}
		if l.escalates {
			f.need, f.reason = stricterReason(f.need, f.reason, needAsk, fmt.Sprintf("%q runs a command as another user (%s)", display, progName(l.argv[0].s)))
		}
		if !l.wrapper && !l.safe {
			f.need, f.reason = stricterReason(f.need, f.reason, needSoftAsk, fmt.Sprintf("%q is not a known read-only command", display))
		}
	}
	f.outside = c.needsNetwork(layers[len(layers)-1].argv)
	if t, ok := writeTarget(redirs); ok {
		f.readOnly = false
		f.need, f.reason = stricterReason(f.need, f.reason, needSoftAsk, fmt.Sprintf("%q writes its output to %s", display, t))
		if f.pattern == "" {
			f.pattern = approvalPattern(layers) + " >"
		}
		if why := c.writesOutside(t); why != "" {
			f.outside = why
		}
	}
	if taint != "" {
		f.readOnly = false
		f.need, f.reason = stricterReason(f.need, f.reason, needSoftAsk, fmt.Sprintf("%q sets %s, which changes what the program runs", display, taint))
	}
	for _, e := range extra {
		f.readOnly = false
		f.need, f.reason = stricterReason(f.need, f.reason, e.need, fmt.Sprintf("%q: %s", display, e.reason))
	}
	if f.pattern == "" {
		f.pattern = approvalPattern(layers)
	}
	c.add(f)
}

func stricterReason(n need, why string, m need, mwhy string) (need, string) {
	if m > n || why == "" {
		return max(n, m), mwhy
	}
	return n, why
}

func ruleNeedOf(r Rule, exact bool) (need, string) {
	if !exact {
		return needAsk, fmt.Sprintf("may match the %s rule %s (%s): a word is only known when it runs", r.Decision, quoteWords(r.Pattern), r.Source)
	}
	switch r.Decision {
	case Deny:
		return needDeny, fmt.Sprintf("is denied by the rule %s (%s)", quoteWords(r.Pattern), r.Source)
	case Ask:
		return needAsk, fmt.Sprintf("needs approval by the rule %s (%s)", quoteWords(r.Pattern), r.Source)
	}
	return needAllow, fmt.Sprintf("is allowed by the rule %s (%s)", quoteWords(r.Pattern), r.Source)
}

// matchRule matches the rule's words against the start of argv. The
// first word also matches by base name (/usr/bin/git is git). A dynamic
// word, or the open end of an xargs command, matches only maybe.
func matchRule(r Rule, argv []arg) (exact, maybe bool) {
	for i, want := range r.Pattern {
		if i >= len(argv) {
			return false, false
		}
		a := argv[i]
		if !a.static {
			return false, true
		}
		got := a.s
		if i == 0 && !strings.Contains(want, "/") {
			got = path.Base(got)
		}
		if got != want {
			return false, false
		}
	}
	return true, false
}

// progName is the program's name for the built-in tables: the base name of
// a bare word or an absolute path ("/usr/bin/git" is git), the word itself
// for a relative path (./ls is not ls).
func progName(s string) string {
	if strings.HasPrefix(s, "/") {
		return path.Base(s)
	}
	return s
}

// approvalPattern: the words approving "for this session" remembers —
// escalating wrappers, the program, and its subcommand when it is a
// program that has subcommands ("sudo apt install", "go test", "rm",
// "echo"): an argument such as a file name or a message never narrows
// it, so the next `echo step-1` is covered as `echo step-0` was.
func approvalPattern(layers []layer) string {
	var ws []string
	for _, l := range layers {
		if l.escalates {
			ws = append(ws, progName(l.argv[0].s))
		}
	}
	last := layers[len(layers)-1].argv
	if len(last) == 0 {
		return strings.Join(ws, " ")
	}
	ws = append(ws, progName(last[0].s))
	if len(last) > 1 && last[1].static && hasSubcommands(progName(last[0].s)) && isSubcommand(last[1].s) {
		ws = append(ws, last[1].s)
	}
	return strings.Join(ws, " ")
}

// hasSubcommands: programs whose second word names what they do.
func hasSubcommands(prog string) bool {
	switch prog {
	case "git", "go", "npm", "pnpm", "yarn", "npx", "bun", "deno", "cargo", "rustup", "pip", "pip3", "uv", "poetry",
		"pipenv", "conda", "gem", "bundle", "apt", "apt-get", "dnf", "yum", "brew", "snap", "docker", "podman",
		"kubectl", "helm", "terraform", "gh", "make", "systemctl", "dotnet", "mvn", "gradle", "composer", "mix",
		"stack", "cabal", "nix", "opam", "dune", "moon", "swift", "zig", "flutter", "dart", "rake", "openseek":
		return true
	}
	return false
}

func isSubcommand(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '-' || r == '_') {
			return false
		}
	}
	return true
}

// displayCmd renders argv as a shell line for messages, quoting the words
// that need it.
func displayCmd(argv []string) string {
	q := make([]string, len(argv))
	for i, w := range argv {
		q[i] = quoteWord(w)
	}
	return strings.Join(q, " ")
}

// displayArgs is displayCmd with dynamic words shown as written.
func displayArgs(argv []arg) string {
	q := make([]string, len(argv))
	for i, a := range argv {
		q[i] = a.s
		if a.static {
			q[i] = quoteWord(a.s)
		}
	}
	return strings.Join(q, " ")
}

func quoteWord(w string) string {
	if w != "" && !strings.ContainsAny(w, " \t\n'\"\\$`;&|<>()*?[]{}!#") {
		return w
	}
	if s, err := syntax.Quote(w, syntax.LangBash); err == nil {
		return s
	}
	return w
}
