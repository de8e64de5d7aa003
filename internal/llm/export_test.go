package llm

import "time"

// SetFinishWait sets how long a finished stream's rest is read for, until
// the test ends.
func SetFinishWait(t interface{ Cleanup(func()) }, d time.Duration) {
	old := finishWait
	finishWait = d
	t.Cleanup(func() { finishWait = old })
}
