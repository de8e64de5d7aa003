package httpapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	sse "github.com/tmaxmax/go-sse"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/protocol"
)

// Every request needs the token as a Bearer header and a loopback Host
// with the right port; no cookie and no token in a query string is taken.
// A GET of a page without the header gets the shell, which holds no data.
func TestAuthAndHostCheck(t *testing.T) {
	f := start(t, llmtest.NewServer(t), setup{})
	f.newSession(`{"id":"secret-session-name"}`)
	port := f.base[strings.LastIndex(f.base, ":")+1:]
	cases := []struct {
		name   string
		path   string
		header []string
		want   int
	}{
		{"bearer", "/v1/sessions", nil, 200},
		{"no token", "/v1/sessions", []string{"Authorization", ""}, 401},
		{"wrong token", "/v1/sessions", []string{"Authorization", "Bearer nope"}, 401},
		{"not bearer", "/v1/sessions", []string{"Authorization", "Basic " + testToken}, 401},
		{"wrong token page", "/", []string{"Authorization", "Bearer nope"}, 401},
		{"localhost", "/v1/health", []string{"Host", "localhost:" + port}, 200},
		{"ipv6 loopback", "/v1/health", []string{"Host", "[::1]:" + port}, 200},
		{"foreign host", "/v1/health", []string{"Host", "evil.example:" + port}, 403},
		{"foreign host without token", "/v1/health", []string{"Host", "evil.example:" + port, "Authorization", ""}, 403},
		{"foreign host page", "/", []string{"Host", "evil.example:" + port, "Authorization", ""}, 403},
		{"other port", "/v1/health", []string{"Host", "127.0.0.1:1"}, 403},
		{"no port", "/v1/health", []string{"Host", "localhost"}, 403},
		{"cookie", "/v1/sessions", []string{"Authorization", "", "Cookie", legacyCookie + "=" + testToken}, 401},
		{"token in the query", "/v1/sessions?token=" + testToken, []string{"Authorization", ""}, 401},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body, h := f.do("GET", c.path, "", c.header...)
			if code != c.want {
				t.Fatalf("%s = %d %s, want %d", c.path, code, body, c.want)
			}
			if code >= 400 {
				var e errorBody
				if json.Unmarshal([]byte(body), &e) != nil || e.Error == "" {
					t.Errorf("error body is not {\"error\":...}: %s", body)
				}
			}
			if h.Get("Access-Control-Allow-Origin") != "" {
				t.Errorf("a CORS header was sent")
			}
			if h.Get("Referrer-Policy") != "no-referrer" {
				t.Errorf("Referrer-Policy %q", h.Get("Referrer-Policy"))
			}
		})
	}

	// A page opened without the header (a browser's navigation, the
	// token only in the URL's fragment) is the shell: no data, no cookie.
	for _, path := range []string{"/", "/sessions/secret-session-name", "/?token=" + testToken} {
		code, body, h := f.do("GET", path, "", "Authorization", "")
		if code != 200 || !strings.Contains(body, `data-shell="true"`) || strings.Contains(body, "secret-session-name") || strings.Contains(body, f.host.Workspace()) {
			t.Errorf("GET %s without the token = %d %s", path, code, body)
		}
		if h.Get("Set-Cookie") != "" || !strings.Contains(h.Get("Content-Security-Policy"), "frame-ancestors 'none'") {
			t.Errorf("GET %s headers %v", path, h)
		}
	}
	code, body, h := f.do("GET", "/", "")
	if code != 200 || !strings.Contains(body, "secret-session-name") || h.Get("Set-Cookie") != "" {
		t.Errorf("the web app with the token = %d %v %s", code, h, body)
	}
	// A browser that kept the cookie of an earlier version is told to drop it.
	_, _, h = f.do("GET", "/v1/health", "", "Cookie", legacyCookie+"=old")
	if c := h.Get("Set-Cookie"); !strings.HasPrefix(c, legacyCookie+"=;") || !strings.Contains(c, "Max-Age=0") {
		t.Errorf("the old cookie is not deleted: %q", c)
	}
}

