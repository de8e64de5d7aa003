package policy

import (
	"path"
	"slices"
	"strings"
)

// networkUse says why argv needs the network (what a sandbox without
// network cuts off), or "". It knows the common clients and the
// subcommands of package managers and version control that fetch or
// publish; a program it does not know is not assumed to need it — the
// model can ask to run such a command outside the sandbox (escalate).
func networkUse(argv []arg) string {
	if len(argv) == 0 || !argv[0].static {
		return ""
	}
	name := progName(argv[0].s)
	switch name {
	case "curl", "wget", "ssh", "scp", "sftp", "ftp", "telnet", "nc", "ncat", "netcat", "ping", "dig", "nslookup", "gh":
		return name + " uses the network"
	case "rsync":
		for _, a := range argv[1:] {
			if a.static && strings.Contains(a.s, ":") && !strings.HasPrefix(a.s, "-") {
				return "rsync to or from another host uses the network"
			}
		}
		return ""
	}
	sub := subcommand(argv)
	if slices.Contains(fetching(name), sub) {
		return name + " " + sub + " uses the network"
	}
	if name == "go" && sub == "mod" && len(argv) > 2 && argv[2].static && argv[2].s == "download" {
		return "go mod download uses the network"
	}
	return ""
}

// fetching lists the subcommands of prog that fetch or publish.
func fetching(prog string) []string {
	switch prog {
	case "git":
		return []string{"push", "pull", "fetch", "clone", "ls-remote"}
	case "npm":
		return []string{"install", "i", "ci", "add", "update", "publish", "view"}
	case "pnpm":
		return []string{"install", "i", "add", "update", "publish"}
	case "yarn":
		return []string{"install", "add", "upgrade", "publish"}
	case "pip", "pip3":
		return []string{"install", "download"}
	case "go":
		return []string{"get", "install"}
	case "cargo":
		return []string{"install", "fetch", "update", "publish", "search"}
	case "gem":
		return []string{"install", "update", "push"}
	case "apt", "apt-get":
		return []string{"install", "update", "upgrade"}
	case "docker":
		return []string{"pull", "push", "login"}
	}
	return nil
}

// subcommand is the first word after the program that is not an option
// (git -C dir push: push), or "".
func subcommand(argv []arg) string {
	for i := 1; i < len(argv); i++ {
		a := argv[i]
		if !a.static {
			return ""
		}
		if strings.HasPrefix(a.s, "-") {
			// options that take a value as the next word
			if a.s == "-C" || a.s == "-c" {
				i++
			}
			continue
		}
		return a.s
	}
	return ""
}

// outsideChecks: auto mode with a sandbox looks for what it cuts off.
func (c *checker) outsideChecks() bool { return c.p.Mode == ModeAuto && c.p.Sandboxed }

// needsNetwork is networkUse when the sandbox cuts the network off and
// auto mode asks about it.
func (c *checker) needsNetwork(argv []arg) string {
	if !c.outsideChecks() || c.p.Network {
		return ""
	}
	return networkUse(argv)
}

// writesOutside says why a redirection target t lies outside what the
// sandbox lets commands write (the workspace and the temporary
// directories), or "" when it lies inside, cannot be told, or auto mode
// does not ask.
func (c *checker) writesOutside(t string) string {
	if !c.outsideChecks() {
		return ""
	}
	switch {
	case strings.HasPrefix(t, "~"):
	case path.IsAbs(t):
		t = path.Clean(t)
		for _, in := range []string{c.p.Workspace, "/tmp", "/var/tmp", "/dev"} {
			if in != "" && (t == in || strings.HasPrefix(t, strings.TrimSuffix(in, "/")+"/")) {
				return ""
			}
		}
	default:
		return ""
	}
	return "it writes to " + t + ", outside the workspace"
}
