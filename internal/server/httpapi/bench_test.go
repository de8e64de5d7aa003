package httpapi

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"net/http"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	sse "github.com/tmaxmax/go-sse"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// benchServer is a served host with one open session.
func benchServer(b *testing.B, model *llmtest.Server) (*engine.Host, *engine.Session, string, *http.Client) {
	b.Helper()
	host, err := engine.NewHost(context.Background(), engine.Options{
		Dir: b.TempDir(), Home: b.TempDir(), NoSandbox: true, Model: "test-model", APIURL: model.URL(),
		Retry:  llm.RetryPolicy{Attempts: 1},
		Getenv: func(string) string { return "" },
	})
	if err != nil {
		b.Fatal(err)
	}
	sess, err := host.Open(context.Background(), engine.OpenOptions{ID: "bench"})
	if err != nil {
		b.Fatal(err)
	}
	ln, err := Listen("127.0.0.1:0", false)
	if err != nil {
		b.Fatal(err)
	}
	srv := New(host, Options{Token: testToken})
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- srv.Serve(ctx, ln) }()
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 2048}}
	b.Cleanup(func() {
		cancel()
		<-served
		host.Close()
		client.CloseIdleConnections()
	})
	return host, sess, "http://" + ln.Addr().String(), client
}

// follow opens an SSE stream and records the newest id it read in last.
func follow(b *testing.B, client *http.Client, base string, since int64, last *atomic.Int64, resets *atomic.Int64) context.CancelFunc {
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/sessions/bench/events?since="+strconv.FormatInt(since, 10), nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		defer resp.Body.Close()
		for ev, err := range sse.Read(resp.Body, nil) {
			if err != nil {
				return
			}
			if ev.Type == "stream_reset" {
				resets.Add(1)
				continue
			}
			n, _ := strconv.ParseInt(ev.LastEventID, 10, 64)
			last.Store(n)
		}
	}()
	return cancel
}

// BenchmarkFanOut is events per second through one session to 1, 10 and
// 1,000 SSE subscribers over loopback HTTP. Events are published in
// rounds of 512 and every subscriber reads each round before the next,
// so no one falls out of the window: this is lossless throughput.
func BenchmarkFanOut(b *testing.B) {
	for _, n := range []int{1, 10, 1000} {
		b.Run(fmt.Sprintf("subscribers=%d", n), func(b *testing.B) {
			_, sess, base, client := benchServer(b, llmtest.NewServer(b))
			lasts := make([]atomic.Int64, n)
			var resets atomic.Int64
			head := sess.Hub().Head()
			for i := range lasts {
				defer follow(b, client, base, head, &lasts[i], &resets)()
			}
			for sess.Hub().Subscribers() < n {
				time.Sleep(time.Millisecond)
			}
			ev := protocol.AssistantDelta{Content: strings.Repeat("x", 64)}
			b.ResetTimer()
			start := time.Now()
			for done := 0; done < b.N; {
				round := min(512, b.N-done)
				var seq int64
				for range round {
					seq = sess.Publish(ev)
				}
				done += round
				for i := range lasts {
					for lasts[i].Load() < seq {
						time.Sleep(20 * time.Microsecond)
					}
				}
			}
			el := time.Since(start).Seconds()
			b.ReportMetric(float64(b.N)/el, "events/s")
			b.ReportMetric(float64(b.N)*float64(n)/el, "deliveries/s")
			if resets.Load() > 0 {
				b.Errorf("%d subscribers fell behind", resets.Load())
			}
		})
	}
}

