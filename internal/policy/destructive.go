package policy

import (
	"fmt"
	"path"
	"path/filepath"
	"strings"
)

// Destructive commands: a recursive delete (rm -r, find -delete, shred),
// or a git command that throws work away (reset --hard, checkout of paths
// or -f, restore, clean, a force push). Before one runs the engine takes
// a snapshot of the workspace (Guard.Snapshot), so a rewind undoes it;
// one whose target is outside the workspace — $HOME, ~, /, a path whose
// .. climbs out, a glob rooted outside, a word only known when it runs, a
// remote — is refused in every mode but full-access.

// destructive says what argv destroys (e.g. "deletes recursively"), and
// the reason it is refused outside full-access when it reaches outside
// the workspace ("" when it stays inside). ok is false for a command that
// destroys nothing.
func (c *checker) destructive(argv []arg) (what, outside string, ok bool) {
	if len(argv) == 0 || !argv[0].static {
		return "", "", false
	}
	switch name := progName(argv[0].s); name {
	case "rm":
		ops, opts := operands(argv[1:])
		if !hasFlag(opts, "rR", "recursive") {
			return "", "", false
		}
		return "deletes recursively", c.targets(ops), true
	case "shred":
		ops, _ := operands(argv[1:])
		return "overwrites files", c.targets(ops), true
	case "find":
		var starts []arg
		del := false
		for i, a := range argv[1:] {
			if a.static && a.s == "-delete" {
				del = true
			}
			if del {
				break
			}
			if i == len(starts) && (!a.static || !strings.HasPrefix(a.s, "-") && a.s != "(" && a.s != "!") {
				starts = append(starts, a)
			}
		}
		if !del {
			return "", "", false
		}
		if len(starts) == 0 {
			starts = []arg{{s: ".", static: true}}
		}
		return "deletes what it finds", c.targets(starts), true
	case "git":
		return c.git(argv)
	}
	return "", "", false
}

// git judges the git subcommands that discard work: their target is the
// work tree (git -C DIR, --work-tree), and the remote for a force push.
func (c *checker) git(argv []arg) (what, outside string, ok bool) {
	dir := arg{s: c.dir, static: c.dir != ""}
	switch {
	case c.dir == "" && c.p.Workspace == "":
		dir = arg{s: ".", static: true}
	case c.dir == "":
		dir = arg{s: "(the directory a cd changed to)"}
	}
	i := 1
	for ; i < len(argv); i++ {
		a := argv[i]
		if !a.static || !strings.HasPrefix(a.s, "-") {
			break
		}
		switch {
		case a.s == "-C" || a.s == "--work-tree":
			if i+1 < len(argv) {
				i++
				dir = c.joinArg(dir, argv[i])
			}
		case strings.HasPrefix(a.s, "--work-tree="):
			dir = c.joinArg(dir, arg{s: strings.TrimPrefix(a.s, "--work-tree="), static: true})
		case a.s == "-c" || a.s == "--git-dir" || a.s == "--namespace":
			i++
		}
	}
	if i >= len(argv) || !argv[i].static {
		return "", "", false
	}
	sub, rest := argv[i].s, argv[i+1:]
	ops, opts := operands(rest)
	worktree := func() string { return c.targets([]arg{dir}) }
	switch sub {
	case "reset":
		if hasFlag(opts, "", "hard") {
			return "discards uncommitted changes (git reset --hard)", worktree(), true
		}
	case "checkout":
		if hasFlag(opts, "f", "force") || hasDashDash(rest) || containsWord(ops, ".") {
			return "discards uncommitted changes (git checkout)", worktree(), true
		}
	case "restore":
		if !hasFlag(opts, "S", "staged") || hasFlag(opts, "W", "worktree") {
			return "discards uncommitted changes (git restore)", worktree(), true
		}
	case "clean":
		if !hasFlag(opts, "n", "dry-run") {
			return "deletes untracked files (git clean)", worktree(), true
		}
	case "push":
		force := hasFlag(opts, "fd", "force", "force-with-lease", "force-if-includes", "mirror", "delete", "prune")
		for _, o := range ops {
			if o.static && (strings.HasPrefix(o.s, "+") || strings.HasPrefix(o.s, ":")) {
				force = true
			}
		}
		if force {
			return "rewrites or deletes history on a remote (a force push)", "it changes a remote repository, outside the workspace", true
		}
	}
	return "", "", false
}

// operands splits a command's arguments into operands and options: words
// after "--" are operands; a word only known when it runs is both (it may
// be either).
func operands(args []arg) (ops, opts []arg) {
	for i, a := range args {
		switch {
		case a.static && a.s == "--":
			return append(ops, args[i+1:]...), opts
		case !a.static:
			ops, opts = append(ops, a), append(opts, a)
		case len(a.s) > 1 && strings.HasPrefix(a.s, "-"):
			opts = append(opts, a)
		default:
			ops = append(ops, a)
		}
	}
	return ops, opts
}

// hasFlag reports whether opts hold one of the short letters (in a
// cluster such as -rf) or one of the long names (--name or --name=…).
func hasFlag(opts []arg, short string, long ...string) bool {
	for _, o := range opts {
		if !o.static {
			continue
		}
		if name, ok := strings.CutPrefix(o.s, "--"); ok {
			name, _, _ = strings.Cut(name, "=")
			if contains(long, name) {
				return true
			}
			continue
		}
		if strings.ContainsAny(o.s[1:], short) && short != "" {
			return true
		}
	}
	return false
}

