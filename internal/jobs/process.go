package jobs

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/openseek/openseek/internal/sandbox"
)

// drainGrace is how long output is still collected after the command
// itself exited. A descendant that outlives the command (`server &`) keeps
// the pipe open; after the grace the pipe is closed so the caller is not
// held hostage by it.
const drainGrace = 250 * time.Millisecond

// Spec describes a command to run.
type Spec struct {
	Command     string // the shell command line; run with `bash -c` (else `sh -c`)
	Description string // optional human description, kept on the job record
	Dir         string // working directory (absolute)
	// MaxOutputBytes caps the spooled output; when reached, later output is
	// dropped and the process group is killed. Zero means the default.
	MaxOutputBytes int64
	// Sandbox confines the command (see package sandbox); nil runs it
	// unsandboxed. Secret-looking environment variables are withheld
	// either way, except those the policy's AllowEnv names.
	Sandbox *sandbox.Policy
	// Secrets are the credentials this process holds (sandbox.Secrets);
	// none reaches the command's environment, whatever its variable is
	// called. nil holds none.
	Secrets Secrets
}

// Secrets filters the credentials out of an environment: env without
// them, but for the variables allow names.
type Secrets interface {
	Env(env, allow []string) []string
}

// Process is a command running in its own process group, stdin at
// /dev/null, stdout and stderr merged in order into one spool file. It is
// what the shell tool runs in the foreground and what a job wraps once
// backgrounded.
type Process struct {
	spec    Spec
	waitFor func() (int, error) // waits for the command; its status
	out     *spool
	pgid    int
	started time.Time

	done     chan struct{} // closed once the command exited and its output is drained
	exitCode int           // valid after done
	capKill  atomic.Bool   // killed because the output cap was reached
	onOutput atomic.Pointer[func()]

	killMu sync.Mutex // serialises terminate
}

// Spawn starts spec in the foreground, spooling its output to a temporary
// file in dir ("" means the system temporary directory). Release the
// Process (or hand it to a Manager with Adopt) when done with it.
func Spawn(spec Spec, dir string) (*Process, error) {
	if dir == "" {
		dir = os.TempDir()
	}
	f, err := os.CreateTemp(dir, "fg-*.log")
	if err != nil {
		return nil, fmt.Errorf("create output spool: %w", err)
	}
	return spawn(spec, f)
}

// spawn starts spec with its output going to the fresh file f.
func spawn(spec Spec, f *os.File) (*Process, error) {
	if spec.MaxOutputBytes <= 0 {
		spec.MaxOutputBytes = DefaultMaxOutputBytes
	}
	out := newSpool(f, spec.MaxOutputBytes)
	pr, pw, err := os.Pipe()
	if err != nil {
		out.remove()
		return nil, fmt.Errorf("create output pipe: %w", err)
	}
	cmd := exec.Command(shellPath(), "-c", spec.Command)
	cmd.Dir = spec.Dir
	cmd.Stdout = pw
	cmd.Stderr = pw
	// Keep commands from waiting on a terminal that is not there: pagers
	// print straight through, git never prompts for credentials.
	cmd.Env = append(childEnv(spec.Sandbox, spec.Secrets), "PAGER=cat", "GIT_PAGER=cat", "GIT_TERMINAL_PROMPT=0")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	name := cmd.Path
	started := time.Now()
	var pid int
	var waitFor func() (int, error)
	if spec.Sandbox != nil {
		// The sandbox's supervisor leads the command's process group, so
		// the pid below is signalled as the command's own.
		var sp *sandbox.Process
		if sp, err = spec.Sandbox.Start(cmd); err == nil {
			pid, waitFor = sp.Pid(), sp.Wait
		}
	} else if err = cmd.Start(); err == nil {
		pid = cmd.Process.Pid
		waitFor = func() (int, error) {
			err := cmd.Wait()
			return exitCode(cmd.ProcessState, err), nil
		}
	}
	if err != nil {
		pr.Close()
		pw.Close()
		out.remove()
		if spec.Sandbox != nil {
			return nil, fmt.Errorf("start %s in the sandbox: %w", name, err)
		}
		return nil, fmt.Errorf("start %s: %w", name, err)
	}
	pw.Close()
	p := &Process{
		spec: spec, waitFor: waitFor, out: out, pgid: pid,
		started: started, done: make(chan struct{}),
	}
	readerDone := make(chan struct{})
	go p.copyOutput(pr, readerDone)
	go p.wait(pr, readerDone)
	return p, nil
}

