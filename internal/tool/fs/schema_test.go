package fs

import (
	"testing"
)

func TestSchemasGolden(t *testing.T) {
	for _, tl := range Tools() {
		t.Run(tl.Name, func(t *testing.T) {
			golden(t, "schemas/"+tl.Name+".json", tl.Schema)
		})
	}
}

// TestToolSetSize keeps the model-facing bytes of the file tools lean:
// they are sent with every request.
func TestToolSetSize(t *testing.T) {
	total := 0
	for _, tl := range Tools() {
		total += len(tl.Name) + len(tl.Description) + len(tl.Schema)
	}
	if total > 4500 {
		t.Errorf("file tools cost %d bytes of name+description+schema; keep them under 4500", total)
	}
}
