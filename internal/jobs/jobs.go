// Package jobs is the background job table: commands that outlive their
// foreground timeout (or ask for the background) keep running here, their
// output spooled to files, their lifecycle reported as protocol.JobRecord.
//
// A command runs as a [Process]: `bash -c` (or `sh -c`) in its own process
// group, stdin at /dev/null, stdout and stderr merged in order into one
// spool file whose bytes, characters and invalid UTF-8 are counted as they
// arrive. Its environment is this process's without secret-looking
// variables ([sandbox.FilterEnv]); with Spec.Sandbox set it runs inside the
// OS sandbox, which keeps its pid and process group the command's own. The
// shell tool runs a Process in the foreground (via
// [Manager.Spawn] or [Spawn]) and, when it outlives its timeout, hands it to
// the [Manager] with [Manager.Adopt]; [Manager.Start] backgrounds a command
// at once. Jobs are numbered bg-1, bg-2, … per manager; their spools live in
// <Dir>/jobs/<generation>/bg-N.log.
//
// Invariants:
//   - every change of a job is published through Options.OnChange with a
//     revision one higher than the last, in order: "started", any number of
//     "updated" (stopping, output progress at most once per UpdateInterval),
//     then exactly one "finished" (or "failed" when the spool could not be
//     written);
//   - a job that ends on its own (exit, output cap) yields one notice for
//     the model through Options.OnNotice; a requested stop yields none;
//   - Stop and Close kill the whole process group (SIGTERM, SIGKILL after
//     StopGrace) and return only once the job's final record is published;
//     after Close no job runs and no goroutine of the manager is left.
//
// A Manager is safe for concurrent use. Its callbacks are called one at a
// time, in order, and must not call Stop, Start, Adopt or Close.
package jobs

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/openseek/openseek/protocol"
)

// Defaults for Options.
const (
	DefaultMaxOutputBytes = 64 << 20
	DefaultStopGrace      = 2 * time.Second
	DefaultUpdateInterval = time.Second
	// DefaultWindow is the job_output window, in characters.
	DefaultWindow = 12000
)

// Stop reasons recorded in a stopped job's state.
const (
	ReasonRequested         = "requested"
	ReasonSessionClosed     = "session_closed"
	ReasonKilledAtOutputCap = "killed_at_output_cap"
)

var (
	// ErrNotFound is returned for an unknown job id.
	ErrNotFound = errors.New("no background job")
	// ErrClosed is returned once the manager is closed.
	ErrClosed = errors.New("background jobs are shut down")
)

// Options configure a Manager.
type Options struct {
	// Dir is the spool directory; job output goes to jobs/<generation>/
	// under it and outlives the manager (output_persistent). Empty means a
	// temporary directory removed by Close.
	Dir string
	// Generation names this runtime; a valid job component such as
	// "g-<unix ms>". Empty or invalid means "g-<unix ms>" of now.
	Generation string
	// OnChange receives every new revision of a job record; kind is one of
	// protocol's JobEvent* constants.
	OnChange func(kind string, rec protocol.JobRecord)
	// OnNotice receives a notice for the model when a job ends on its own.
	OnNotice func(text string)
	// MaxOutputBytes caps each job's spool (default 64 MiB); a job that
	// reaches it is killed and ends stopped/killed_at_output_cap.
	MaxOutputBytes int64
	// StopGrace is the wait between SIGTERM and SIGKILL (default 2s).
	StopGrace time.Duration
	// UpdateInterval spaces "updated" events for output progress (default
	// 1s; negative disables them).
	UpdateInterval time.Duration
}

// Manager owns the background jobs of one engine.
type Manager struct {
	o   Options
	gen string

	emitMu sync.Mutex // held while building and publishing a revision: keeps them in order
	mu     sync.Mutex
	dir    string // spool directory, created on first use
	jobs   map[string]*job
	last   int // number of the last job
	closed bool
	wg     sync.WaitGroup // one per job watcher
}

type job struct {
	n            int
	id           string
	p            *Process
	backgrounded time.Time
	persistErr   *string

	// guarded by Manager.mu
	state      protocol.JobState
	revision   int
	finished   time.Time
	stopReason string    // set once a stop is requested
	lastEmit   time.Time // of the last published revision
	final      chan struct{}
}

// NewManager returns an empty job table.
func NewManager(o Options) *Manager {
	if o.MaxOutputBytes <= 0 {
		o.MaxOutputBytes = DefaultMaxOutputBytes
	}
	if o.StopGrace <= 0 {
		o.StopGrace = DefaultStopGrace
	}
	if o.UpdateInterval == 0 {
		o.UpdateInterval = DefaultUpdateInterval
	}
	gen := o.Generation
	if !protocol.ValidJobComponent(gen) {
		gen = "g-" + strconv.FormatInt(time.Now().UnixMilli(), 10)
	}
	return &Manager{o: o, gen: gen, jobs: map[string]*job{}}
}

// Generation is the runtime generation every job record carries.
func (m *Manager) Generation() string { return m.gen }

