package policy

import "strings"

// isSafe reports whether argv is a known-safe read-only command: it
// neither writes files nor runs other code. trusted is false for a program
// named by a relative path (./ls may be anything). A command whose safety
// depends on its arguments is safe only when every argument is fixed.
func isSafe(name string, argv []arg, trusted bool) bool {
	if !trusted {
		return false
	}
	switch name {
	case "ls", "cat", "head", "tail", "wc", "grep", "egrep", "fgrep", "pwd", "echo", "printf",
		"which", "whereis", "type", "stat", "du", "df", "basename", "dirname", "realpath",
		"readlink", "true", "false", "test", "[", ":", "whoami", "id", "uname", "printenv", "cut",
		"tr", "nl", "od", "hexdump", "cmp", "diff", "comm", "column", "jq", "seq", "sleep", "nproc",
		"uptime", "free", "ps", "cd", "pushd", "popd", "set", "shopt", "read", "exit", "return",
		"wait", "jobs", "help", "fold", "rev", "tac", "strings", "md5sum", "sha1sum", "sha256sum",
		"sha512sum", "cksum", "b2sum", "base64", "locale", "tty", "groups", "arch",
		"cal", "getconf", "paste", "join", "expand", "unexpand", "look":
		return true
	}
	check := safeCheck(name)
	if check == nil {
		return false
	}
	ws := make([]string, 0, len(argv)-1)
	for _, a := range argv[1:] {
		if !a.static {
			return false
		}
		ws = append(ws, a.s)
	}
	return check(ws)
}

// safeCheck returns the argument test of a command that is read-only with
// some arguments only, or nil.
func safeCheck(name string) func(args []string) bool {
	switch name {
	case "git":
		return gitSafe
	case "go":
		return goSafe
	case "rg":
		return noArg("--pre", "--pre-glob")
	case "tree":
		return noArg("-o", "--output")
	case "sort":
		return noArg("-o", "--output", "--compress-program")
	case "uniq", "xxd":
		return func(args []string) bool { return len(positionals(args)) <= 1 }
	case "date":
		return func(args []string) bool {
			for _, a := range args {
				if a == "-s" || strings.HasPrefix(a, "--set") || (!strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "+")) {
					return false
				}
			}
			return true
		}
	case "less", "more":
		// +cmd runs a less command at start (+!cmd a shell), -k reads
		// key bindings that can run commands, -o/-O write a log file.
		return func(args []string) bool {
			for _, a := range args {
				if strings.HasPrefix(a, "+") || hasArg([]string{a}, "--lesskey", "--log-file", "--LOG-FILE") || shortFlag(a, "koO") {
					return false
				}
			}
			return true
		}
	case "file":
		// -C compiles a magic file: it writes.
		return func(args []string) bool { return !hasArg(args, "--compile") && !anyShortFlag(args, "C") }
	case "hostname":
		return func(args []string) bool {
			return len(positionals(args)) == 0 && !hasArg(args, "-F", "--file", "-b", "--boot")
		}
	}
	return nil
}

// noArg: safe unless an argument is, or starts with, one of flags.
func noArg(flags ...string) func([]string) bool {
	return func(args []string) bool { return !hasArg(args, flags...) }
}

func hasArg(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if a == f || strings.HasPrefix(a, f) {
				return true
			}
		}
	}
	return false
}

// shortFlag reports whether a is a cluster of short options (-abc)
// holding any of letters.
func shortFlag(a, letters string) bool {
	return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.ContainsAny(a[1:], letters)
}

func anyShortFlag(args []string, letters string) bool {
	for _, a := range args {
		if shortFlag(a, letters) {
			return true
		}
	}
	return false
}

