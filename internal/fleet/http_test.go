package fleet

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
)

func TestHTTPRoutes(t *testing.T) {
	srv := llmtest.NewServer(t, llmtest.Text("all done"))
	srv.MultiConversation()
	cfg := Config{Dir: t.TempDir(), AckWait: 5 * time.Second}
	c := connect(t, cfg)
	mux := http.NewServeMux()
	c.Routes(mux)
	hs := httptest.NewServer(mux)
	defer hs.Close()
	call := func(method, path, body string) (int, string) {
		t.Helper()
		req, _ := http.NewRequest(method, hs.URL+path, strings.NewReader(body))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var b strings.Builder
		_, _ = bufio.NewReader(resp.Body).WriteTo(&b)
		return resp.StatusCode, b.String()
	}
	for _, tc := range []struct {
		method, path, body string
		status             int
		want               string
	}{
		{"POST", "/v1/tasks", `{"prompt":""}`, 400, "a task is required"},
		{"POST", "/v1/tasks", `{"prompt":"x","dir":"/a","bogus":1}`, 400, "unknown field"},
		{"GET", "/v1/tasks", "", 200, "[]"},
		{"GET", "/v1/tasks/tnope", "", 404, "no such task tnope"},
		{"POST", "/v1/tasks/tnope/cancel", "", 404, "no such task"},
		{"GET", "/v1/tasks/tnope/events", "", 404, "no such task"},
	} {
		if status, body := call(tc.method, tc.path, tc.body); status != tc.status || !strings.Contains(body, tc.want) {
			t.Errorf("%s %s: %d %s; want %d %q", tc.method, tc.path, status, body, tc.status, tc.want)
		}
	}
	status, body := call("POST", "/v1/tasks", `{"prompt":"finish","dir":"`+newRepo(t)+`"}`)
	var task Task
	if err := json.Unmarshal([]byte(body), &task); status != 201 || err != nil || task.State != Queued {
		t.Fatalf("POST /v1/tasks: %d %s", status, body)
	}
	// Follow the events over SSE while a worker runs the task.
	resp, err := http.Get(hs.URL + "/v1/tasks/" + task.ID + "/events")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if ct := resp.Header.Get("Content-Type"); ct != "text/event-stream" {
		t.Errorf("content type %q", ct)
	}
	stop, _ := startWorkers(t, cfg, 1, WorkerOptions{Engine: engineOpts(t, srv), WorkRoot: t.TempDir()})
	defer stop()
	var names []string
	var lastID string
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if name, ok := strings.CutPrefix(line, "event: "); ok {
			names = append(names, name)
		}
		if id, ok := strings.CutPrefix(line, "id: "); ok {
			lastID = id
		}
		if strings.HasPrefix(line, "data: ") && names[len(names)-1] == "task_end" {
			if !strings.Contains(line, `"state":"completed"`) {
				t.Errorf("end: %s", line)
			}
			break
		}
	}
	joined := strings.Join(names, ",")
	if !strings.Contains(joined, "assistant_message,") || !strings.HasSuffix(joined, "turn_summary,task_end") {
		t.Errorf("SSE events: %s", joined)
	}
	// Resuming after the last id gives nothing more.
	if status, body := call("GET", "/v1/tasks/"+task.ID+"/events?follow=0&since="+lastID, ""); status != 200 || strings.Contains(body, "event:") {
		t.Errorf("resume after the end: %d %q", status, body)
	}
	if status, body := call("GET", "/v1/tasks/"+task.ID, ""); status != 200 || !strings.Contains(body, `"result":"all done"`) {
		t.Errorf("GET task: %d %s", status, body)
	}
	if status, body := call("GET", "/v1/tasks", ""); status != 200 || !strings.Contains(body, task.ID) {
		t.Errorf("GET tasks: %d %s", status, body)
	}
	if status, body := call("POST", "/v1/tasks/"+task.ID+"/cancel", ""); status != 409 || !strings.Contains(body, "already completed") {
		t.Errorf("cancel a finished task: %d %s", status, body)
	}
}