// A request that changes something must come from the app's own origin
// (Sec-Fetch-Site, Origin) with a JSON body, token or not: what a page of
// another program on another port of 127.0.0.1 can send (a form, a
// no-cors fetch, both text/plain; a sandboxed frame's Origin: null) is
// refused before any route runs. Clients that are not browsers send
// neither header and pass.
func TestStateChangesOnlyFromTheApp(t *testing.T) {
	model := llmtest.NewServer(t)
	f := start(t, model, setup{})
	port := f.base[strings.LastIndex(f.base, ":")+1:]
	self := "http://127.0.0.1:" + port
	cases := []struct {
		name   string
		header []string
		want   int
	}{
		{"curl", nil, 201},
		{"same origin", []string{"Origin", self, "Sec-Fetch-Site", "same-origin"}, 201},
		{"same origin without fetch metadata", []string{"Origin", self}, 201},
		{"other port", []string{"Origin", "http://127.0.0.1:9999", "Sec-Fetch-Site", "same-site"}, 403},
		{"other port, old browser", []string{"Origin", "http://127.0.0.1:9999"}, 403},
		{"other port claiming same-origin", []string{"Origin", "http://127.0.0.1:9999", "Sec-Fetch-Site", "same-origin"}, 403},
		{"other site", []string{"Origin", "https://evil.example", "Sec-Fetch-Site", "cross-site"}, 403},
		{"cross-site metadata only", []string{"Sec-Fetch-Site", "cross-site"}, 403},
		{"typed in the address bar", []string{"Sec-Fetch-Site", "none"}, 403},
		{"null origin", []string{"Origin", "null"}, 403},
		{"null origin sandboxed", []string{"Origin", "null", "Sec-Fetch-Site", "cross-site"}, 403},
		{"no-cors text/plain", []string{"Content-Type", "text/plain;charset=UTF-8", "Origin", "http://127.0.0.1:9999", "Sec-Fetch-Site", "same-site", "Authorization", ""}, 403},
		{"text/plain form without the token", []string{"Content-Type", "text/plain", "Authorization", ""}, 415},
		{"text/plain with the token", []string{"Content-Type", "text/plain"}, 415},
		{"urlencoded (curl -d)", []string{"Content-Type", "application/x-www-form-urlencoded"}, 415},
		{"multipart", []string{"Content-Type", "multipart/form-data; boundary=x"}, 415},
		{"no content type", []string{"Content-Type", ""}, 415},
		{"json with charset", []string{"Content-Type", "application/json; charset=utf-8"}, 201},
		{"json without the token", []string{"Authorization", ""}, 401},
	}
	for i, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			body := fmt.Sprintf(`{"id":"s%d"}`, i)
			code, out, h := f.do("POST", "/v1/sessions", body, c.header...)
			if code != c.want {
				t.Fatalf("POST = %d %s, want %d", code, out, c.want)
			}
			if _, open := f.host.Get(fmt.Sprintf("s%d", i)); open != (code == 201) {
				t.Errorf("session opened = %v after %d", open, code)
			}
			if h.Get("Access-Control-Allow-Origin") != "" {
				t.Error("a CORS header was sent")
			}
		})
	}
	// The same for a command and for any other method.
	id := f.newSession(`{"id":"target"}`)
	for _, m := range []string{"POST", "PUT", "DELETE", "PATCH"} {
		code, out, _ := f.do(m, "/v1/sessions/"+id+"/commands", `{"command":"prompt","content":"x"}`, "Content-Type", "text/plain")
		if code != 415 {
			t.Errorf("%s text/plain command = %d %s", m, code, out)
		}
		code, out, _ = f.do(m, "/v1/sessions/"+id+"/commands", `{"command":"prompt","content":"x"}`, "Origin", "http://127.0.0.1:1")
		if code != 403 {
			t.Errorf("%s cross-origin command = %d %s", m, code, out)
		}
	}
	if n := len(model.Requests()); n != 0 {
		t.Errorf("the model got %d requests", n)
	}
}

