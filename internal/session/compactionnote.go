package session

import (
	"fmt"
	"strings"
)

// CompactionNotePrefix starts the marker a compaction leaves after its
// summary: what it summarised, for people reading the log. Like the
// other markers it is bookkeeping, never shown to the model.
const CompactionNotePrefix = "[compaction] "

// CompactionNotice is the marker text for a compaction (trigger "auto"
// or "manual") of events from..to holding turns user turns and naming
// files, that took the context from before to after tokens (estimates);
// hook says a PostCompact hook wrote the summary.
func CompactionNotice(trigger string, from, to, turns int, files []string, before, after int, hook bool) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s%s: summarised events %d..%d (%d turn(s)); context about %d → %d tokens", CompactionNotePrefix, trigger, from, to, turns, before, after)
	if len(files) > 0 {
		fmt.Fprintf(&b, "; files: %s", strings.Join(files, ", "))
	}
	if hook {
		b.WriteString("; summary replaced by a PostCompact hook")
	}
	return b.String()
}