func hasDashDash(args []arg) bool {
	for _, a := range args {
		if a.static && a.s == "--" {
			return true
		}
	}
	return false
}

func containsWord(args []arg, w string) bool {
	for _, a := range args {
		if a.static && a.s == w {
			return true
		}
	}
	return false
}

// targets says why one of the paths reaches outside the workspace, or "".
func (c *checker) targets(paths []arg) string {
	for _, t := range paths {
		if why := c.outsideWorkspace(t); why != "" {
			return why
		}
	}
	return ""
}

// outsideWorkspace says why the path t, as the command would see it,
// may be outside the workspace, or "" when it is inside.
func (c *checker) outsideWorkspace(t arg) string {
	if !t.static {
		if strings.Contains(t.s, "HOME") {
			return fmt.Sprintf("its target %s is your home directory or below it, outside the workspace", t.s)
		}
		return fmt.Sprintf("its target %s is only known when it runs, so it may be outside the workspace; name the paths", t.s)
	}
	s := t.s
	if s == "~" || strings.HasPrefix(s, "~/") || strings.HasPrefix(s, "~") {
		return fmt.Sprintf("its target %s is your home directory or below it, outside the workspace", s)
	}
	// A glob expands to names below the directory before its first
	// pattern character: that directory is what it reaches.
	glob := false
	if i := strings.IndexAny(s, "*?[{"); i >= 0 {
		glob = true
		// A later .., or a pattern that matches .. (.* in older bash;
		// only a pattern with a leading dot matches a dot name), climbs
		// out of that directory.
		j := strings.LastIndexByte(s[:i], '/') + 1
		for _, comp := range strings.Split(s[j:], "/") {
			dots, _ := path.Match(comp, "..")
			if dots && strings.HasPrefix(comp, ".") || strings.Contains(comp, "{") && strings.Contains(comp, "..") {
				return fmt.Sprintf("its target %s may expand to a parent directory, outside the workspace", t.s)
			}
		}
		s = s[:i]
		if j := strings.LastIndexByte(s, '/'); j >= 0 {
			s = s[:j+1]
		} else {
			s = "."
		}
	}
	p := filepath.Clean(s)
	if !filepath.IsAbs(p) {
		if c.dir == "" {
			if c.p.Workspace == "" && filepath.IsLocal(p) {
				return ""
			}
			return fmt.Sprintf("its target %s is relative to a directory only known when it runs", t.s)
		}
		p = filepath.Join(c.dir, p)
	}
	// rm -r link/ (and a glob below a link) deletes in the link's target.
	if glob || strings.HasSuffix(t.s, "/") {
		if r, err := filepath.EvalSymlinks(p); err == nil {
			p = r
		}
	} else if r, err := filepath.EvalSymlinks(filepath.Dir(p)); err == nil {
		p = filepath.Join(r, filepath.Base(p))
	}
	switch {
	case p == "/":
		return fmt.Sprintf("its target %s is the root directory", t.s)
	case c.p.Workspace == "":
		return fmt.Sprintf("its target %s is outside the workspace", t.s)
	case !within(p, c.p.Workspace):
		return fmt.Sprintf("its target %s is %s, outside the workspace %s", t.s, p, c.p.Workspace)
	}
	return ""
}

// joinArg is the directory dir/d (d when absolute); unknown when either is.
func (c *checker) joinArg(dir, d arg) arg {
	switch {
	case !d.static:
		return d
	case filepath.IsAbs(d.s) || strings.HasPrefix(d.s, "~"):
		return d
	case !dir.static:
		return dir
	}
	return arg{s: filepath.Join(dir.s, d.s), static: true}
}

// chdir follows a cd or pushd, so that later relative targets are judged
// from where they run; a directory only known when it runs (cd $X, cd -,
// cd alone) makes later relative targets unknown.
func (c *checker) chdir(argv []arg) {
	ops, _ := operands(argv[1:])
	switch {
	case len(ops) != 1 || !ops[0].static || ops[0].s == "-" || strings.HasPrefix(ops[0].s, "~"):
		c.dir = ""
	case filepath.IsAbs(ops[0].s):
		c.dir = filepath.Clean(ops[0].s)
	case c.dir != "":
		c.dir = filepath.Join(c.dir, ops[0].s)
	}
}

// within: p is root or below it.
func within(p, root string) bool {
	root = filepath.Clean(root)
	return p == root || strings.HasPrefix(p, strings.TrimSuffix(root, "/")+"/")
}

// destroying marks the finding judge just added for argv when argv is
// destructive, refusing it (outside full-access) when it reaches outside
// the workspace; and follows cd.
func (c *checker) destroying(argv []arg) {
	if len(argv) > 0 && argv[0].static {
		switch progName(argv[0].s) {
		case "cd", "pushd", "popd":
			c.chdir(argv)
			return
		}
	}
	what, outside, ok := c.destructive(argv)
	if !ok {
		return
	}
	f := &c.findings[len(c.findings)-1]
	display := displayArgs(argv)
	f.readOnly = false
	f.destroys = fmt.Sprintf("`%s` %s", display, what)
	if outside != "" && c.p.Mode != ModeFullAccess && f.need != needDeny {
		f.need = needDeny
		f.reason = fmt.Sprintf("%q %s and %s; a destructive command that reaches outside the workspace is refused unless the user runs OpenSeek with --approval full-access", display, what, outside)
	}
}
