package tui

import (
	"fmt"
	"strings"
)

// slashCommand is one entry of the command list: /help prints them all,
// the menu under a typed "/" shows those that match.
type slashCommand struct {
	name, args, desc string
}

// slashCommands is the command list, in the order /help and the menu show
// it. It is read-only.
var slashCommands = []slashCommand{
	{"help", "", "keys and commands"},
	{"compact", "", "summarise the history to free context"},
	{"goal", "TEXT", "set the standing goal (/goal clear removes it)"},
	{"plan", "", "next turns read-only (plan mode)"},
	{"auto", "", "run what the sandbox contains, ask for more (default)"},
	{"ask", "", "ask before any command that is not read-only"},
	{"always", "", "run commands without asking"},
	{"model", "[NAME]", "pick a model from the catalogue, or name one"},
	{"sessions", "", "pick a session to resume"},
	{"new", "", "start a new session"},
	{"jobs", "", "list background jobs (/jobs stop ID, /jobs output ID)"},
	{"diff", "", "what this session changed in the files"},
	{"network", "[HOST]", "hosts commands may reach (/network HOST: one more)"},
	{"rewind", "", "pick a turn: files and conversation back to before it"},
	{"quit", "", "leave (the session can be resumed)"},
}

const helpKeys = `Keys: Enter sends · Shift-Enter/Alt-Enter/Ctrl-J new line · ↑/↓ input history · Esc interrupts the turn or closes a list · Ctrl-C interrupts the turn, clears the input, twice quits · Ctrl-O unfolds tool output and reasoning · PgUp/PgDn scroll · while a turn runs, what you send steers it · / lists commands, @ completes a file and sends it with the prompt (Tab completes)`

// helpText is /help: the keys, then every command with its description.
func helpText() string {
	var b strings.Builder
	b.WriteString(helpKeys + "\nCommands:")
	for _, c := range slashCommands {
		fmt.Fprintf(&b, "\n  %-19s %s", c.usage(), c.desc)
	}
	return b.String()
}

func (c slashCommand) usage() string {
	if c.args == "" {
		return "/" + c.name
	}
	return "/" + c.name + " " + c.args
}

// matchCommands lists the commands whose name starts with prefix, then
// those that contain it elsewhere.
func matchCommands(prefix string) []slashCommand {
	var head, rest []slashCommand
	for _, c := range slashCommands {
		switch {
		case strings.HasPrefix(c.name, prefix):
			head = append(head, c)
		case strings.Contains(c.name, prefix):
			rest = append(rest, c)
		}
	}
	return append(head, rest...)
}
