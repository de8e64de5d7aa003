package hub

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openseek/openseek/protocol"
)

func delta(i int) protocol.Event { return protocol.AssistantDelta{Content: fmt.Sprint(i)} }

// Every subscriber sees every event once, in order, with increasing
// sequence numbers, however many subscribe.
func TestHubFansOutInOrder(t *testing.T) {
	h := NewHub(0, 0)
	const subs, events = 50, 500
	var wg sync.WaitGroup
	errs := make(chan error, subs)
	for range subs {
		want := int64(1)
		f := h.Follow(0, func(e Entry) error {
			if e.Seq != want || string(e.Line) != string(protocol.Emit(delta(int(want)))) {
				return fmt.Errorf("got seq %d %s, want %d", e.Seq, e.Line, want)
			}
			want++
			return nil
		})
		wg.Go(func() {
			err := f.Wait()
			if err == nil && want != events+1 {
				err = fmt.Errorf("read %d events, want %d", want-1, events)
			}
			errs <- err
		})
	}
	for i := 1; i <= events; i++ {
		if seq := h.Publish(delta(i)); seq != int64(i) {
			t.Fatalf("Publish returned %d, want %d", seq, i)
		}
	}
	h.Close()
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// Reconnecting with the last sequence seen replays exactly the later events.
func TestHubResumeFromSequence(t *testing.T) {
	h := NewHub(0, 0)
	for i := 1; i <= 10; i++ {
		h.Publish(delta(i))
	}
	s := h.Subscribe(7)
	defer s.Close()
	got, err := s.Next(context.Background(), 0)
	if err != nil || len(got) != 3 || got[0].Seq != 8 || got[2].Seq != 10 {
		t.Fatalf("resume after 7: %v %v", got, err)
	}
	if s.Pending() {
		t.Error("pending after reading everything")
	}
	live := h.Subscribe(h.Head())
	defer live.Close()
	h.Publish(delta(11))
	got, err = live.Next(context.Background(), 0)
	if err != nil || len(got) != 1 || got[0].Seq != 11 {
		t.Fatalf("live subscriber: %v %v", got, err)
	}
}

// A subscriber that falls out of the window is told what it missed and
// goes on from the oldest event still held; the publisher never waits.
func TestHubSlowSubscriberIsReset(t *testing.T) {
	h := NewHub(8, 0)
	slow := h.Subscribe(0)
	defer slow.Close()
	for i := 1; i <= 20; i++ {
		h.Publish(delta(i)) // nobody reads: must not block
	}
	_, err := slow.Next(context.Background(), 0)
	var lag *Lag
	if !errors.As(err, &lag) || lag.Since != 0 || lag.Resume != 13 {
		t.Fatalf("want a lag since 0 resuming at 13, got %v", err)
	}
	got, err := slow.Next(context.Background(), 0)
	if err != nil || len(got) != 8 || got[0].Seq != 13 {
		t.Fatalf("after the reset: %v %v", got, err)
	}
	var lines []string
	for _, e := range readAll(t, h, 2) {
		lines = append(lines, e.Event.EventName())
	}
	if len(lines) != 9 || lines[0] != "stream_reset" {
		t.Errorf("Follow after a lag: %v", lines)
	}
}

// The byte bound evicts old events even when the count bound is not met.
func TestHubByteBound(t *testing.T) {
	h := NewHub(1000, 1024)
	big := protocol.AssistantDelta{Content: string(make([]byte, 400))}
	for range 10 {
		h.Publish(big)
	}
	s := h.Subscribe(0)
	defer s.Close()
	_, err := s.Next(context.Background(), 0)
	var lag *Lag
	if !errors.As(err, &lag) || lag.Resume < 8 {
		t.Fatalf("byte bound not applied: %v", err)
	}
}

// A client coming back with a sequence this process never issued (the
// server restarted) must re-read the session.
func TestHubFutureSequenceResets(t *testing.T) {
	h := NewHub(0, 0)
	h.Publish(delta(1))
	s := h.Subscribe(500)
	defer s.Close()
	_, err := s.Next(context.Background(), 0)
	var lag *Lag
	if !errors.As(err, &lag) || lag.Resume != 2 {
		t.Fatalf("want a reset resuming at 2, got %v", err)
	}
	if e := lag.Reset(); e.Since != 500 || e.Resume != 2 || e.Reason == "" {
		t.Errorf("reset event %+v", e)
	}
}

func TestHubNextHonoursContextAndClose(t *testing.T) {
	h := NewHub(0, 0)
	s := h.Subscribe(0)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if _, err := s.Next(ctx, 0); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("Next on an idle hub: %v", err)
	}
	h.Publish(delta(1))
	h.Close()
	if got, err := s.Next(context.Background(), 0); err != nil || len(got) != 1 {
		t.Errorf("events before Close are still read: %v %v", got, err)
	}
	if _, err := s.Next(context.Background(), 0); !errors.Is(err, ErrClosed) {
		t.Errorf("after Close: %v", err)
	}
	if h.Publish(delta(2)) != 0 {
		t.Error("Publish after Close issued a sequence")
	}
}

