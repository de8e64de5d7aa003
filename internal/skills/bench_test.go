package skills

import (
	"fmt"
	"testing"
)

// BenchmarkDiscover measures session-start cost with 50 workspace and 50
// global skills, half of them shadowed.
func BenchmarkDiscover(b *testing.B) {
	ws, global := b.TempDir(), b.TempDir()
	for i := range 50 {
		name := fmt.Sprintf("skill-%02d", i)
		write(b, ws, ".openseek/skills/"+name+"/SKILL.md", skillFile(name, "Does thing "+name, "body"))
		write(b, global, fmt.Sprintf("skill-%02d.md", i+25), skillFile(fmt.Sprintf("skill-%02d", i+25), "global", "body"))
	}
	b.ResetTimer()
	for b.Loop() {
		got, errs := Discover(ws, global)
		if len(got) != 75 || len(errs) != 0 {
			b.Fatalf("got %d skills, %v", len(got), errs)
		}
	}
}