func positionals(args []string) []string {
	var out []string
	for _, a := range args {
		if a == "-" || !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

// gitSafe: git subcommands that only read the repository. Global options
// that run code (-c, --exec-path, --config-env) are not read-only, nor
// are -C, --git-dir and --work-tree: they can point git at a repository
// whose config the workspace supplies (core.fsmonitor, core.pager and
// friends run programs).
func gitSafe(args []string) bool {
	i := 0
global:
	for i < len(args) {
		s := args[i]
		switch {
		case s == "--namespace":
			i += 2
		case s == "--no-pager" || s == "-P" || s == "-p" || s == "--paginate" || s == "--no-optional-locks" ||
			s == "--literal-pathspecs" || s == "--no-replace-objects" || strings.HasPrefix(s, "--namespace="):
			i++
		case strings.HasPrefix(s, "-"):
			return false
		default:
			break global
		}
	}
	if i >= len(args) {
		return true // git alone prints help
	}
	sub, rest := args[i], args[i+1:]
	if hasArg(rest, "--output", "--ext-diff", "--open-files-in-pager", "-O") {
		return false
	}
	first := ""
	if len(rest) > 0 {
		first = rest[0]
	}
	switch sub {
	case "status", "log", "diff", "show", "blame", "annotate", "describe", "shortlog", "rev-parse",
		"rev-list", "ls-files", "ls-tree", "cat-file", "merge-base", "grep", "show-ref",
		"for-each-ref", "count-objects", "whatchanged", "name-rev", "check-ignore", "check-attr",
		"var", "version", "cherry", "diff-tree", "diff-files", "diff-index":
		return true
	case "ls-remote":
		// --upload-pack names the program run on the "remote" side,
		// which for a local path is this machine.
		return !hasArg(rest, "--upload-pack", "-u", "--exec")
	case "help":
		// -w, -i and -m start a browser, info or man.
		return len(rest) == 0 || (len(positionals(rest)) == len(rest) && len(rest) == 1)
	case "branch":
		return listingOnly(rest, "-d", "-D", "-m", "-M", "-c", "-C", "-f", "-u", "-t", "--delete", "--move",
			"--copy", "--force", "--set-upstream-to", "--unset-upstream", "--edit-description", "--track", "--no-track", "--create-reflog")
	case "tag":
		return listingOnly(rest, "-d", "-a", "-s", "-m", "-f", "-F", "-u", "-e", "--delete", "--annotate",
			"--sign", "--force", "--message", "--file", "--edit", "--local-user", "--create-reflog")
	case "remote":
		return first == "" || first == "-v" || first == "--verbose" || first == "show" || first == "get-url"
	case "stash":
		return first == "list" || first == "show"
	case "worktree":
		return first == "list"
	case "notes":
		return first == "" || first == "list" || first == "show"
	case "reflog":
		return first == "" || first == "show" || strings.HasPrefix(first, "-")
	case "config":
		if first == "get" || first == "list" {
			return true
		}
		return hasArg(rest, "--get", "--list", "-l") && !hasArg(rest, "--add", "--unset", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit")
	}
	return false
}

// listingOnly: `git branch` / `git tag` that lists: none of the changing
// flags, and no name unless listing was asked for (-l/--list).
func listingOnly(args []string, changing ...string) bool {
	list := false
	for _, a := range args {
		if a == "-l" || a == "--list" {
			list = true
		}
	}
	for _, a := range args {
		name, _, _ := strings.Cut(a, "=")
		if contains(changing, name) {
			return false
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			for _, l := range a[1:] {
				if contains(changing, "-"+string(l)) {
					return false // -df
				}
			}
		}
		if !strings.HasPrefix(a, "-") && !list {
			return false
		}
	}
	return true
}

// goSafe: go subcommands that only read (list, vet, version, env, doc).
func goSafe(args []string) bool {
	if len(args) == 0 {
		return true
	}
	rest := args[1:]
	switch args[0] {
	case "version", "doc", "help":
		return true
	case "list":
		return !hasArg(rest, "-toolexec", "-exec", "--toolexec", "--exec")
	case "vet":
		return !hasArg(rest, "-vettool", "--vettool", "-toolexec", "--toolexec")
	case "env":
		return !hasArg(rest, "-w", "-u", "--w", "--u")
	}
	return false
}
