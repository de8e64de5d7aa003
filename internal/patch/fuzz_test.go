package patch

import (
	"strings"
	"testing"
)

// FuzzParse feeds arbitrary text to the parser and the chunk applier:
// neither may panic, and a parsed patch's chunks apply or fail cleanly.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		"*** Begin Patch\n*** Add File: a\n+x\n*** End Patch",
		"*** Begin Patch\n*** Update File: a\n*** Move to: b\n@@ ctx\n a\n-b\n+c\n*** End of File\n*** End Patch",
		"<<'EOF'\n*** Begin Patch\n*** Delete File: a\n*** End Patch\nEOF",
		"*** Begin Patch\n*** Update File: a\n\n@@\n\n\n*** End Patch",
		"*** Begin Patch\r\n*** Update File: a\r\n-\r\n+\r\n*** End Patch\r\n",
		"apply_patch <<EOF\n*** Begin Patch\n*** Update File: a\n@@\n+z\n*** End of File\n*** End Patch\nEOF",
	} {
		f.Add(seed, "a\nb\nc\n")
	}
	f.Fuzz(func(t *testing.T, text, content string) {
		p, err := Parse(text)
		if err != nil {
			if !strings.HasPrefix(err.Error(), "invalid patch: ") {
				t.Fatalf("error %q lacks the prefix", err)
			}
			return
		}
		for _, h := range p.Hunks {
			if h.Path == "" {
				t.Fatalf("hunk without a path: %+v", h)
			}
			if h.Op != Update {
				continue
			}
			out, cerr := applyChunks(content, h.Chunks)
			if cerr == nil && !strings.HasSuffix(out, "\n") {
				t.Fatalf("updated content %q does not end in a newline", out)
			}
			if cerr != nil && (cerr.chunk < 1 || cerr.chunk > len(h.Chunks)) {
				t.Fatalf("chunk error names chunk %d of %d", cerr.chunk, len(h.Chunks))
			}
		}
	})
}
