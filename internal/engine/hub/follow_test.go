package hub

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/openseek/openseek/protocol"
)

// Followers started while events are being published, each from the head
// it read, get every later event exactly once and in order: the events
// published between reading the head and subscribing come from the
// window (history), the rest live, with nothing lost or repeated at the
// seam. WaitFor returns once the last one was handed over.
func TestFollowSeamHistoryLive(t *testing.T) {
	const events, followers = 5000, 40
	h := NewHub(2*events, 64<<20)
	type follower struct {
		since int64
		f     *Follower
		mu    sync.Mutex
		seqs  []int64
	}
	var (
		mu  sync.Mutex
		all []*follower
		wg  sync.WaitGroup
	)
	published := make(chan struct{})
	wg.Go(func() {
		defer close(published)
		for i := 1; i <= events; i++ {
			h.Publish(delta(i))
		}
	})
	for i := range followers {
		wg.Go(func() {
			fl := &follower{since: h.Head()}
			if i%4 == 0 {
				fl.since = 0 // the whole window
			}
			fl.f = h.Follow(fl.since, func(e Entry) error {
				fl.mu.Lock()
				defer fl.mu.Unlock()
				fl.seqs = append(fl.seqs, e.Seq)
				return nil
			})
			mu.Lock()
			all = append(all, fl)
			mu.Unlock()
		})
	}
	wg.Wait()
	<-published
	head := h.Head()
	if head != events {
		t.Fatalf("head %d, want %d", head, events)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for _, fl := range all {
		if err := fl.f.WaitFor(ctx, head); err != nil {
			t.Fatalf("follower from %d: %v", fl.since, err)
		}
		if err := fl.f.Stop(); err != nil {
			t.Fatal(err)
		}
		fl.mu.Lock()
		if got, want := int64(len(fl.seqs)), head-fl.since; got != want {
			t.Errorf("follower from %d got %d events, want %d", fl.since, got, want)
		}
		for j, seq := range fl.seqs {
			if seq != fl.since+1+int64(j) {
				t.Errorf("follower from %d: event %d has sequence %d, want %d", fl.since, j, seq, fl.since+1+int64(j))
				break
			}
		}
		fl.mu.Unlock()
	}
}

// A follower whose function blocks never stalls the publisher: the
// events it could not take while blocked leave the window, and once it
// goes on it gets a stream_reset and the events still held; WaitFor the
// newest then returns.
func TestFollowSlowNeverStallsPublisher(t *testing.T) {
	h := NewHub(8, 0)
	entered, release := make(chan struct{}), make(chan struct{})
	var got []Entry
	f := h.Follow(0, func(e Entry) error {
		got = append(got, e)
		if len(got) == 1 {
			close(entered)
			<-release
		}
		return nil
	})
	defer f.Stop()
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free() // before Stop, which waits for fn
	h.Publish(delta(1))
	<-entered
	for i := 2; i <= 100; i++ {
		h.Publish(delta(i)) // the follower is blocked: must not wait for it
	}
	done, cancel := context.WithCancel(context.Background())
	cancel()
	if err := f.WaitFor(done, 100); !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitFor while the follower is blocked: %v, want context.Canceled", err)
	}
	free()
	if err := f.WaitFor(context.Background(), 100); err != nil {
		t.Fatal(err)
	}
	if len(got) != 10 || got[0].Seq != 1 || got[2].Seq != 93 || got[9].Seq != 100 {
		t.Fatalf("got %d entries %v, want 1, a reset, 93..100", len(got), seqs(got))
	}
	reset, ok := got[1].Event.(protocol.StreamReset)
	if !ok || got[1].Seq != 0 || reset.Since != 1 || reset.Resume != 93 {
		t.Errorf("second entry %+v, want a stream_reset since 1 resuming at 93", got[1])
	}
}

func seqs(es []Entry) []int64 {
	out := make([]int64, len(es))
	for i, e := range es {
		out[i] = e.Seq
	}
	return out
}

// WaitFor honours its context and forgets the waiter; Stop ends an idle
// follower at once; a closed hub ends the follower once everything was
// handed over; fn's error ends it and is what WaitFor and Wait report.
func TestFollowCancelStopAndEnd(t *testing.T) {
	h := NewHub(0, 0)
	f := h.Follow(0, func(Entry) error { return nil })
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := f.WaitFor(ctx, 1); !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("WaitFor an event never published: %v", err)
	}
	f.mu.Lock()
	left := len(f.waiters)
	f.mu.Unlock()
	if left != 0 {
		t.Errorf("%d waiters left after their context ended", left)
	}
	if err := f.Stop(); err != nil {
		t.Errorf("Stop: %v", err)
	}
	if err := f.WaitFor(context.Background(), 1); !errors.Is(err, ErrClosed) {
		t.Errorf("WaitFor after Stop: %v, want ErrClosed", err)
	}
	if n := h.Subscribers(); n != 0 {
		t.Errorf("%d subscriptions left after Stop", n)
	}

	var n int
	drained := h.Follow(0, func(Entry) error { n++; return nil })
	h.Publish(delta(1))
	h.Publish(delta(2))
	boom := errors.New("client gone")
	failing := h.Follow(0, func(e Entry) error {
		if e.Seq == 2 {
			return boom
		}
		return nil
	})
	if err := failing.WaitFor(context.Background(), 3); !errors.Is(err, boom) {
		t.Errorf("WaitFor past fn's failure: %v", err)
	}
	if err := failing.Wait(); !errors.Is(err, boom) {
		t.Errorf("Wait after fn failed: %v", err)
	}
	h.Close()
	if err := drained.Wait(); err != nil || n != 2 {
		t.Errorf("after Close: %v, %d events handed over, want 2", err, n)
	}
}

// A follower started after an approval request that still waits is not
// caught up before the request was handed over again.
func TestFollowCatchUpIncludesReplay(t *testing.T) {
	h := NewHub(0, 0)
	h.Publish(protocol.ApprovalRequested{ID: "ap-1", ToolName: "shell", Detail: "sudo"})
	h.Publish(delta(2))
	release := make(chan struct{})
	var got []Entry
	f := h.Follow(h.Head(), func(e Entry) error {
		<-release
		got = append(got, e)
		return nil
	})
	defer f.Stop()
	var once sync.Once
	free := func() { once.Do(func() { close(release) }) }
	defer free() // before Stop, which waits for fn
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	if err := f.CatchUp(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("caught up before the waiting approval was handed over: %v", err)
	}
	free()
	if err := f.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if len(got) != 1 || !got[0].Replay || got[0].Seq != 1 {
		t.Errorf("got %+v, want ap-1 replayed", got)
	}
	h.Publish(delta(3))
	if err := f.CatchUp(context.Background()); err != nil || len(got) != 2 || got[1].Seq != 3 {
		t.Errorf("after a live event: %v %v", err, seqs(got))
	}
}

func ExampleHub_Follow() {
	h := NewHub(0, 0)
	f := h.Follow(h.Head(), func(e Entry) error {
		fmt.Println(e.Seq, e.Event.EventName())
		return nil
	})
	h.Publish(protocol.AssistantDelta{Content: "hi"})
	_ = f.CatchUp(context.Background()) // the turn's last event reached the client
	_ = f.Stop()
	// Output: 1 assistant_delta
}
