package hooks

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"regexp"
	"time"
)

// Event is a point of the session where hooks run.
type Event string

// The events hooks can attach to.
const (
	PreToolUse       Event = "PreToolUse"
	PostToolUse      Event = "PostToolUse"
	UserPromptSubmit Event = "UserPromptSubmit"
	Stop             Event = "Stop"
	SessionStart     Event = "SessionStart"
	SessionEnd       Event = "SessionEnd"
	PreCompact       Event = "PreCompact"
	PostCompact      Event = "PostCompact"
)

// Events lists every supported event.
func Events() []Event {
	return []Event{PreToolUse, PostToolUse, UserPromptSubmit, Stop, SessionStart, SessionEnd, PreCompact, PostCompact}
}

// DefaultTimeout is how long a hook without a "timeout" may run.
const DefaultTimeout = 60 * time.Second

// maxTimeout caps a configured timeout, so a huge number cannot overflow.
const maxTimeout = 24 * time.Hour

// File is one hooks.json to load. An untrusted file is not read; Hint,
// when set, tells the user how to trust it.
type File struct {
	Path    string
	Trusted bool
	Hint    string
}

// hook is one command attached to an event.
type hook struct {
	command string
	timeout time.Duration
	match   *regexp.Regexp // nil matches everything
	file    string
}

type fileJSON struct {
	Hooks map[string][]groupJSON `json:"hooks"`
}

type groupJSON struct {
	Matcher string     `json:"matcher"`
	Hooks   []hookJSON `json:"hooks"`
}

type hookJSON struct {
	Type    string  `json:"type"`
	Command string  `json:"command"`
	Timeout float64 `json:"timeout"` // seconds
}

// Load reads files in order (global first, then workspace, by the
// caller's convention) into a Runner. Each file that cannot be used, or
// entry of one, is an error naming the file; the rest still load. The
// Runner is never nil.
func Load(files []File) (*Runner, []error) {
	r := &Runner{hooks: map[Event][]hook{}}
	var errs []error
	for _, f := range files {
		data, err := os.ReadFile(f.Path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if !f.Trusted {
			hint := f.Hint
			if hint == "" {
				hint = "review it, then trust this workspace to run its hooks"
			}
			errs = append(errs, fmt.Errorf("%s: skipped: this workspace's hooks are not trusted (they run commands on your machine); %s", f.Path, hint))
			continue
		}
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", f.Path, err))
			continue
		}
		hooks, ferrs := parse(f.Path, data)
		errs = append(errs, ferrs...)
		for _, ev := range Events() {
			r.hooks[ev] = append(r.hooks[ev], hooks[ev]...)
		}
	}
	return r, errs
}

// parse decodes one hooks file. A file that is not the expected JSON
// yields a single error and no hooks; a bad entry is skipped with an error
// and the rest of the file is kept.
func parse(path string, data []byte) (map[Event][]hook, []error) {
	var cfg fileJSON
	if err := json.Unmarshal(data, &cfg); err != nil {
		return nil, []error{fmt.Errorf("%s: not a hooks file (%v); expected {\"hooks\": {\"PreToolUse\": [{\"matcher\": …, \"hooks\": [{\"type\": \"command\", \"command\": …}]}]}}", path, err)}
	}
	if cfg.Hooks == nil {
		return nil, []error{fmt.Errorf("%s: no \"hooks\" object", path)}
	}
	known := map[Event]bool{}
	for _, ev := range Events() {
		known[ev] = true
	}
	out := map[Event][]hook{}
	var errs []error
	// Walk events in a fixed order so errors come out deterministically.
	names := make([]string, 0, len(cfg.Hooks))
	for _, ev := range Events() {
		if _, ok := cfg.Hooks[string(ev)]; ok {
			names = append(names, string(ev))
		}
	}
	for name := range cfg.Hooks {
		if !known[Event(name)] {
			errs = append(errs, fmt.Errorf("%s: hooks.%s: event not supported (supported: %v); its hooks are ignored", path, name, Events()))
		}
	}
	for _, name := range names {
		ev := Event(name)
		for gi, g := range cfg.Hooks[name] {
			at := fmt.Sprintf("%s: hooks.%s[%d]", path, name, gi)
			var re *regexp.Regexp
			if g.Matcher != "" && g.Matcher != "*" {
				var err error
				if re, err = regexp.Compile("^(?:" + g.Matcher + ")$"); err != nil {
					errs = append(errs, fmt.Errorf("%s.matcher %q: %v", at, g.Matcher, err))
					continue
				}
			}
			for hi, h := range g.Hooks {
				hat := fmt.Sprintf("%s.hooks[%d]", at, hi)
				switch {
				case h.Type != "command":
					errs = append(errs, fmt.Errorf("%s: type %q not supported (only \"command\")", hat, h.Type))
				case h.Command == "":
					errs = append(errs, fmt.Errorf("%s: no command", hat))
				case h.Timeout < 0:
					errs = append(errs, fmt.Errorf("%s: timeout %v must be positive seconds", hat, h.Timeout))
				default:
					timeout := DefaultTimeout
					if h.Timeout > 0 {
						timeout = time.Duration(min(h.Timeout, maxTimeout.Seconds()) * float64(time.Second))
					}
					out[ev] = append(out[ev], hook{command: h.Command, timeout: timeout, match: re, file: path})
				}
			}
		}
	}
	return out, errs
}