// BenchmarkIdleSubscriber is the server-side memory of one idle SSE
// subscriber (its connection, handler goroutine, hub cursor and timer);
// the clients are bare TCP connections that cost no goroutine.
func BenchmarkIdleSubscriber(b *testing.B) {
	const n = 1000
	_, sess, base, _ := benchServer(b, llmtest.NewServer(b))
	addr := strings.TrimPrefix(base, "http://")
	for range b.N {
		runtime.GC()
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		conns := make([]net.Conn, n)
		for i := range conns {
			c, err := net.Dial("tcp", addr)
			if err != nil {
				b.Fatal(err)
			}
			fmt.Fprintf(c, "GET /v1/sessions/bench/events?since=%d HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", sess.Hub().Head(), addr, testToken)
			if line, err := bufio.NewReader(c).ReadString('\n'); err != nil || !strings.Contains(line, "200") {
				b.Fatalf("subscribe: %q %v", line, err)
			}
			conns[i] = c
		}
		for sess.Hub().Subscribers() < n {
			time.Sleep(time.Millisecond)
		}
		runtime.GC()
		runtime.ReadMemStats(&after)
		used := (after.HeapInuse + after.StackInuse) - (before.HeapInuse + before.StackInuse)
		b.ReportMetric(float64(used)/n, "bytes/subscriber")
		for _, c := range conns {
			c.Close()
		}
		for sess.Hub().Subscribers() > 0 {
			time.Sleep(time.Millisecond)
		}
	}
}

// BenchmarkPromptToFirstEvent is the time from POSTing a prompt to the
// first SSE event of its turn reaching a subscriber.
func BenchmarkPromptToFirstEvent(b *testing.B) {
	turns := make([]llmtest.Turn, b.N)
	for i := range turns {
		turns[i] = llmtest.Text("ok")
	}
	_, sess, base, client := benchServer(b, llmtest.NewServer(b, turns...))
	var mu sync.Mutex
	cond := sync.NewCond(&mu)
	var firsts, ends int
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", base+"/v1/sessions/bench/events?since="+strconv.FormatInt(sess.Hub().Head(), 10), nil)
	req.Header.Set("Authorization", "Bearer "+testToken)
	resp, err := client.Do(req)
	if err != nil {
		b.Fatal(err)
	}
	go func() {
		defer resp.Body.Close()
		inTurn := false
		for ev, err := range sse.Read(resp.Body, nil) {
			if err != nil {
				return
			}
			mu.Lock()
			if !inTurn {
				inTurn = true
				firsts++
			}
			if ev.Type == "turn_summary" {
				inTurn = false
				ends++
			}
			cond.Broadcast()
			mu.Unlock()
		}
	}()
	var total time.Duration
	b.ResetTimer()
	for i := range b.N {
		start := time.Now()
		r, _ := http.NewRequest("POST", base+"/v1/sessions/bench/commands", strings.NewReader(`{"command":"prompt","content":"hi"}`))
		r.Header.Set("Authorization", "Bearer "+testToken)
		r.Header.Set("Content-Type", "application/json")
		pr, err := client.Do(r)
		if err != nil || pr.StatusCode != http.StatusAccepted {
			b.Fatalf("prompt: %v %v", err, pr)
		}
		pr.Body.Close()
		mu.Lock()
		for firsts <= i {
			cond.Wait()
		}
		total += time.Since(start)
		for ends <= i {
			cond.Wait()
		}
		mu.Unlock()
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/first-event")
}

// BenchmarkApplyToFirstEvent is the same time without HTTP (Apply and an
// in-process subscription): the engine's share of the figure above.
func BenchmarkApplyToFirstEvent(b *testing.B) {
	turns := make([]llmtest.Turn, b.N)
	for i := range turns {
		turns[i] = llmtest.Text("ok")
	}
	_, sess, _, _ := benchServer(b, llmtest.NewServer(b, turns...))
	sub := sess.Subscribe(sess.Hub().Head())
	defer sub.Close()
	var total time.Duration
	b.ResetTimer()
	for range b.N {
		start := time.Now()
		if err := sess.Apply(protocol.PromptCmd{Content: protocol.Text("hi")}); err != nil {
			b.Fatal(err)
		}
		batch, err := sub.Next(context.Background(), 1)
		if err != nil {
			b.Fatal(err)
		}
		total += time.Since(start)
		for done := batch[0].Event.EventName() == "turn_summary"; !done; {
			batch, err = sub.Next(context.Background(), 0)
			if err != nil {
				b.Fatal(err)
			}
			for _, e := range batch {
				done = done || e.Event.EventName() == "turn_summary"
			}
		}
	}
	b.ReportMetric(float64(total.Microseconds())/float64(b.N), "µs/first-event")
}
