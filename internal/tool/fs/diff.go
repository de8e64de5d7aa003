package fs

import (
	"strings"

	udiff "github.com/aymanbagabas/go-udiff"
)

// maxDiff bounds the unified diff kept in an edit's result data (what
// the web app, the TUI and editors show); a longer one is cut with a note.
const maxDiff = 64 << 10

// unifiedDiff is the unified diff of one file's change, for display: the
// "diff" key of an edit tool's data, carried by the tool_result event.
// It is never shown to the model.
func unifiedDiff(rel string, before, after []byte) string {
	if string(before) == string(after) {
		return ""
	}
	from, to := "a/"+rel, "b/"+rel
	if before == nil {
		from = "/dev/null"
	}
	if after == nil {
		to = "/dev/null"
	}
	d := udiff.Unified(from, to, string(before), string(after))
	if len(d) > maxDiff {
		cut := strings.LastIndexByte(d[:maxDiff], '\n')
		d = d[:cut+1] + "… (diff cut at 64 KiB)\n"
	}
	return d
}

// joinDiffs concatenates the diffs of several files.
func joinDiffs(diffs []string) string { return strings.Join(diffs, "") }
