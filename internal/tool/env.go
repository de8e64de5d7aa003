package tool

import "github.com/openseek/openseek/internal/jobs"

// Env is the small runtime handle a tool gets: where it works and the
// shared facilities of the engine. It is owned by the engine and shared by
// every call of a session.
type Env struct {
	Workspace string        // absolute, cleaned workspace root
	Jobs      *jobs.Manager // background jobs; nil when there is no background runtime
	Files     *FileState    // what the agent wrote this session (provenance for remove)
}
