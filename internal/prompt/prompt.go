// Package prompt builds the system prompt: what the model is told about
// its job, how to work on code here, and the workspace it is in. The
// prompt is fixed for the life of a session (it is stored in the session
// header), so nothing volatile — time, counters, reminders — belongs in it;
// volatile context is appended to the conversation instead, which keeps
// the request prefix byte-stable for provider prompt caches.
//
// Besides the built-in (or replacement) prompt and the addendum, the prompt
// carries two sections the engine fills at session start: the project
// memory (Memory: ~/.openseek/AGENTS.md and the AGENTS.md files from the
// repository root down to the working directory, capped in size) and the
// skills list (names and descriptions only; bodies load on demand through
// the skill tool). Both live in the system prompt, so they stay in force
// after compaction, which rewrites the conversation but not the prompt.
package prompt

import (
	"fmt"
	"os"
	"strings"
)

// Options selects and completes the system prompt.
type Options struct {
	Workspace string // absolute workspace root
	// Cwd is where the user started OpenSeek, relative to the workspace
	// root when it is below it ("" = the root itself).
	Cwd   string
	OS    string // e.g. "linux"
	Shell string // e.g. "bash"
	// Replace, when non-empty, replaces the built-in prompt entirely
	// (--system-prompt-file).
	Replace string
	// Addendum is appended to the selected prompt
	// (--system-prompt-addendum-file).
	Addendum string
	// Memory is the project memory, Memory's text; it becomes the "Project
	// instructions" section.
	Memory string
	// Skills is the skills section (skills.Section), rendered as given.
	Skills string
}

// Build returns the system prompt for opts: the built-in prompt with the
// environment (or the replacement), the addendum, then the project memory
// and skills sections, each only when non-empty. The same opts always give
// the same bytes, and sections only ever follow the selected prompt, so a
// session's prompt prefix stays cache-stable. Because the system prompt
// outlives compaction, so do the memory and skills listed in it.
func Build(opts Options) string {
	var b strings.Builder
	if opts.Replace != "" {
		b.WriteString(strings.TrimRight(opts.Replace, "\n"))
	} else {
		b.WriteString(strings.TrimRight(base, "\n"))
		fmt.Fprintf(&b, "\n\n# Environment\nWorkspace root: %s\n", opts.Workspace)
		if opts.Cwd != "" {
			fmt.Fprintf(&b, "Working directory: %s (the user is there: shell commands start there; file paths are relative to the workspace root)\n", opts.Cwd)
		}
		fmt.Fprintf(&b, "OS: %s, shell: %s\n", opts.OS, opts.Shell)
	}
	if a := strings.TrimSpace(opts.Addendum); a != "" {
		b.WriteString("\n\n")
		b.WriteString(a)
	}
	if m := strings.TrimSpace(opts.Memory); m != "" {
		b.WriteString("\n\n")
		b.WriteString(memoryHeader)
		b.WriteString(m)
	}
	if s := strings.TrimSpace(opts.Skills); s != "" {
		b.WriteString("\n\n")
		b.WriteString(s)
	}
	return strings.TrimRight(b.String(), "\n") + "\n"
}

// ReadFile reads a prompt file named on the command line, with an error a
// user can act on.
func ReadFile(path, flag string) (string, error) {
	if path == "" {
		return "", nil
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return "", fmt.Errorf("%s: cannot read %s: %w", flag, path, err)
	}
	return string(data), nil
}

const memoryHeader = "# Project instructions (AGENTS.md)\nStanding instructions from the user and the repository, most general first; where they conflict, the later (deeper) file wins. Follow them unless the user's task says otherwise.\n\n"

const base = `You are OpenSeek, a coding agent working in the user's code base through tools. You get a task in plain words and carry it through to the end: investigate, change the code, verify, and report.

# How to work
- Explore before you edit. Find the relevant files (shell: rg, ls, git log/grep), read them, and learn the project's conventions, build and test commands before changing anything. Never guess at code you have not read.
- Make small, targeted edits with edit/multi_edit; use write only for new files or complete rewrites. Keep the surrounding style. Do not reformat, rename or refactor beyond the task.
- Verify every change: build, run the relevant tests or the program. When something fails, read the error, fix the cause, and run it again. Do not claim success you have not observed.
- Long-running commands (servers, watchers, long builds or test suites) go to the background with shell background:true; check on them with job_output and stop them with job_stop. A notice arrives when a background job ends on its own.
- Batch independent tool calls in one message; they run in order.
- Stay inside the workspace. Do not touch .git internals, credentials or files unrelated to the task. Never run destructive commands (rm -rf, git reset --hard, force pushes) unless the user asked for exactly that.
- If the task is ambiguous, make the most reasonable choice, say which, and continue; stop to ask only when going on could do harm.

# Finishing
When the task is done, answer with a short plain message (no tool call): what you changed, how you verified it, and anything left open. Or call finish with that answer. Be concise and factual; cite files as path:line.
`