// A non-loopback address needs --http-allow-remote.
func TestListenLoopbackOnly(t *testing.T) {
	for _, c := range []struct {
		addr   string
		remote bool
		ok     bool
	}{
		{"127.0.0.1:0", false, true},
		{"localhost:0", false, true},
		{"[::1]:0", false, true},
		{"0.0.0.0:0", false, false},
		{":0", false, false},
		{"192.0.2.1:0", false, false},
		{"0.0.0.0:0", true, true},
		{"no-port", false, false},
	} {
		ln, err := Listen(c.addr, c.remote)
		if ln != nil {
			ln.Close()
		}
		if (err == nil) != c.ok {
			if strings.Contains(fmt.Sprint(err), "cannot assign") {
				continue // no IPv6 loopback here
			}
			t.Errorf("Listen(%q, %v) = %v, want ok=%v", c.addr, c.remote, err, c.ok)
		}
		if !c.ok && err != nil && !strings.Contains(err.Error(), "--http-allow-remote") && c.addr != "no-port" {
			t.Errorf("the refusal does not say how to allow it: %v", err)
		}
	}
}

// Bad input gets a 4xx with the reason, and the server keeps serving.
func TestBadInputKeepsServing(t *testing.T) {
	f := start(t, llmtest.NewServer(t, llmtest.Text("still here")), setup{})
	id := f.newSession(`{"id":"bad-input"}`)
	big := `{"command":"prompt","content":"` + strings.Repeat("x", MaxBody) + `"}`
	cases := []struct {
		name, method, path, body string
		want                     int
		says                     string
	}{
		{"bad json", "POST", "/v1/sessions/" + id + "/commands", `{"command":`, 400, `expected a {"command": ...} object`},
		{"not json", "POST", "/v1/sessions/" + id + "/commands", `not json`, 400, `expected a {"command": ...} object`},
		{"unknown command", "POST", "/v1/sessions/" + id + "/commands", `{"command":"reboot"}`, 400, "unknown command: reboot"},
		{"too large", "POST", "/v1/sessions/" + id + "/commands", big, 413, "16 MiB"},
		{"blank goal", "POST", "/v1/sessions/" + id + "/commands", `{"command":"goal","action":"set","text":"  "}`, 409, "blank"},
		{"unknown approval", "POST", "/v1/sessions/" + id + "/commands", `{"command":"approval","id":"ap-9","allow":true}`, 409, "ap-9"},
		{"unknown session command", "POST", "/v1/sessions/nope/commands", `{"command":"cancel"}`, 404, "no session"},
		{"unknown session show", "GET", "/v1/sessions/nope", "", 404, "no session"},
		{"unknown session events", "GET", "/v1/sessions/nope/events", "", 404, "no session"},
		{"invalid id", "GET", "/v1/sessions/..%2f..", "", 404, "session"},
		{"bad create body", "POST", "/v1/sessions", `{"id":`, 400, "body must be"},
		{"unknown create key", "POST", "/v1/sessions", `{"name":"x"}`, 400, "unknown field"},
		{"bad create id", "POST", "/v1/sessions", `{"id":"../x"}`, 400, "id"},
		{"bad since", "GET", "/v1/sessions/" + id + "/events?since=abc", "", 400, "since"},
		{"unknown route", "GET", "/v1/nothing", "", 404, "no API route GET /v1/nothing; see the routes in docs/web.md#http-api"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			code, body, _ := f.do(c.method, c.path, c.body)
			var e errorBody
			json.Unmarshal([]byte(body), &e)
			if code != c.want || !strings.Contains(e.Error, c.says) {
				t.Errorf("%s %s = %d %.200s, want %d saying %q", c.method, c.path, code, body, c.want, c.says)
			}
		})
	}
	s := f.subscribe(id, "?since="+strconv.FormatInt(f.head(id), 10), "")
	f.command(id, `{"command":"prompt","content":"are you there?"}`)
	evs := s.until(t, named("turn_summary"))
	if !hasAnswer(evs, "still here") {
		t.Errorf("the turn after bad input did not answer: %v", types(evs))
	}
}

