package engine

import (
	"os"

	"github.com/openseek/openseek/internal/importer"
)

// Transcript is another agent's transcript, read for Host.Import.
type Transcript = importer.Transcript

// IsImportSource reports whether source names an agent whose transcripts
// Host.Import takes: "codex" (Codex CLI rollouts) or "claude" (Claude
// Code transcripts).
func IsImportSource(source string) bool {
	return source == importer.Codex || source == importer.Claude
}

// LatestTranscript is the path of source's newest transcript under the
// user's home, by modification time.
func LatestTranscript(source string, getenv func(string) string) (string, error) {
	return importer.Latest(source, getenv)
}

// ReadTranscript reads the transcript of source at path.
func ReadTranscript(source, path string) (*Transcript, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return importer.Import(source, f, path)
}
