// Command llmscript serves a scripted model for benchmarks: -steps tool
// calls (a cheap shell command each), then a final answer, for each of
// -runs runs in turn. It writes its chat-completions URL to -url-file and
// serves until killed.
//
// With -arrivals it appends the wall-clock arrival time of every request
// (Unix nanoseconds, one a line) to that file as soon as the request's
// headers are read, before the scripted server sees it: a benchmark that
// notes the time before it starts the agent measures start-up to the
// first model request.
package main

import (
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

func main() {
	steps := flag.Int("steps", 20, "model requests per run: tool-call steps, the last a final answer")
	runs := flag.Int("runs", 1, "runs to script, one after the other (each a new conversation)")
	urlFile := flag.String("url-file", "", "where to write the server URL")
	arrivals := flag.String("arrivals", "", "append each request's arrival time (Unix ns) to this file")
	flag.Parse()
	if *urlFile == "" || *steps < 1 || *runs < 1 {
		fmt.Fprintln(os.Stderr, "llmscript: -url-file is required; -steps and -runs must be ≥ 1")
		os.Exit(2)
	}
	var turns []llmtest.Turn
	for r := 0; r < *runs; r++ {
		for i := 1; i < *steps; i++ {
			turns = append(turns, llmtest.Calls(llmtest.Call{ID: fmt.Sprintf("c%d", i), Name: "shell", Args: fmt.Sprintf(`{"cmd":"echo step %d"}`, i)}))
		}
		turns = append(turns, llmtest.Text("done"))
	}
	srv := llmtest.NewServer(nopTB{}, turns...)
	if *runs > 1 {
		srv.MultiConversation()
	}
	u := srv.URL()
	if *arrivals != "" {
		var err error
		if u, err = stampArrivals(u, *arrivals); err != nil {
			fmt.Fprintln(os.Stderr, "llmscript:", err)
			os.Exit(1)
		}
	}
	if err := os.WriteFile(*urlFile, []byte(u), 0o644); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	select {}
}

// stampArrivals serves a front for the scripted server at target that
// notes each request's arrival in path and passes it on, streaming the
// answer unbuffered. It returns the front's URL for the same endpoint.
func stampArrivals(target, path string) (string, error) {
	t, err := url.Parse(target)
	if err != nil {
		return "", err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o644)
	if err != nil {
		return "", err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	proxy := httputil.NewSingleHostReverseProxy(&url.URL{Scheme: t.Scheme, Host: t.Host})
	proxy.FlushInterval = -1 // an event stream: flush every write
	// A client that hangs up once it has its answer is no news.
	proxy.ErrorLog = log.New(io.Discard, "", 0)
	var mu sync.Mutex
	go func() {
		_ = http.Serve(ln, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			now := time.Now().UnixNano()
			mu.Lock()
			_, _ = f.WriteString(strconv.FormatInt(now, 10) + "\n")
			mu.Unlock()
			proxy.ServeHTTP(w, r)
		}))
	}()
	front := *t
	front.Host = ln.Addr().String()
	return front.String(), nil
}

// nopTB satisfies testing.TB for a server that lives outside a test.
type nopTB struct{ testing.TB }

func (nopTB) Helper()                           {}
func (nopTB) Cleanup(func())                    {}
func (nopTB) Errorf(format string, args ...any) { fmt.Fprintf(os.Stderr, format+"\n", args...) }
func (nopTB) Fatalf(format string, args ...any) {
	fmt.Fprintf(os.Stderr, format+"\n", args...)
	os.Exit(1)
}
func (nopTB) Logf(format string, args ...any) {}
func (nopTB) Name() string                    { return "llmscript" }
