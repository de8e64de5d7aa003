package jobs

import (
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

func newTestSpool(t testing.TB, max int64) *spool {
	t.Helper()
	f, err := os.Create(filepath.Join(t.TempDir(), "out.log"))
	if err != nil {
		t.Fatal(err)
	}
	s := newSpool(f, max)
	t.Cleanup(s.finish)
	return s
}

func TestSpoolCounts(t *testing.T) {
	tests := []struct {
		name    string
		writes  []string
		chars   int64
		invalid bool
		text    string
	}{
		{"ascii", []string{"hello ", "world"}, 11, false, "hello world"},
		{"empty", nil, 0, false, ""},
		{"rune split across writes", []string{"a\xe2\x82", "\xacb"}, 3, false, "a€b"},
		{"rune split three ways", []string{"\xf0\x9f", "\x98", "\x80!"}, 2, false, "😀!"},
		{"invalid byte", []string{"a\xffb"}, 3, true, "a\ufffdb"},
		{"broken sequence", []string{"\xe2\x82", "x"}, 3, true, "\ufffd\ufffdx"},
		{"truncated at end", []string{"ok\xe2\x82"}, 4, true, "ok\ufffd\ufffd"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestSpool(t, 1<<20)
			for _, w := range tt.writes {
				s.write([]byte(w), time.Now())
			}
			s.finish()
			st := s.stats()
			if st.Chars != tt.chars || st.Invalid != tt.invalid {
				t.Errorf("chars=%d invalid=%v, want %d %v", st.Chars, st.Invalid, tt.chars, tt.invalid)
			}
			got, err := s.read(0, 1<<20)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.text {
				t.Errorf("read = %q, want %q", got, tt.text)
			}
		})
	}
}

func TestSpoolCap(t *testing.T) {
	s := newTestSpool(t, 10)
	if s.write([]byte("12345"), time.Now()) {
		t.Fatal("cap reported early")
	}
	if !s.write([]byte("67890abc"), time.Now()) {
		t.Fatal("cap not reported")
	}
	if s.write([]byte("more"), time.Now()) {
		t.Fatal("cap reported twice")
	}
	st := s.stats()
	if st.Bytes != 10 || !st.Dropped {
		t.Fatalf("bytes=%d dropped=%v, want 10 true", st.Bytes, st.Dropped)
	}
	if got, _ := s.read(0, 100); got != "1234567890" {
		t.Fatalf("read = %q", got)
	}
}

func TestSpoolWindows(t *testing.T) {
	s := newTestSpool(t, 1<<30)
	// Multi-byte characters across many index steps.
	line := strings.Repeat("é", 999) + "\n"
	for range 30 {
		s.write([]byte(line), time.Now())
	}
	all := []rune(strings.Repeat(line, 30))
	tests := []struct{ start, n int64 }{
		{0, 10}, {4095, 3}, {4096, 5000}, {12345, 100}, {29990, 100}, {30000, 5}, {-4, 2},
	}
	for _, tt := range tests {
		got, err := s.read(tt.start, tt.n)
		if err != nil {
			t.Fatal(err)
		}
		lo := min(max(tt.start, 0), int64(len(all)))
		hi := min(lo+tt.n, int64(len(all)))
		if want := string(all[lo:hi]); got != want {
			t.Errorf("read(%d, %d) = %d chars, want %d", tt.start, tt.n, len([]rune(got)), len([]rune(want)))
		}
	}
}

// A command's few lines read back without a buffer sized for a large
// output: every tool result reads its command's output once, and 64 KB a
// read was most of what a session's steps allocated (its peak memory).
func TestSpoolReadOfSmallOutputAllocatesLittle(t *testing.T) {
	s := newTestSpool(t, 1<<30)
	s.write([]byte("step 1\n"), time.Now())
	s.finish()
	const reads = 50
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	for range reads {
		if got, err := s.read(0, DefaultWindow); err != nil || got != "step 1\n" {
			t.Fatalf("read = %q, %v", got, err)
		}
	}
	runtime.ReadMemStats(&after)
	if per := (after.TotalAlloc - before.TotalAlloc) / reads; per > 16<<10 {
		t.Errorf("reading 7 bytes of output allocated %d bytes a read, want under 16 KB", per)
	}
}