func (f *fixture) head(id string) int64 {
	s, ok := f.host.Get(id)
	if !ok {
		f.t.Fatalf("session %s is not open", id)
	}
	return s.Hub().Head()
}

func hasAnswer(evs []sse.Event, answer string) bool {
	for _, e := range evs {
		if e.Type == "agent_finished" {
			ev, ok := protocol.ParseEvent([]byte(e.Data))
			return ok && ev.(protocol.AgentFinished).Answer == answer
		}
	}
	return false
}

func types(evs []sse.Event) []string {
	var out []string
	for _, e := range evs {
		out = append(out, e.Type)
	}
	return out
}

// 200 clients watching one session during a turn all see the same
// stream: the same ids, names and lines, in order, ids increasing.
func TestManySubscribersSeeOneStream(t *testing.T) {
	const n = 200
	f := start(t, llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"echo hi"}`}),
		llmtest.Reply{Text: strings.Repeat("many clients, one stream. ", 8), ChunkSize: 4}), setup{})
	id := f.newSession("")
	head := f.head(id)
	streams := make([]*sseClient, n)
	for i := range streams {
		streams[i] = f.subscribe(id, "?since="+strconv.FormatInt(head, 10), "")
	}
	sess, _ := f.host.Get(id)
	waitFor(t, "every subscriber", func() bool { return sess.Hub().Subscribers() == n })
	f.command(id, `{"command":"prompt","content":"go"}`)
	got := make([][]sse.Event, n)
	var wg sync.WaitGroup
	for i, s := range streams {
		wg.Go(func() { got[i] = s.until(t, named("turn_summary")) })
	}
	wg.Wait()
	want := got[0]
	if len(want) < 20 || !hasAnswer(want, strings.Repeat("many clients, one stream. ", 8)) {
		t.Fatalf("the stream is too short or lacks the answer: %v", types(want))
	}
	for i, e := range want {
		if e.LastEventID != strconv.FormatInt(head+int64(i)+1, 10) {
			t.Fatalf("event %d has id %s, want %d", i, e.LastEventID, head+int64(i)+1)
		}
		ev, ok := protocol.ParseEvent([]byte(e.Data))
		if !ok || ev.EventName() != e.Type {
			t.Fatalf("event %d: data %s is not a %s event", i, e.Data, e.Type)
		}
	}
	for c := 1; c < n; c++ {
		if len(got[c]) != len(want) {
			t.Fatalf("client %d saw %d events, client 0 saw %d", c, len(got[c]), len(want))
		}
		for i := range want {
			if got[c][i] != want[i] {
				t.Fatalf("client %d event %d = %+v, client 0 saw %+v", c, i, got[c][i], want[i])
			}
		}
	}
}

// A client that leaves mid-turn loses nothing: it comes back with
// Last-Event-ID (or ?since=) and gets exactly the events it missed.
func TestReconnectReplaysExactlyOnce(t *testing.T) {
	for _, how := range []string{"Last-Event-ID", "since"} {
		t.Run(how, func(t *testing.T) {
			f := start(t, llmtest.NewServer(t,
				llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"touch gated"}`}),
				llmtest.Text("after the gate")), setup{opts: func(o *engine.Options) { o.Approval = "ask" }})
			id := f.newSession(`{"id":"rejoin"}`)
			full := f.subscribe(id, "", "")
			leaver := f.subscribe(id, "", "")
			f.command(id, `{"command":"prompt","content":"go"}`)
			// The turn waits for an approval: the leaver goes away there.
			first := leaver.until(t, named("approval_requested"))
			leaver.Close()
			var req protocol.ApprovalRequested
			ev, _ := protocol.ParseEvent([]byte(first[len(first)-1].Data))
			req = ev.(protocol.ApprovalRequested)
			f.command(id, `{"command":"approval","id":"`+req.ID+`","allow":true}`)
			all := full.until(t, named("turn_summary"))
			sess, _ := f.host.Get(id)
			sess.Drain()

			last := first[len(first)-1].LastEventID
			var back *sseClient
			if how == "since" {
				back = f.subscribe(id, "?since="+last, "")
			} else {
				back = f.subscribe(id, "", last)
			}
			rest := back.until(t, named("turn_summary"))
			joined := append(append([]sse.Event{}, first...), rest...)
			if len(joined) != len(all) {
				t.Fatalf("rejoined client saw %d events, a steady one %d:\n%v\n%v", len(joined), len(all), types(joined), types(all))
			}
			for i := range all {
				if joined[i] != all[i] {
					t.Fatalf("event %d differs: %+v vs %+v", i, joined[i], all[i])
				}
			}
			if !hasAnswer(rest, "after the gate") {
				t.Errorf("the rest of the turn is missing: %v", types(rest))
			}
		})
	}
}