// spoolDir returns the directory for spool files, creating it.
func (m *Manager) spoolDir() (string, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return "", ErrClosed
	}
	if m.dir != "" {
		return m.dir, nil
	}
	if m.o.Dir == "" {
		d, err := os.MkdirTemp("", "openseek-jobs-")
		if err != nil {
			return "", fmt.Errorf("create job spool directory: %w", err)
		}
		m.dir = d
		return d, nil
	}
	d := filepath.Join(m.o.Dir, "jobs", m.gen)
	if err := os.MkdirAll(d, 0o700); err != nil {
		return "", fmt.Errorf("create job spool directory: %w", err)
	}
	m.dir = d
	return d, nil
}

// Spawn starts spec in the foreground with its spool in the manager's
// directory, so that Adopt can later keep its output. The caller either
// Adopts the Process or Releases it.
func (m *Manager) Spawn(spec Spec) (*Process, error) {
	dir, err := m.spoolDir()
	if err != nil {
		return nil, err
	}
	if spec.MaxOutputBytes <= 0 {
		spec.MaxOutputBytes = m.o.MaxOutputBytes
	}
	f, err := os.CreateTemp(dir, "fg-*.log")
	if err != nil {
		return nil, fmt.Errorf("create output spool: %w", err)
	}
	return spawn(spec, f)
}

// Start runs spec as a background job at once.
func (m *Manager) Start(spec Spec) (protocol.JobRecord, error) {
	p, err := m.Spawn(spec)
	if err != nil {
		return protocol.JobRecord{}, err
	}
	rec, err := m.Adopt(p)
	if err != nil {
		p.Release(m.o.StopGrace)
		return protocol.JobRecord{}, err
	}
	return rec, nil
}

// Adopt turns a running foreground Process (from Spawn) into a background
// job: the process keeps running and its output so far is kept. It
// returns the job's first record; after ErrClosed the caller still owns p.
func (m *Manager) Adopt(p *Process) (protocol.JobRecord, error) {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return protocol.JobRecord{}, ErrClosed
	}
	m.last++
	j := &job{
		n: m.last, id: "bg-" + strconv.Itoa(m.last), p: p,
		backgrounded: time.Now(),
		state:        protocol.JobState{Kind: protocol.JobStateRunning},
		final:        make(chan struct{}),
	}
	if filepath.Dir(p.out.stats().Path) == m.dir {
		if err := p.out.rename(filepath.Join(m.dir, j.id+".log")); err != nil {
			s := err.Error()
			j.persistErr = &s
		}
	} else {
		s := "output spool is outside the job directory"
		j.persistErr = &s
	}
	m.jobs[j.id] = j
	m.wg.Add(1)
	m.mu.Unlock()

	rec := m.publish(j, protocol.JobEventStarted, nil)
	if m.o.UpdateInterval > 0 {
		f := func() { m.outputChanged(j) }
		p.onOutput.Store(&f)
	}
	go m.watch(j)
	return rec, nil
}

// publish applies change (under the lock), bumps the revision and hands
// the new record to OnChange, all in one ordered step. A change that
// returns false publishes nothing.
func (m *Manager) publish(j *job, kind string, change func() bool) protocol.JobRecord {
	m.emitMu.Lock()
	defer m.emitMu.Unlock()
	m.mu.Lock()
	if change != nil && !change() {
		rec := m.record(j)
		m.mu.Unlock()
		return rec
	}
	j.revision++
	j.lastEmit = time.Now()
	rec := m.record(j)
	m.mu.Unlock()
	if m.o.OnChange != nil {
		m.o.OnChange(kind, rec)
	}
	return rec
}

// outputChanged publishes output progress, at most once per interval.
func (m *Manager) outputChanged(j *job) {
	m.mu.Lock()
	due := j.state.Kind == protocol.JobStateRunning && time.Since(j.lastEmit) >= m.o.UpdateInterval
	m.mu.Unlock()
	if due {
		m.publish(j, protocol.JobEventUpdated, func() bool {
			return j.state.Kind == protocol.JobStateRunning // not after the end
		})
	}
}

// watch waits for the job's process and publishes its end.
func (m *Manager) watch(j *job) {
	defer m.wg.Done()
	<-j.p.Done()
	natural := false
	kind := protocol.JobEventFinished
	if j.p.out.stats().Err != nil {
		kind = protocol.JobEventFailed
	}
	rec := m.publish(j, kind, func() bool {
		j.finished = time.Now()
		switch {
		case j.stopReason != "":
			j.state = protocol.JobState{Kind: protocol.JobStateStopped, Reason: j.stopReason}
		case j.p.KilledAtOutputCap():
			j.state = protocol.JobState{Kind: protocol.JobStateStopped, Reason: ReasonKilledAtOutputCap}
			natural = true
		default:
			j.state = protocol.JobState{Kind: protocol.JobStateExited, Code: j.p.ExitCode()}
			natural = true
		}
		return true
	})
	if natural && m.o.OnNotice != nil {
		m.o.OnNotice(Notice(rec))
	}
	close(j.final)
}
