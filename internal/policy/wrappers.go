package policy

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// wrapperFunc looks at a wrapper's argv and returns the command it runs
// (nil: none), whether the wrapper's own options are harmless, and the
// name of a variable it sets that changes what the command runs.
type wrapperFunc func(argv []arg) (inner []arg, safe bool, taint string)

// wrapperFor returns the parser of a program the policy sees through (the
// command it runs is judged, and matched against the rules, as if written
// alone), or nil.
func wrapperFor(name string) wrapperFunc {
	switch name {
	case "sudo":
		return escalation("ugChpDrtTU", "user", "group", "close-from", "host", "prompt", "chdir", "role", "type", "command-timeout", "other-user")
	case "doas":
		return escalation("uC")
	case "pkexec":
		return escalation("", "user")
	case "su", "runuser":
		return func([]arg) ([]arg, bool, string) { return nil, false, "" }
	case "env":
		return envWrapper
	case "nice":
		return plainWrapper("n", "adjustment")
	case "nohup", "builtin":
		return plainWrapper("")
	case "timeout":
		return timeoutWrapper
	case "command":
		return commandWrapper
	case "exec":
		return plainWrapper("a")
	case "time":
		return timeWrapper
	case "stdbuf":
		return plainWrapper("ioe", "input", "output", "error")
	case "xargs":
		return xargsWrapper
	}
	return nil
}

// escalates: the wrapper runs its command as another user.
func escalates(name string) bool {
	switch name {
	case "sudo", "doas", "su", "pkexec", "runuser":
		return true
	}
	return false
}

// skipOptions returns the index of the first operand after argv[0]'s
// options. short lists the one-letter options that take a value; long the
// long ones (without "--"). A dynamic word ends the options.
func skipOptions(argv []arg, short string, long ...string) int {
	i := 1
	for i < len(argv) {
		a := argv[i]
		if !a.static {
			return i
		}
		s := a.s
		switch {
		case s == "--":
			return i + 1
		case strings.HasPrefix(s, "--"):
			name, _, hasVal := strings.Cut(s[2:], "=")
			i++
			if !hasVal && contains(long, name) {
				i++
			}
		case len(s) > 1 && s[0] == '-' && !isDigits(s[1:]):
			i++
			// "-uroot" carries its value; "-Eu root" takes the next word.
			for j := 1; j < len(s); j++ {
				if strings.IndexByte(short, s[j]) >= 0 {
					if j == len(s)-1 {
						i++
					}
					break
				}
			}
		case len(s) > 1 && s[0] == '-': // nice -10
			i++
		default:
			return i
		}
	}
	return i
}

func contains(list []string, s string) bool {
	for _, l := range list {
		if l == s {
			return true
		}
	}
	return false
}

func rest(argv []arg, i int) []arg {
	if i >= len(argv) {
		return nil
	}
	return argv[i:]
}

func escalation(short string, long ...string) wrapperFunc {
	return func(argv []arg) ([]arg, bool, string) {
		return rest(argv, skipOptions(argv, short, long...)), false, ""
	}
}

func plainWrapper(short string, long ...string) wrapperFunc {
	return func(argv []arg) ([]arg, bool, string) {
		return rest(argv, skipOptions(argv, short, long...)), true, ""
	}
}

// envWrapper: env [-i] [-u NAME] [-C DIR] [-S STRING] [NAME=VALUE]… CMD.
func envWrapper(argv []arg) ([]arg, bool, string) {
	taint := ""
	i := 1
	for i < len(argv) {
		a := argv[i]
		if !a.static {
			break
		}
		s := a.s
		switch {
		case s == "-S" || s == "--split-string" || strings.HasPrefix(s, "--split-string=") || (strings.HasPrefix(s, "-S") && len(s) > 2):
			// The string is split into words that become the command.
			var str string
			switch {
			case strings.HasPrefix(s, "--split-string="):
				str = strings.TrimPrefix(s, "--split-string=")
			case len(s) > 2 && s[1] == 'S':
				str = s[2:]
			case i+1 < len(argv):
				i++
				if !argv[i].static {
					return argv[i:], true, taint
				}
				str = argv[i].s
			}
			var inner []arg
			for _, f := range strings.Fields(str) {
				inner = append(inner, arg{s: f, static: true})
			}
			return append(inner, rest(argv, i+1)...), true, taint
		case s == "-u" || s == "-C" || s == "--unset" || s == "--chdir":
			i += 2
		case strings.HasPrefix(s, "-"):
			i++
		case strings.Contains(s, "=") && validName(s[:strings.IndexByte(s, '=')]):
			if name := s[:strings.IndexByte(s, '=')]; dangerousVar(name) && taint == "" {
				taint = name
			}
			i++
		default:
			return argv[i:], true, taint
		}
	}
	return rest(argv, i), true, taint
}