// A client asking for events this server never had (it restarted) is
// told to re-read the session: stream_reset without an id, then the
// stream goes on.
func TestStreamResetForUnknownPosition(t *testing.T) {
	f := start(t, llmtest.NewServer(t, llmtest.Text("fresh")), setup{})
	id := f.newSession("")
	s := f.subscribe(id, "", "99999")
	f.command(id, `{"command":"prompt","content":"go"}`)
	evs := s.until(t, named("turn_summary"))
	if evs[0].Type != "stream_reset" || evs[0].LastEventID != "" {
		t.Fatalf("first event = %+v, want a stream_reset without id", evs[0])
	}
	ev, ok := protocol.ParseEvent([]byte(evs[0].Data))
	if r, _ := ev.(protocol.StreamReset); !ok || r.Since != 99999 || r.Resume < 1 || r.Reason == "" {
		t.Errorf("stream_reset = %s", evs[0].Data)
	}
	if !hasAnswer(evs, "fresh") {
		t.Errorf("the stream did not go on after the reset: %v", types(evs))
	}
}

// Two clients answer one approval: the first wins, the second gets 409.
func TestApprovalFirstAnswerWins(t *testing.T) {
	f := start(t, llmtest.NewServer(t,
		llmtest.Calls(llmtest.Call{ID: "a", Name: "shell", Args: `{"cmd":"touch x"}`}),
		llmtest.Text("done")), setup{opts: func(o *engine.Options) { o.Approval = "ask" }})
	id := f.newSession("")
	s := f.subscribe(id, "", "")
	f.command(id, `{"command":"prompt","content":"go"}`)
	evs := s.until(t, named("approval_requested"))
	ev, _ := protocol.ParseEvent([]byte(evs[len(evs)-1].Data))
	apID := ev.(protocol.ApprovalRequested).ID
	line := `{"command":"approval","id":"` + apID + `","allow":%v}`
	codes := make([]int, 2)
	bodies := make([]string, 2)
	var wg sync.WaitGroup
	for i := range codes {
		wg.Go(func() {
			codes[i], bodies[i], _ = f.do("POST", "/v1/sessions/"+id+"/commands", fmt.Sprintf(line, i == 0))
		})
	}
	wg.Wait()
	ok, refused := 0, 0
	for i, c := range codes {
		switch c {
		case http.StatusAccepted:
			ok++
		case http.StatusConflict:
			refused++
			if !strings.Contains(bodies[i], apID) && !strings.Contains(bodies[i], "answered") {
				t.Errorf("the refusal does not say why: %s", bodies[i])
			}
		}
	}
	if ok != 1 || refused != 1 {
		t.Fatalf("answers = %v %v, want one 202 and one 409", codes, bodies)
	}
	rest := s.until(t, named("turn_summary"))
	n := 0
	for _, e := range rest {
		if e.Type == "approval_resolved" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("approval_resolved %d times: %v", n, types(rest))
	}
}

