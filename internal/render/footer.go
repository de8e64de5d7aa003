package render

import (
	"strconv"
	"strings"
)

// Footer is what a tool result's closing `<system>k=v …</system>` line
// says, put for a person: the line is written for the model (the shell
// tool's exit code, what was cut), and a face shows an exit badge and
// plain words instead. The session log and the model keep the line.
type Footer struct {
	Exit  string   // the exit code ("0", "1"); "" when the line has none
	Notes []string // everything else the line says, in words
}

// ForPeople is a tool result as a person reads it in plain text: the
// body, then the footer in words on a line of its own ("exit 1 · output
// cut: …"); text without a known footer comes back whole.
func ForPeople(text string) string {
	body, f, ok := SplitFooter(text)
	if !ok {
		return text
	}
	var words []string
	if f.Exit != "" {
		words = append(words, "exit "+f.Exit)
	}
	words = append(words, f.Notes...)
	if len(words) == 0 {
		return body
	}
	if body == "" {
		return "(" + strings.Join(words, " · ") + ")"
	}
	return body + "\n(" + strings.Join(words, " · ") + ")"
}

// SplitFooter takes the closing footer off a tool result's text. ok is
// false, and text comes back whole, when the text does not end with a
// footer of the shell, job_output or read tools, or the footer holds a
// key this does not know (nothing the model was told is hidden unread).
func SplitFooter(text string) (body string, f Footer, ok bool) {
	t := strings.TrimRight(text, "\n")
	if !strings.HasSuffix(t, "</system>") {
		return text, Footer{}, false
	}
	i := strings.LastIndex(t, "<system>")
	if i < 0 || strings.Contains(t[i:], "\n") {
		return text, Footer{}, false
	}
	kv := map[string]string{}
	var order []string
	line := t[i+len("<system>") : len(t)-len("</system>")]
	if j := strings.Index(line, "note="); j >= 0 {
		// read's note takes the rest of the line: "note=empty file".
		kv["note"], order = line[j+len("note="):], []string{"note"}
		line = line[:j]
	}
	for _, tok := range strings.Fields(line) {
		k, v, found := strings.Cut(tok, "=")
		switch {
		case tok == "directory":
			k = tok
		case !found:
			// job_output's bare state word: running, stopped.
			k, v = "state", tok
		}
		if _, dup := kv[k]; dup {
			return text, Footer{}, false
		}
		kv[k] = v
		order = append(order, k)
	}
	if len(order) == 0 {
		return text, Footer{}, false
	}
	f.Exit = kv["exit"]
	note := func(s string) { f.Notes = append(f.Notes, s) }
	for _, k := range order {
		v := kv[k]
		switch k {
		case "exit", "shown_chars", "total_chars", "shown_lines", "total_lines", "start_line", "shown_entries", "window_offset":
			// said with the key they qualify
		case "job":
			note("background job " + v)
		case "state":
			note(v)
		case "truncated":
			if v != "true" {
				continue
			}
			switch {
			case kv["total_chars"] != "":
				s := "output cut: " + kv["shown_chars"] + " of " + kv["total_chars"] + " characters shown"
				if off := kv["window_offset"]; off != "" {
					s += " from character " + off
				}
				note(s)
			case kv["total_lines"] != "":
				start, _ := strconv.Atoi(kv["start_line"])
				shown, _ := strconv.Atoi(kv["shown_lines"])
				note("lines " + strconv.Itoa(start) + "–" + strconv.Itoa(start+shown-1) + " of " + kv["total_lines"] + " shown")
			case kv["shown_entries"] != "":
				note(kv["shown_entries"] + " of " + kv["entries"] + " entries shown")
			default:
				note("output cut")
			}
		case "directory", "entries":
			// read's "directory entries=N": said with truncated
		case "note":
			note(v)
		case "output_dropped_at_cap":
			note("output past the size cap was not kept")
		case "killed_at_output_cap":
			note("stopped: the output reached the size cap")
		case "binary_output":
			note("binary output")
		case "output_not_saved":
			note("the output could not be saved")
		default:
			return text, Footer{}, false
		}
	}
	return strings.TrimRight(t[:i], "\n"), f, true
}
