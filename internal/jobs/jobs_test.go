package jobs

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/protocol"
)

func TestMain(m *testing.M) {
	sandbox.Main()
	goleak.VerifyTestMain(m)
}

// recorder collects a manager's events and notices.
type recorder struct {
	mu      sync.Mutex
	events  []event
	notices []string
	changed chan struct{}
}

type event struct {
	kind string
	rec  protocol.JobRecord
}

func newRecorder() *recorder { return &recorder{changed: make(chan struct{}, 1)} }

func (r *recorder) onChange(kind string, rec protocol.JobRecord) {
	r.mu.Lock()
	r.events = append(r.events, event{kind, rec})
	r.mu.Unlock()
	r.poke()
}

func (r *recorder) onNotice(text string) {
	r.mu.Lock()
	r.notices = append(r.notices, text)
	r.mu.Unlock()
	r.poke()
}

func (r *recorder) poke() {
	select {
	case r.changed <- struct{}{}:
	default:
	}
}

func (r *recorder) snapshot() ([]event, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]event(nil), r.events...), append([]string(nil), r.notices...)
}

// waitFinal waits for id's finished/failed event and returns it.
func (r *recorder) waitFinal(t *testing.T, id string) protocol.JobRecord {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		evs, _ := r.snapshot()
		for _, e := range evs {
			if e.rec.ID == id && (e.kind == protocol.JobEventFinished || e.kind == protocol.JobEventFailed) {
				return e.rec
			}
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("job %s did not finish; events %+v", id, evs)
		}
	}
}

// waitNotices waits until n notices arrived and returns them.
func (r *recorder) waitNotices(t *testing.T, n int) []string {
	t.Helper()
	deadline := time.After(10 * time.Second)
	for {
		_, notices := r.snapshot()
		if len(notices) >= n {
			return notices
		}
		select {
		case <-r.changed:
		case <-deadline:
			t.Fatalf("got notices %q, want %d", notices, n)
		}
	}
}

func newTestManager(t *testing.T, o Options) (*Manager, *recorder) {
	t.Helper()
	r := newRecorder()
	if o.Dir == "" {
		o.Dir = t.TempDir()
	}
	if o.Generation == "" {
		o.Generation = "g-test"
	}
	o.OnChange, o.OnNotice = r.onChange, r.onNotice
	if o.StopGrace == 0 {
		o.StopGrace = 500 * time.Millisecond
	}
	m := NewManager(o)
	t.Cleanup(m.Close)
	return m, r
}

// checkRecords asserts the protocol §3.4 invariants over one job's events:
// they decode, revisions count up from 1, started comes first and the
// final event last.
func checkRecords(t *testing.T, evs []event, id string) {
	t.Helper()
	rev := 0
	var kinds []string
	for _, e := range evs {
		if e.rec.ID != id {
			continue
		}
		rev++
		if e.rec.Revision != rev {
			t.Errorf("%s event %d has revision %d", id, rev, e.rec.Revision)
		}
		kinds = append(kinds, e.kind)
		if _, err := protocol.DecodeJobRecord(e.rec.AppendJSON(nil)); err != nil {
			t.Errorf("%s revision %d does not decode: %v", id, e.rec.Revision, err)
		}
		if err := protocol.ValidateJobEventKind(e.kind); err != nil {
			t.Error(err)
		}
	}
	if len(kinds) < 2 || kinds[0] != protocol.JobEventStarted || kinds[len(kinds)-1] != protocol.JobEventFinished {
		t.Errorf("%s events %v, want started … finished", id, kinds)
	}
	for _, k := range kinds[1 : len(kinds)-1] {
		if k != protocol.JobEventUpdated {
			t.Errorf("%s events %v: only updates between start and finish", id, kinds)
		}
	}
}