// The list, snapshot, models and health routes answer as the CLI does.
func TestReadRoutes(t *testing.T) {
	f := start(t, llmtest.NewServer(t, llmtest.Text("noted")), setup{})
	id := f.newSession(`{"id":"reads"}`)
	s := f.subscribe(id, "", "")
	f.command(id, `{"command":"prompt","content":"remember this"}`)
	s.until(t, named("turn_summary"))

	code, body, _ := f.do("GET", "/v1/sessions", "")
	var rows []engine.SessionInfo
	if code != 200 || json.Unmarshal([]byte(body), &rows) != nil || len(rows) != 1 || rows[0].ID != id || !rows[0].Open || rows[0].Title == nil {
		t.Errorf("GET /v1/sessions = %d %s", code, body)
	}
	code, body, h := f.do("GET", "/v1/sessions/"+id, "")
	snap, _ := f.host.LoadSession(id)
	if code != 200 || strings.TrimSpace(body) != string(snap.MarshalSnapshot()) {
		t.Errorf("GET /v1/sessions/%s = %d\n%s\nwant\n%s", id, code, body, snap.MarshalSnapshot())
	}
	if h.Get(LastEventHeader) != strconv.FormatInt(f.head(id), 10) {
		t.Errorf("%s = %q, want %d", LastEventHeader, h.Get(LastEventHeader), f.head(id))
	}
	code, body, _ = f.do("GET", "/v1/health", "")
	if code != 200 || !strings.Contains(body, `"ok":true`) || !strings.Contains(body, f.host.Workspace()) {
		t.Errorf("health = %d %s", code, body)
	}
	code, body, _ = f.do("GET", "/v1/models", "")
	var models []modelRow
	if code != 200 || json.Unmarshal([]byte(body), &models) != nil || len(models) == 0 || models[0].Spec == "" {
		t.Errorf("models = %d %s", code, body)
	}
}

// A session on disk that is not open is resumed by its first command,
// never by a GET.
func TestCommandResumesASessionOnDisk(t *testing.T) {
	dir := t.TempDir()
	model := llmtest.NewServer(t, llmtest.Text("first"), llmtest.Text("second"))
	f := start(t, model, setup{dir: dir})
	id := f.newSession(`{"id":"again"}`)
	s := f.subscribe(id, "", "")
	f.command(id, `{"command":"prompt","content":"one"}`)
	s.until(t, named("turn_summary"))
	sess, _ := f.host.Get(id)
	s.Close()
	sess.Close()
	if _, open := f.host.Get(id); open {
		t.Fatal("the session is still open")
	}
	// Reading changes nothing: its stream is refused, it stays closed.
	if code, body, _ := f.do("GET", "/v1/sessions/"+id+"/events", ""); code != http.StatusConflict || !strings.Contains(body, "POST /v1/sessions") {
		t.Errorf("events of a closed session = %d %s", code, body)
	}
	if _, open := f.host.Get(id); open {
		t.Fatal("a GET opened the session")
	}
	f.command(id, `{"command":"prompt","content":"two"}`)
	back := f.subscribe(id, "", "")
	evs := back.until(t, named("turn_summary"))
	if !hasAnswer(evs, "second") {
		t.Errorf("resumed session did not answer: %v", types(evs))
	}
	snap, _ := f.host.LoadSession(id)
	if n := len(snap.Events); n < 4 {
		t.Errorf("the resumed session has %d events", n)
	}
}

