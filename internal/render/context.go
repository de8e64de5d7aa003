package render

import (
	"fmt"
	"strings"

	"github.com/openseek/openseek/protocol"
)

// ContextLine is how every face writes the context's health: "context
// 41k/128k · 1 compaction", with the read ledger's savings when there
// are any ("· 2 re-reads avoided (5.1 KB)").
func ContextLine(e protocol.ContextHealth) string {
	line := fmt.Sprintf("context %s/%s · %s", kilo(e.UsedTokens), kilo(e.Window), Count(e.Compactions, "compaction"))
	if e.RereadsAvoided > 0 {
		line += fmt.Sprintf(" · %s avoided (%s)", Count(e.RereadsAvoided, "re-read"), bytesText(e.RereadBytesSaved))
	}
	return line
}

// CompactionText is how every face tells what a compaction summarised.
func CompactionText(e protocol.CompactionReport) string {
	var b strings.Builder
	fmt.Fprintf(&b, "compacted events %d..%d (%s, %s): context %s → %s tokens", e.FromSequence, e.ToSequence, e.Trigger, Count(e.Turns, "turn"), kilo(e.TokensBefore), kilo(e.TokensAfter))
	if n := len(e.Files); n > 0 {
		shown := e.Files[:min(n, 8)]
		fmt.Fprintf(&b, "; files: %s", strings.Join(shown, ", "))
		if n > len(shown) {
			fmt.Fprintf(&b, " and %d more", n-len(shown))
		}
	}
	if e.HookReplaced {
		b.WriteString("; summary from a PostCompact hook")
	}
	return b.String()
}

// kilo writes a token count the short way: 950, 41k, 1.2M.
func kilo(n int) string {
	switch {
	case n < 1000:
		return fmt.Sprint(n)
	case n < 1_000_000:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return fmt.Sprintf("%.1fM", float64(n)/1e6)
}

func bytesText(n int) string {
	if n < 1024 {
		return fmt.Sprintf("%d B", n)
	}
	return fmt.Sprintf("%.1f KB", float64(n)/1024)
}