// FuzzSpool checks that any bytes, written in any split, count and read
// back exactly as Go's own per-byte UTF-8 decoding sees them.
func FuzzSpool(f *testing.F) {
	f.Add([]byte("hello\xe2\x82\xacworld"), uint8(3), int64(2), int64(5))
	f.Add([]byte("\xff\xfe\xf0\x9f\x98"), uint8(1), int64(0), int64(10))
	f.Fuzz(func(t *testing.T, data []byte, split uint8, start, n int64) {
		s := newTestSpool(t, 1<<20)
		step := int(split)%7 + 1
		for i := 0; i < len(data); i += step {
			s.write(data[i:min(i+step, len(data))], time.Now())
		}
		s.finish()
		want := []rune(string(data))
		if st := s.stats(); st.Chars != int64(len(want)) || st.Bytes != int64(len(data)) {
			t.Fatalf("chars=%d bytes=%d, want %d %d", st.Chars, st.Bytes, len(want), len(data))
		}
		start, n = start%(int64(len(want))+2), n%20000
		got, err := s.read(start, n)
		if err != nil {
			t.Fatal(err)
		}
		lo := min(max(start, 0), int64(len(want)))
		hi := min(lo+max(n, 0), int64(len(want)))
		if got != string(want[lo:hi]) {
			t.Fatalf("read(%d,%d) = %q, want %q", start, n, got, string(want[lo:hi]))
		}
	})
}

func BenchmarkSpoolWrite(b *testing.B) {
	chunk := []byte(strings.Repeat("line of output with ünïcödé\n", 1000))
	s := newTestSpool(b, 1<<62)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		s.write(chunk, time.Now())
	}
}

func BenchmarkSpoolReadTail(b *testing.B) {
	s := newTestSpool(b, 1<<62)
	chunk := []byte(strings.Repeat("line of output with ünïcödé\n", 1000))
	for range 300 { // ~8 MB
		s.write(chunk, time.Now())
	}
	total := s.stats().Chars
	for b.Loop() {
		if _, err := s.read(total-DefaultWindow, DefaultWindow); err != nil {
			b.Fatal(err)
		}
	}
}

// When the spool's file can no longer be written (a full disk), what the
// command printed afterwards is kept in memory and reads back whole, so
// the command's own "No space left on device" reaches its result instead
// of an EOF from reading bytes the file never got.
func TestSpoolKeepsOutputTheDiskRefused(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("this test writes to /dev/full, which this system lacks: %v", err)
	}
	s := newTestSpool(t, 1<<20)
	s.write([]byte("building…\n"), time.Now())
	s.mu.Lock()
	written := s.f
	s.f = full // the disk fills up
	s.mu.Unlock()
	defer written.Close()
	msg := "cp: error writing 'big.bin': No space left on device\n"
	s.write([]byte(msg), time.Now())
	s.write([]byte("€"), time.Now())
	st := s.stats()
	if st.Err == nil {
		t.Fatal("the write error was not recorded")
	}
	got, err := s.read(0, 1<<20)
	if err != nil {
		t.Fatal(err)
	}
	if want := "building…\n" + msg + "€"; got != want {
		t.Errorf("read = %q, want %q", got, want)
	}
	if tail, err := s.read(st.Chars-1, 1); err != nil || tail != "€" {
		t.Errorf("window from memory: %q %v", tail, err)
	}
	// Memory is bounded too: beyond memMax the output is dropped.
	s.write([]byte(strings.Repeat("x", memMax+10)), time.Now())
	if st := s.stats(); !st.Dropped || st.Bytes > int64(len("building…\n"))+memMax {
		t.Errorf("memory not bounded: %+v", st)
	}
}
