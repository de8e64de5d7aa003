package protocol

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
)

func TestWriterLinesInOrder(t *testing.T) {
	var buf bytes.Buffer
	w := NewWriter(&buf)
	events := []Event{AgentStep{Step: 1}, AssistantDelta{Content: "a\nb"}, MaxStepsExhausted{}}
	for _, e := range events {
		if err := w.Emit(e); err != nil {
			t.Fatal(err)
		}
	}
	want := `{"event":"agent_step","step":1}` + "\n" +
		`{"event":"assistant_delta","content":"a\nb"}` + "\n" +
		`{"event":"max_steps_exhausted"}` + "\n"
	if buf.String() != want {
		t.Errorf("got %q\nwant %q", buf.String(), want)
	}
}

// lineWriter records each Write call, to prove one event is one Write.
type lineWriter struct {
	mu     sync.Mutex
	writes []string
}

func (l *lineWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.writes = append(l.writes, string(p))
	return len(p), nil
}

func TestWriterConcurrentWholeLines(t *testing.T) {
	lw := &lineWriter{}
	w := NewWriter(lw)
	const goroutines, each = 8, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Go(func() {
			for i := range each {
				// a big payload makes torn writes likely if locking were wrong
				if err := w.Emit(AssistantDelta{Content: fmt.Sprintf("%d-%d-%s", g, i, strings.Repeat("x", 512))}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	if len(lw.writes) != goroutines*each {
		t.Fatalf("%d writes, want %d", len(lw.writes), goroutines*each)
	}
	next := make([]int, goroutines)
	for _, line := range lw.writes {
		if !strings.HasSuffix(line, "\n") || strings.Count(line, "\n") != 1 {
			t.Fatalf("not one whole line: %q", line)
		}
		e, ok := ParseEvent([]byte(line))
		if !ok {
			t.Fatalf("unparsable line %q", line)
		}
		var g, i int
		fmt.Sscanf(e.(AssistantDelta).Content, "%d-%d-", &g, &i)
		if i != next[g] {
			t.Fatalf("goroutine %d: event %d after %d (out of call order)", g, i, next[g]-1)
		}
		next[g]++
	}
}

type failWriter struct{}

func (failWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestWriterErrorsAndClose(t *testing.T) {
	err := NewWriter(failWriter{}).Emit(AgentStep{Step: 1})
	if err == nil || err.Error() != "emit agent_step: broken pipe" {
		t.Errorf("Emit on a failing stream: %v", err)
	}
	var buf bytes.Buffer
	w := NewWriter(&buf)
	if err := w.Emit(AgentStep{Step: 1}); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if err := w.Emit(AgentStep{Step: 2}); err != nil {
		t.Errorf("Emit after Close = %v, want nil", err)
	}
	sc := bufio.NewScanner(&buf)
	n := 0
	for sc.Scan() {
		n++
	}
	if n != 1 {
		t.Errorf("%d lines written, want 1 (the event after Close is dropped)", n)
	}
	// A closed writer drops events from a failing stream too.
	fw := NewWriter(failWriter{})
	fw.Close()
	if err := fw.Emit(AgentStep{Step: 1}); err != nil {
		t.Errorf("closed writer returned %v", err)
	}
}