func BenchmarkHubPublish(b *testing.B) {
	for _, n := range []int{1, 10, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			h := NewHub(0, 0)
			var wg sync.WaitGroup
			ctx, cancel := context.WithCancel(context.Background())
			for range n {
				f := h.Follow(0, func(Entry) error { return nil })
				wg.Go(func() { <-ctx.Done(); _ = f.Stop() })
			}
			ev := protocol.AssistantDelta{Content: "a token"}
			b.ReportAllocs()
			b.ResetTimer()
			for range b.N {
				h.Publish(ev)
			}
			b.StopTimer()
			cancel()
			wg.Wait()
		})
	}
}

// A subscriber that starts after an approval request, while it waits,
// gets it first (Replay, its own sequence); once answered it is not
// repeated.
func TestHubReplaysWaitingApproval(t *testing.T) {
	h := NewHub(0, 0)
	h.Publish(delta(1))
	h.Publish(protocol.ApprovalRequested{ID: "ap-1", ToolName: "shell", Detail: "needs the network"})
	h.Publish(protocol.ApprovalRequested{ID: "ap-2", ToolName: "shell", Detail: "sudo"})
	h.Publish(protocol.ApprovalResolved{ID: "ap-2", Outcome: protocol.ApprovalAllowedOnce})
	h.Publish(delta(5))
	late := h.Subscribe(h.Head())
	defer late.Close()
	got, err := late.Next(context.Background(), 0)
	if err != nil || len(got) != 1 || !got[0].Replay || got[0].Seq != 2 || got[0].Event.(protocol.ApprovalRequested).ID != "ap-1" {
		t.Fatalf("late subscriber got %+v %v, want ap-1 replayed", got, err)
	}
	if late.Cursor() != 6 || late.Pending() {
		t.Errorf("cursor moved to %d by the replay", late.Cursor())
	}
	// From before the request: it comes in order, not repeated.
	for _, e := range readAll(t, h, 1) {
		if e.Replay {
			t.Errorf("replayed %+v to a subscriber that reads it in order", e)
		}
	}
	h.Publish(protocol.ApprovalResolved{ID: "ap-1", Outcome: protocol.ApprovalRejected})
	if got := readAll(t, h, h.Head()); len(got) != 0 {
		t.Errorf("after the answer a new subscriber got %+v", got)
	}
}

// readAll follows h from since until every event published so far was
// handed over, and returns what was.
func readAll(t *testing.T, h *Hub, since int64) []Entry {
	t.Helper()
	var got []Entry
	f := h.Follow(since, func(e Entry) error { got = append(got, e); return nil })
	if err := f.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if err := f.Stop(); err != nil {
		t.Fatal(err)
	}
	return got
}

// A hub's window grows with the events published, up to its bounds, and
// keeps exactly the newest events the bounds allow, in order, whether it
// grew, wrapped or evicted by bytes on the way (checked against a plain
// list after every publish).
func TestHubWindowGrowsWithinItsBounds(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	h := NewHub(0, 0)
	h.Publish(delta(0))
	runtime.ReadMemStats(&after)
	if n := after.TotalAlloc - before.TotalAlloc; n > 16<<10 {
		t.Errorf("a hub with one event allocated %d bytes, want under 16 KB (its window grows as events come)", n)
	}

	const limit, maxBytes = 100, 4000
	h = NewHub(limit, maxBytes)
	type kept struct {
		seq  int64
		size int
	}
	var want []kept
	bytes := 0
	for i := range 400 {
		e := delta(i)
		if i%37 == 0 { // now and then a large one, evicting by bytes
			e = protocol.AssistantDelta{Content: strings.Repeat("x", 1500)}
		}
		seq := h.Publish(e)
		size := len(protocol.Emit(e))
		want, bytes = append(want, kept{seq, size}), bytes+size
		if len(want) > limit {
			bytes -= want[0].size
			want = want[1:]
		}
		for bytes > maxBytes && len(want) > 1 {
			bytes -= want[0].size
			want = want[1:]
		}
		s := h.Subscribe(want[0].seq - 1)
		got, err := s.Next(context.Background(), 0)
		s.Close()
		if err != nil {
			t.Fatalf("after event %d: resuming at the oldest kept event %d: %v", seq, want[0].seq, err)
		}
		if len(got) != len(want) {
			t.Fatalf("after event %d: %d events kept, want %d", seq, len(got), len(want))
		}
		for j, g := range got {
			if g.Seq != want[j].seq || len(g.Line) != want[j].size {
				t.Fatalf("after event %d: entry %d is event %d (%d bytes), want %d (%d bytes)", seq, j, g.Seq, len(g.Line), want[j].seq, want[j].size)
			}
		}
		if want[0].seq > 1 {
			s := h.Subscribe(want[0].seq - 2)
			_, err := s.Next(context.Background(), 0)
			s.Close()
			var lag *Lag
			if !errors.As(err, &lag) || lag.Resume != want[0].seq {
				t.Fatalf("after event %d: resuming before the window: %v, want a lag resuming at %d", seq, err, want[0].seq)
			}
		}
	}
}
