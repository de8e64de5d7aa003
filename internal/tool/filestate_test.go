package tool

import (
	"fmt"
	"sync"
	"testing"
)

func TestFileState(t *testing.T) {
	tests := []struct {
		name    string
		ops     func(s *FileState)
		path    string
		current string
		want    bool
	}{
		{"created and unchanged", func(s *FileState) { s.MarkCreated("/w/a", []byte("x")) }, "/w/a", "x", true},
		{"created then changed by someone", func(s *FileState) { s.MarkCreated("/w/a", []byte("x")) }, "/w/a", "y", false},
		{"created then rewritten by the agent", func(s *FileState) {
			s.MarkCreated("/w/a", []byte("x"))
			s.Record("/w/a", []byte("y"))
		}, "/w/a", "y", true},
		{"written but not created", func(s *FileState) { s.Record("/w/a", []byte("x")) }, "/w/a", "x", false},
		{"forgotten", func(s *FileState) {
			s.MarkCreated("/w/a", []byte("x"))
			s.Forget("/w/a")
		}, "/w/a", "x", false},
		{"other path", func(s *FileState) { s.MarkCreated("/w/a", []byte("x")) }, "/w/b", "x", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var s FileState // the zero value is usable
			tt.ops(&s)
			if got := s.CreatedUnchanged(tt.path, []byte(tt.current)); got != tt.want {
				t.Fatalf("CreatedUnchanged = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestFileStateNilAndConcurrent(t *testing.T) {
	var nilState *FileState
	nilState.MarkCreated("/a", nil)
	nilState.Record("/a", nil)
	nilState.Forget("/a")
	if nilState.CreatedUnchanged("/a", nil) {
		t.Fatal("nil FileState reported a created file")
	}

	s := NewFileState()
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			p := fmt.Sprintf("/w/%d", i)
			s.MarkCreated(p, []byte(p))
			s.Record(p, []byte(p+"!"))
			_ = s.CreatedUnchanged(p, []byte(p))
		}()
	}
	wg.Wait()
	for i := range 16 {
		p := fmt.Sprintf("/w/%d", i)
		if !s.CreatedUnchanged(p, []byte(p+"!")) {
			t.Errorf("%s lost its record", p)
		}
	}
}