func TestNaturalExit(t *testing.T) {
	tests := []struct {
		name   string
		cmd    string
		state  protocol.JobState
		output string
		notice string
	}{
		{"success", "echo out; echo err >&2", protocol.JobState{Kind: "exited", Code: 0}, "out\nerr\n", "[job bg-1 exited 0] `echo out; echo err >&2` ("},
		{"failure", "printf x; exit 3", protocol.JobState{Kind: "exited", Code: 3}, "x", "[job bg-1 exited 3]"},
		{"signal", "kill -9 $$", protocol.JobState{Kind: "exited", Code: 137}, "", "no output) — read it with job_output"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m, r := newTestManager(t, Options{})
			dir := t.TempDir()
			rec, err := m.Start(Spec{Command: tt.cmd, Dir: dir, Description: "d"})
			if err != nil {
				t.Fatal(err)
			}
			if rec.ID != "bg-1" || rec.Revision != 1 || rec.State.Kind != "running" || *rec.Cwd != dir || *rec.Description != "d" {
				t.Fatalf("first record %+v", rec)
			}
			final := r.waitFinal(t, "bg-1")
			if final.State != tt.state {
				t.Errorf("state %+v, want %+v", final.State, tt.state)
			}
			if final.FinishedAtMs == nil || final.OutputBytes != int64(len(tt.output)) {
				t.Errorf("final record %+v", final)
			}
			notices := r.waitNotices(t, 1)
			evs, _ := r.snapshot()
			checkRecords(t, evs, "bg-1")
			if len(notices) != 1 || !strings.Contains(notices[0], tt.notice) {
				t.Errorf("notices %q, want one containing %q", notices, tt.notice)
			}
			v, err := m.Output("bg-1", nil, 0)
			if err != nil || v.Text != tt.output || v.Truncated {
				t.Errorf("output %+v %v, want %q", v, err, tt.output)
			}
			// The spool persists under Dir/jobs/<generation>.
			b, err := os.ReadFile(filepath.Join(m.o.Dir, "jobs", "g-test", *final.OutputFile))
			if err != nil || string(b) != tt.output {
				t.Errorf("spool file %q %v", b, err)
			}
		})
	}
}

func TestStop(t *testing.T) {
	m, r := newTestManager(t, Options{})
	if _, err := m.Start(Spec{Command: "sleep 1000"}); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		gen, id, want string
	}{
		{"g-other", "bg-1", protocol.JobStopWrongRuntime},
		{"g-test", "bg-9", protocol.JobStopNotFound},
		{"g-test", "bg-1", protocol.JobStopStopped},
		{"g-test", "bg-1", protocol.JobStopAlreadyTerminal},
	}
	for _, tt := range tests {
		if got := m.Stop(tt.gen, tt.id); got != tt.want {
			t.Errorf("Stop(%s, %s) = %s, want %s", tt.gen, tt.id, got, tt.want)
		}
	}
	evs, notices := r.snapshot()
	checkRecords(t, evs, "bg-1")
	if len(notices) != 0 {
		t.Errorf("a requested stop gave notices %q", notices)
	}
	var kinds []string
	for _, e := range evs {
		kinds = append(kinds, e.rec.State.Kind)
	}
	if want := "running stopping stopped"; strings.Join(kinds, " ") != want {
		t.Errorf("states %v, want %s", kinds, want)
	}
	if last := evs[len(evs)-1].rec.State; last.Reason != ReasonRequested {
		t.Errorf("final state %+v", last)
	}
}

// gone reports whether pid no longer runs (a zombie counts as gone).
func gone(pid int) bool {
	if err := syscall.Kill(pid, 0); errors.Is(err, syscall.ESRCH) {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return true
	}
	_, rest, _ := bytes.Cut(b, []byte(") "))
	return len(rest) > 0 && rest[0] == 'Z'
}