func validName(s string) bool {
	if s == "" {
		return false
	}
	for i, r := range s {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// timeoutWrapper: timeout [OPTION]… DURATION COMMAND.
func timeoutWrapper(argv []arg) ([]arg, bool, string) {
	i := skipOptions(argv, "sk", "signal", "kill-after")
	return rest(argv, i+1), true, ""
}

// commandWrapper: command -v/-V only looks a name up.
func commandWrapper(argv []arg) ([]arg, bool, string) {
	for _, a := range argv[1:] {
		if a.static && strings.HasPrefix(a.s, "-") && strings.ContainsAny(a.s, "vV") {
			return nil, true, ""
		}
	}
	return rest(argv, skipOptions(argv, "")), true, ""
}

// timeWrapper: /usr/bin/time -o FILE writes its report to a file.
func timeWrapper(argv []arg) ([]arg, bool, string) {
	i := skipOptions(argv, "of", "output", "format")
	safe := true
	for _, a := range argv[1:i] {
		if a.s == "-o" || strings.HasPrefix(a.s, "--output") || (strings.HasPrefix(a.s, "-o") && !strings.HasPrefix(a.s, "--")) {
			safe = false
		}
	}
	return rest(argv, i), safe, ""
}

// xargsWrapper: the command gets more words from the input, so its argv
// ends with an unknown word; without a command xargs runs echo.
func xargsWrapper(argv []arg) ([]arg, bool, string) {
	i := skipOptions(argv, "adEILnPs", "arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var")
	more := arg{s: "…"}
	if i >= len(argv) {
		return []arg{{s: "echo", static: true}, more}, true, ""
	}
	inner := append(append([]arg(nil), argv[i:]...), more)
	return inner, true, ""
}

// isShell: a shell whose -c script is parsed and judged.
func isShell(name string) bool {
	switch name {
	case "bash", "sh", "zsh", "dash", "ksh", "mksh", "ash":
		return true
	}
	return false
}

// shell judges `bash [opts] -c SCRIPT`, `bash FILE` and `bash <<EOF`; it
// reports whether the shell invocation itself is harmless (its script is
// judged on its own).
func (c *checker) shell(argv []arg, redirs []*syntax.Redirect, depth int, extra *[]finding) bool {
	i := 1
	for i < len(argv) {
		a := argv[i]
		if !a.static {
			*extra = append(*extra, finding{need: needAsk, reason: "the shell's arguments are only known when it runs"})
			return false
		}
		s := a.s
		if s == "--" || s == "-" {
			i++
			break
		}
		if s == "-o" || s == "+o" || s == "-O" || s == "+O" {
			i += 2
			continue
		}
		if strings.HasPrefix(s, "--") {
			i++
			continue
		}
		if len(s) > 1 && (s[0] == '-' || s[0] == '+') {
			if s[0] == '-' && strings.IndexByte(s[1:], 'c') >= 0 {
				if i+1 >= len(argv) {
					return true // bash -c without a script does nothing
				}
				sc := argv[i+1]
				if !sc.static {
					*extra = append(*extra, finding{need: needAsk, reason: "the script given to -c is only known when it runs"})
					return false
				}
				c.script(sc.s, depth+1)
				return true
			}
			i++
			continue
		}
		break
	}
	if i < len(argv) {
		return false // runs a script file: not known to be read-only
	}
	if body, ok := stdinScript(redirs); ok {
		c.script(body, depth+1)
		return true
	}
	*extra = append(*extra, finding{need: needAsk, reason: "the shell runs a script read from its input, which cannot be checked"})
	return false
}

// stdinScript is the fixed text of a here-document or here-string.
func stdinScript(redirs []*syntax.Redirect) (string, bool) {
	for _, r := range redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc == nil {
				return "", true
			}
			return staticWord(r.Hdoc)
		case syntax.WordHdoc:
			return staticWord(r.Word)
		}
	}
	return "", false
}

// evalLike judges the words eval (joined by sep) or trap would run.
func (c *checker) evalLike(args []arg, sep string, depth int, extra *[]finding) bool {
	if len(args) == 0 {
		return true
	}
	for _, a := range args {
		if !a.static {
			*extra = append(*extra, finding{need: needAsk, reason: "it runs code that is only known when it runs"})
			return false
		}
	}
	if sep == "" && strings.HasPrefix(args[0].s, "-") {
		return true // trap -p, trap -l
	}
	c.script(strings.Join(words(args), sep), depth+1)
	return true
}

// aliases judges the bodies of alias NAME=BODY.
func (c *checker) aliases(args []arg, depth int, extra *[]finding) bool {
	for _, a := range args {
		if !a.static {
			*extra = append(*extra, finding{need: needAsk, reason: "it defines an alias that is only known when it runs"})
			return false
		}
		if _, body, ok := strings.Cut(a.s, "="); ok {
			c.script(body, depth+1)
		}
	}
	return true
}

// find judges find's own actions and, as commands of their own, what its
// -exec / -execdir / -ok / -okdir run.
func (c *checker) find(argv []arg, depth int) bool {
	safe := true
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !a.static {
			safe = false
			continue
		}
		switch a.s {
		case "-exec", "-execdir", "-ok", "-okdir":
			j := i + 1
			for j < len(argv) && !(argv[j].static && (argv[j].s == ";" || argv[j].s == "+")) {
				j++
			}
			if inner := argv[i+1 : j]; len(inner) > 0 {
				c.command(inner, nil, "", depth+1)
			}
			i = j
		case "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			safe = false
		}
	}
	return safe
}
