package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"testing"
	"time"
)

// BenchmarkGoplsDiagnosticsAfterEdit measures, with a warm gopls, the time
// from "the file changed" to the settled diagnostics report (the part of
// an edit the model waits for), for edits that keep the file clean and
// edits that break and fix it.
func BenchmarkGoplsDiagnosticsAfterEdit(b *testing.B) {
	requireProgram(b, "gopls")
	for _, bc := range []struct {
		name string
		edit func(i int) string
	}{
		{"clean-to-clean", func(i int) string { return fmt.Sprintf("package main\n\nfunc main() {\n\tprintln(%d)\n}\n", i) }},
		{"break-and-fix", func(i int) string {
			if i%2 == 0 {
				return goBroken
			}
			return goClean
		}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			ws := b.TempDir()
			writeFile(b, filepath.Join(ws, "go.mod"), goMod)
			main := filepath.Join(ws, "main.go")
			writeFile(b, main, goClean)
			m := newManager(b, ws, Options{Wait: 30 * time.Second})
			warm(b, m, main)
			change(b, m, main, goClean)
			ctx := context.Background()
			var total time.Duration
			i := 0
			for b.Loop() {
				check := m.Before(ctx, []string{main})
				writeFile(b, main, bc.edit(i))
				start := time.Now()
				r := check(ctx)
				total += time.Since(start)
				if !r.Checked {
					b.Fatalf("not checked: %s", r.Note)
				}
				i++
			}
			b.ReportMetric(float64(total.Milliseconds())/float64(i), "ms/report")
		})
	}
}
