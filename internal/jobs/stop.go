package jobs

import (
	"os"
	"sync"

	"github.com/openseek/openseek/protocol"
)

// Stop ends job id of the given generation: the job goes to "stopping",
// its process group gets SIGTERM (SIGKILL after the grace), and Stop
// returns once the job is recorded stopped. No notice is produced. The
// outcome is one of protocol's JobStop* constants.
func (m *Manager) Stop(generation, id string) string {
	if generation != m.gen {
		return protocol.JobStopWrongRuntime
	}
	m.mu.Lock()
	j, ok := m.jobs[id]
	m.mu.Unlock()
	if !ok {
		return protocol.JobStopNotFound
	}
	if !m.requestStop(j, ReasonRequested) {
		return protocol.JobStopAlreadyTerminal
	}
	j.p.Kill(m.o.StopGrace)
	<-j.final
	return protocol.JobStopStopped
}

// requestStop marks j stopping with reason, publishing the change; it
// reports false when j has already ended. A job already stopping keeps
// its first reason.
func (m *Manager) requestStop(j *job, reason string) bool {
	m.mu.Lock()
	switch {
	case j.state.Terminal():
		m.mu.Unlock()
		return false
	case j.stopReason != "":
		m.mu.Unlock()
		return true
	}
	m.mu.Unlock()
	ended := false
	m.publish(j, protocol.JobEventUpdated, func() bool {
		// The process may have ended, or another stop begun, between the
		// two locks.
		if j.state.Terminal() {
			ended = true
			return false
		}
		if j.stopReason != "" {
			return false
		}
		j.stopReason = reason
		j.state.Kind = protocol.JobStateStopping
		return true
	})
	return !ended
}

// Close stops every running job (reason session_closed, no notices),
// waits for them, and refuses new jobs. A temporary spool directory is
// removed; one under Options.Dir is kept.
func (m *Manager) Close() {
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		m.wg.Wait()
		return
	}
	m.closed = true
	running := make([]*job, 0, len(m.jobs))
	for _, j := range m.jobs {
		if !j.state.Terminal() {
			running = append(running, j)
		}
	}
	m.mu.Unlock()

	var wg sync.WaitGroup
	for _, j := range running {
		wg.Go(func() {
			if m.requestStop(j, ReasonSessionClosed) {
				j.p.Kill(m.o.StopGrace)
			}
		})
	}
	wg.Wait()
	m.wg.Wait()
	if m.o.Dir == "" && m.dir != "" {
		os.RemoveAll(m.dir)
	}
}
