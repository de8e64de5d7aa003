package review

import (
	"fmt"
	"io"
	"strings"
)

// WriteText prints a report for people: the verdict and summary, then
// the findings, most severe first in the model's order within a
// severity.
func WriteText(w io.Writer, r *Report) error {
	var b strings.Builder
	fmt.Fprintf(&b, "verdict: %s\n", strings.ReplaceAll(r.Verdict, "_", " "))
	if s := strings.TrimSpace(r.Summary); s != "" {
		b.WriteString(s + "\n")
	}
	if len(r.Findings) == 0 {
		b.WriteString("\nno findings\n")
	}
	for _, sev := range []string{High, Medium, Low} {
		for _, f := range r.Findings {
			if f.Severity != sev {
				continue
			}
			lines := fmt.Sprint(f.LineStart)
			if f.LineEnd != f.LineStart {
				lines += fmt.Sprintf("-%d", f.LineEnd)
			}
			fmt.Fprintf(&b, "\n[%s] %s:%s %s\n", f.Severity, f.File, lines, f.Title)
			for _, l := range strings.Split(strings.TrimSpace(f.Body), "\n") {
				if l != "" {
					b.WriteString("    " + l)
				}
				b.WriteString("\n")
			}
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}
