// Package jobs is the background job table: commands that outlive their
// foreground timeout (or ask for the background) keep running here, their
// output spooled to files, their lifecycle reported as protocol.JobRecord.
package jobs

// Manager owns the background jobs of one engine.
type Manager struct{}