// childEnv is this process's environment without secrets, except those
// the policy allows.
func childEnv(p *sandbox.Policy, s Secrets) []string {
	var allow []string
	if p != nil {
		allow = p.AllowEnv
	}
	if s == nil {
		return sandbox.FilterEnv(os.Environ(), allow)
	}
	return s.Env(os.Environ(), allow)
}

// shellPath is bash when installed, else sh.
func shellPath() string {
	if p, err := exec.LookPath("bash"); err == nil {
		return p
	}
	return "/bin/sh"
}

func (p *Process) copyOutput(pr *os.File, readerDone chan<- struct{}) {
	defer close(readerDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := pr.Read(buf)
		if n > 0 {
			if p.out.write(buf[:n], time.Now()) {
				p.capKill.Store(true)
				p.signal(syscall.SIGKILL)
			}
			if f := p.onOutput.Load(); f != nil {
				(*f)()
			}
		}
		if err != nil {
			return
		}
	}
}

func (p *Process) wait(pr *os.File, readerDone <-chan struct{}) {
	code, sandboxErr := p.waitFor()
	p.exitCode = code
	t := time.NewTimer(drainGrace)
	select {
	case <-readerDone:
	case <-t.C:
	}
	t.Stop()
	pr.Close() // unblocks the reader if a descendant still holds the pipe
	<-readerDone
	if sandboxErr != nil {
		// The sandbox itself died: say so after what the command wrote.
		p.out.write([]byte("\n[openseek] "+sandboxErr.Error()+"\n"), time.Now())
	}
	p.out.finish()
	close(p.done)
}

// exitCode is the command's status, 128+N for death by signal N (as a
// shell reports it), -1 when it could not be waited for.
func exitCode(ps *os.ProcessState, err error) int {
	if ps == nil {
		return -1
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		return -1
	}
	return ps.ExitCode()
}

// Done is closed once the command has exited and its output is drained.
func (p *Process) Done() <-chan struct{} { return p.done }

// ExitCode is the exit status (128+signal when killed); valid after Done.
func (p *Process) ExitCode() int { return p.exitCode }

// Pid is the process id of the command, which also names its process group.
func (p *Process) Pid() int { return p.pgid }

// Started is when the command was started.
func (p *Process) Started() time.Time { return p.started }

// KilledAtOutputCap reports whether the process was killed because its
// output reached the cap.
func (p *Process) KilledAtOutputCap() bool { return p.capKill.Load() }

// Output reports the output written so far.
func (p *Process) Output() OutputStats {
	st := p.out.stats()
	return OutputStats{Bytes: st.Bytes, Chars: st.Chars, InvalidUTF8: st.Invalid, Dropped: st.Dropped, Unsaved: st.Err != nil}
}

// OutputStats counts a command's output.
type OutputStats struct {
	Bytes       int64
	Chars       int64 // Unicode characters; each invalid byte counts as one
	InvalidUTF8 bool  // some output was not valid UTF-8 (read back as U+FFFD)
	Dropped     bool  // output beyond the cap was discarded
	// Unsaved: the output file could not be written (a full disk); what
	// followed is kept in memory, up to 256 KiB, and reads back the same.
	Unsaved bool
}

// Read returns the characters [start, start+n) of the output so far.
func (p *Process) Read(start, n int64) (string, error) { return p.out.read(start, n) }

// Kill ends the process group: SIGTERM, then SIGKILL if the command has
// not exited after grace. It returns once the command is done.
func (p *Process) Kill(grace time.Duration) {
	p.killMu.Lock()
	defer p.killMu.Unlock()
	select {
	case <-p.done:
		// Exited on its own: descendants an unsandboxed command left
		// behind on purpose (`server &`) are not ours to end; a
		// sandboxed command's ended with it (its PID namespace).
		return
	default:
	}
	p.signal(syscall.SIGTERM)
	t := time.NewTimer(grace)
	select {
	case <-p.done:
	case <-t.C:
	}
	t.Stop()
	p.signal(syscall.SIGKILL)
	<-p.done
}

func (p *Process) signal(sig syscall.Signal) {
	// The group may be gone already (ESRCH); there is nothing to report.
	_ = syscall.Kill(-p.pgid, sig)
}

// Release kills the process if it still runs and deletes its spool. Use it
// for a foreground command that was not handed to a Manager.
func (p *Process) Release(grace time.Duration) error {
	p.Kill(grace)
	return p.out.remove()
}

// spoolName is the spool's file name.
func (p *Process) spoolName() string { return filepath.Base(p.out.stats().Path) }