// The read-only server (inspect) reads sessions from disk, refuses every
// change and opens nothing.
func TestReadOnlyServer(t *testing.T) {
	dir := t.TempDir()
	f := start(t, llmtest.NewServer(t, llmtest.Text("logged")), setup{dir: dir})
	id := f.newSession(`{"id":"logged"}`)
	s := f.subscribe(id, "", "")
	f.command(id, `{"command":"prompt","content":"log me"}`)
	s.until(t, named("turn_summary"))

	ro := start(t, nil, setup{dir: dir, readOnly: true})
	for _, c := range []struct {
		method, path, body string
		want               int
	}{
		{"POST", "/v1/sessions", `{}`, 405},
		{"POST", "/v1/sessions/" + id + "/commands", `{"command":"cancel"}`, 405},
		{"GET", "/v1/sessions/" + id + "/events", "", 204},
		{"GET", "/v1/sessions/nope/events", "", 404},
		{"GET", "/v1/sessions/nope", "", 404},
		{"GET", "/v1/sessions", "", 200},
	} {
		if code, body, _ := ro.do(c.method, c.path, c.body); code != c.want {
			t.Errorf("read-only %s %s = %d %s, want %d", c.method, c.path, code, body, c.want)
		}
	}
	code, body, h := ro.do("GET", "/v1/sessions/"+id, "")
	snap, _ := f.host.LoadSession(id)
	if code != 200 || strings.TrimSpace(body) != string(snap.MarshalSnapshot()) || h.Get(LastEventHeader) != "0" {
		t.Errorf("read-only snapshot = %d %s %v", code, body, h)
	}
	if _, open := ro.host.Get(id); open {
		t.Error("the read-only server opened a session")
	}
}

// Shutting down ends every stream; the server's goroutines end with it
// (goleak checks the rest).
func TestShutdownEndsStreams(t *testing.T) {
	f := start(t, llmtest.NewServer(t), setup{})
	id := f.newSession("")
	s := f.subscribe(id, "", "")
	s.until(t, named("session_started"))
	f.srv.Close()
	for {
		_, err, ok := s.next()
		if !ok || err != nil {
			break
		}
	}
}

// The token comes from the environment, else is generated once and kept
// private.
func TestLoadToken(t *testing.T) {
	home := t.TempDir()
	env := func(v string) func(string) string { return func(string) string { return v } }
	if tok, err := LoadToken(env("from-env"), home); err != nil || tok != "from-env" {
		t.Errorf("env token = %q %v", tok, err)
	}
	tok, err := LoadToken(env(""), home)
	if err != nil || len(tok) != 64 {
		t.Fatalf("generated token = %q %v", tok, err)
	}
	again, err := LoadToken(env(""), home)
	if err != nil || again != tok {
		t.Errorf("second load = %q %v, want the kept %q", again, err, tok)
	}
	st, err := os.Stat(TokenPath(home))
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Errorf("token file mode = %v %v", st.Mode(), err)
	}
	if dst, err := os.Stat(filepath.Dir(TokenPath(home))); err != nil || dst.Mode().Perm() != 0o700 {
		t.Errorf("token dir mode = %v %v", dst.Mode(), err)
	}
	other, _ := LoadToken(env(""), t.TempDir())
	if other == tok {
		t.Error("two homes got the same token")
	}
}

// An idle stream gets a keep-alive comment, which EventSource ignores.
func TestIdleStreamPings(t *testing.T) {
	f := start(t, llmtest.NewServer(t), setup{keepAlive: 10 * time.Millisecond})
	id := f.newSession("")
	s := f.subscribe(id, "?since="+strconv.FormatInt(f.head(id), 10), "")
	r := bufio.NewReader(s.resp.Body)
	line, err := r.ReadString('\n')
	if err != nil || line != ": ping\n" {
		t.Fatalf("first line of an idle stream = %q %v, want a ping comment", line, err)
	}
}