func waitGone(t *testing.T, pid int) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for !gone(pid) {
		if time.Now().After(deadline) {
			t.Fatalf("pid %d still runs", pid)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestCloseKillsGroup(t *testing.T) {
	m, r := newTestManager(t, Options{})
	// A grandchild in the same group, and a leader that ignores SIGTERM,
	// so Close needs the group kill and the SIGKILL escalation.
	if _, err := m.Start(Spec{Command: "trap '' TERM; sleep 1000 & echo $!; wait"}); err != nil {
		t.Fatal(err)
	}
	var child int
	for deadline := time.Now().Add(5 * time.Second); child == 0; time.Sleep(5 * time.Millisecond) {
		v, _ := m.Output("bg-1", nil, 0)
		child, _ = strconv.Atoi(strings.TrimSpace(v.Text))
		if time.Now().After(deadline) {
			t.Fatal("no child pid printed")
		}
	}
	leader := m.Snapshot()[0]
	m.Close()
	waitGone(t, child)
	final := r.waitFinal(t, "bg-1")
	if final.State.Kind != "stopped" || final.State.Reason != ReasonSessionClosed {
		t.Errorf("final state %+v", final.State)
	}
	if _, notices := r.snapshot(); len(notices) != 0 {
		t.Errorf("Close gave notices %q", notices)
	}
	if _, err := m.Start(Spec{Command: "true"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Start after Close: %v", err)
	}
	if leader.Revision != 1 {
		t.Errorf("snapshot revision %d", leader.Revision)
	}
}

func TestOutputCap(t *testing.T) {
	m, r := newTestManager(t, Options{MaxOutputBytes: 4096})
	if _, err := m.Start(Spec{Command: "yes"}); err != nil {
		t.Fatal(err)
	}
	final := r.waitFinal(t, "bg-1")
	if final.State.Reason != ReasonKilledAtOutputCap || !final.OutputTruncated || final.OutputBytes != 4096 {
		t.Errorf("final %+v", final)
	}
	notices := r.waitNotices(t, 1)
	if len(notices) != 1 || !strings.Contains(notices[0], "[job bg-1 stopped: killed at output cap] `yes`") {
		t.Errorf("notices %q", notices)
	}
}

func TestOutputWindows(t *testing.T) {
	m, r := newTestManager(t, Options{})
	if _, err := m.Start(Spec{Command: "seq 1000"}); err != nil { // 3893 chars
		t.Fatal(err)
	}
	r.waitFinal(t, "bg-1")
	off := func(n int) *int { return &n }
	tests := []struct {
		name      string
		offset    *int
		window    int
		text      string
		start     int64
		truncated bool
	}{
		{"tail", nil, 8, "999\n1000\n"[1:], 3885, true},
		{"offset", off(0), 6, "1\n2\n3\n", 0, true},
		{"offset past end", off(99999), 10, "", 3893, true},
		{"whole", off(0), 5000, "", 0, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v, err := m.Output("bg-1", tt.offset, tt.window)
			if err != nil {
				t.Fatal(err)
			}
			if v.Total != 3893 || v.Offset != tt.start || v.Truncated != tt.truncated ||
				(tt.text != "" && v.Text != tt.text) || v.Shown != int64(len(v.Text)) {
				t.Errorf("view %+v", v)
			}
		})
	}
	if _, err := m.Output("bg-7", nil, 0); !errors.Is(err, ErrNotFound) || err.Error() != "no background job with id bg-7" {
		t.Errorf("unknown job: %v", err)
	}
}

func TestAdoptKeepsOutput(t *testing.T) {
	m, r := newTestManager(t, Options{UpdateInterval: time.Millisecond})
	p, err := m.Spawn(Spec{Command: "echo before; read x < /dev/null; sleep 0.3; echo after"})
	if err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(5 * time.Second); p.Output().Bytes == 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("no output")
		}
	}
	rec, err := m.Adopt(p)
	if err != nil {
		t.Fatal(err)
	}
	if rec.ID != "bg-1" || *rec.OutputFile != "bg-1.log" || rec.BackgroundedAtMs < rec.StartedAtMs {
		t.Errorf("adopted record %+v", rec)
	}
	final := r.waitFinal(t, "bg-1")
	v, _ := m.Output("bg-1", nil, 0)
	if v.Text != "before\nafter\n" || final.State.Code != 0 {
		t.Errorf("output %q state %+v", v.Text, final.State)
	}
	evs, _ := r.snapshot()
	checkRecords(t, evs, "bg-1")
	updated := false
	for _, e := range evs {
		updated = updated || e.kind == protocol.JobEventUpdated
	}
	if !updated {
		t.Error("no output progress update")
	}
	if snap := m.Snapshot(); len(snap) != 1 || snap[0].Revision != final.Revision {
		t.Errorf("snapshot %+v", snap)
	}
}

func TestSnapshotOrder(t *testing.T) {
	m, r := newTestManager(t, Options{})
	for range 11 {
		if _, err := m.Start(Spec{Command: "true"}); err != nil {
			t.Fatal(err)
		}
	}
	r.waitFinal(t, "bg-11")
	var ids []string
	for _, rec := range m.Snapshot() {
		ids = append(ids, rec.ID)
	}
	if got := strings.Join(ids, ","); got != "bg-1,bg-2,bg-3,bg-4,bg-5,bg-6,bg-7,bg-8,bg-9,bg-10,bg-11" {
		t.Errorf("snapshot order %s", got)
	}
}

func TestTemporaryDirRemoved(t *testing.T) {
	m := NewManager(Options{Generation: "bad/gen"})
	if !protocol.ValidJobComponent(m.Generation()) || !strings.HasPrefix(m.Generation(), "g-") {
		t.Errorf("generation %q", m.Generation())
	}
	rec, err := m.Start(Spec{Command: "echo hi"})
	if err != nil {
		t.Fatal(err)
	}
	if rec.OutputPersistent {
		t.Error("temporary spool reported persistent")
	}
	dir := m.dir
	m.Close()
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("temporary spool dir left: %v", err)
	}
}

func TestFormatting(t *testing.T) {
	tests := []struct{ got, want string }{
		{FormatDuration(400 * time.Millisecond), "0.4s"},
		{FormatDuration(12 * time.Second), "12s"},
		{FormatDuration(62 * time.Second), "1m02s"},
		{FormatDuration(125 * time.Minute), "2h05m"},
		{FormatBytes(812), "812 B"},
		{FormatBytes(4200), "4.1 KB"},
		{FormatBytes(12 << 20), "12.0 MB"},
		{ShortCommand("  go test ./...\nmore", 60), "go test ./...…"},
		{ShortCommand("abcdef", 4), "abc…"},
		{ShortCommand("ls", 4), "ls"},
	}
	for _, tt := range tests {
		if tt.got != tt.want {
			t.Errorf("got %q, want %q", tt.got, tt.want)
		}
	}
}
