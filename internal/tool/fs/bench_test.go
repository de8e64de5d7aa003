package fs

import (
	"fmt"
	"strings"
	"testing"
)

func bigFile(lines int) string {
	var b strings.Builder
	for i := range lines {
		fmt.Fprintf(&b, "\tline %d: the quick brown fox jumps over the lazy dog\n", i)
	}
	return b.String()
}

// BenchmarkReadHead reads the first window of a 100k-line file; the whole
// file is scanned for total_lines.
func BenchmarkReadHead(b *testing.B) {
	env := newEnv(b, map[string]string{"big.txt": bigFile(100_000)})
	b.ResetTimer()
	for b.Loop() {
		if res := call(b, Read(), env, `{"path":"big.txt","max_lines":200}`); res.IsError {
			b.Fatal(res.Content.Text())
		}
	}
}

// BenchmarkEditAnchored edits near the end of a 100k-line file.
func BenchmarkEditAnchored(b *testing.B) {
	env := newEnv(b, map[string]string{"big.txt": bigFile(100_000)})
	b.ResetTimer()
	i := 0
	for b.Loop() {
		old, repl := "line 99990:", "LINE 99990:"
		if i%2 == 1 {
			old, repl = repl, old
		}
		i++
		res := call(b, Edit(), env, fmt.Sprintf(`{"path":"big.txt","old_string":%q,"new_string":%q,"start_line":99990}`, old, repl))
		if res.IsError {
			b.Fatal(res.Content.Text())
		}
	}
}

// BenchmarkEditMissHint is the miss path: the closest-line search over a
// 20k-line file.
func BenchmarkEditMissHint(b *testing.B) {
	env := newEnv(b, map[string]string{"big.txt": bigFile(20_000)})
	b.ResetTimer()
	for b.Loop() {
		res := call(b, Edit(), env, `{"path":"big.txt","old_string":"line 12345: the quick brown fox jumped over the lazy dog","new_string":"x"}`)
		if !res.IsError {
			b.Fatal("expected a miss")
		}
	}
}
