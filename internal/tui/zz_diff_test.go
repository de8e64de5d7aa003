package tui

import (
	"strings"
	"testing"
)

func FuzzZZDiff(f *testing.F) {
	for _, ex := range loadSpec(f) {
		f.Add(ex.Markdown)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if strings.Contains(src, "`") && strings.Contains(src, "\n") || strings.Contains(src, "&") || strings.Contains(src, "~~~") || strings.Contains(src, "\r") {
			return
		}
		if d := renderBoth(src); d != "" {
			t.Fatalf("%q\n%s", src, d)
		}
	})
}
