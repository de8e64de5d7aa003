package runtime

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/openseek/openseek/internal/script"
	"github.com/openseek/openseek/internal/skills"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/internal/tool/control"
	"github.com/openseek/openseek/internal/tool/fs"
	"github.com/openseek/openseek/internal/tool/search"
	"github.com/openseek/openseek/internal/tool/shell"
)

var updateSchemas = flag.Bool("update-schemas", false, "rewrite testdata/tool_schemas.golden")

// TestToolSchemasGolden pins the argument schema of every tool the engine
// offers, byte for byte: they are part of each request's stable prefix,
// so a change costs every user a prompt-cache miss and shows in the token
// count. Run with -update-schemas after an intended change.
func TestToolSchemasGolden(t *testing.T) {
	e := &Engine{}
	pool := slices.Concat(fs.Tools(), []tool.Tool{fs.ApplyPatch()}, search.Tools(), shell.Tools(), control.Tools(),
		[]tool.Tool{skills.Tool(nil), e.agentTool(0), script.Tool(script.DefaultLimits)})
	var got bytes.Buffer
	for _, tl := range pool {
		fmt.Fprintf(&got, "%s %s\n", tl.Name, tl.Schema)
	}
	path := filepath.Join("testdata", "tool_schemas.golden")
	if *updateSchemas {
		if err := os.WriteFile(path, got.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update-schemas to create it)", err)
	}
	if !bytes.Equal(got.Bytes(), want) {
		t.Errorf("tool schemas changed:\n got:\n%s\nwant:\n%s", got.Bytes(), want)
	}
}
