package patch

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/tool"
)

// absent marks a file that must not exist.
const absent = "\x00absent"

// tree writes files (path → content) under dir.
func tree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for p, c := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// check compares the files under dir with want.
func check(t *testing.T, dir string, want map[string]string) {
	t.Helper()
	for p, w := range want {
		b, err := os.ReadFile(filepath.Join(dir, p))
		if w == absent {
			if err == nil {
				t.Errorf("%s exists, want it absent", p)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s: %v", p, err)
			continue
		}
		if string(b) != w {
			t.Errorf("%s = %q, want %q", p, b, w)
		}
	}
}

func files(dir string) Files {
	env := &tool.Env{Workspace: dir}
	return Files{Resolve: env.Resolve}
}

func TestApply(t *testing.T) {
	cases := []struct {
		name    string
		before  map[string]string
		patch   string
		after   map[string]string // on error: unused, before must hold
		summary string            // expected summary lines after the header
		err     string            // substring of the error; "" = success
	}{
		{
			name:    "add file",
			patch:   "*** Begin Patch\n*** Add File: hello.txt\n+hi\n+there\n*** End Patch",
			after:   map[string]string{"hello.txt": "hi\nthere\n"},
			summary: "A hello.txt",
		},
		{
			name:    "add file in new nested directory",
			patch:   "*** Begin Patch\n*** Add File: a/b/c.txt\n+deep\n*** End Patch\n",
			after:   map[string]string{"a/b/c.txt": "deep\n"},
			summary: "A a/b/c.txt",
		},
		{
			name:    "add empty file",
			patch:   "*** Begin Patch\n*** Add File: empty.txt\n*** End Patch",
			after:   map[string]string{"empty.txt": ""},
			summary: "A empty.txt",
		},
		{
			name:    "add overwrites an existing file",
			before:  map[string]string{"dup.txt": "old\n"},
			patch:   "*** Begin Patch\n*** Add File: dup.txt\n+new\n*** End Patch",
			after:   map[string]string{"dup.txt": "new\n"},
			summary: "M dup.txt",
		},
		{
			name:    "delete file",
			before:  map[string]string{"gone.txt": "bye\n", "keep.txt": "stay\n"},
			patch:   "*** Begin Patch\n*** Delete File: gone.txt\n*** End Patch",
			after:   map[string]string{"gone.txt": absent, "keep.txt": "stay\n"},
			summary: "D gone.txt",
		},
		{
			name:    "update one line",
			before:  map[string]string{"f.txt": "one\ntwo\nthree\n"},
			patch:   "*** Begin Patch\n*** Update File: f.txt\n@@\n one\n-two\n+2\n three\n*** End Patch",
			after:   map[string]string{"f.txt": "one\n2\nthree\n"},
			summary: "M f.txt",
		},
		{
			name:   "update without @@ header",
			before: map[string]string{"f.py": "import os\nprint(1)\n"},
			patch:  "*** Begin Patch\n*** Update File: f.py\n import os\n+import sys\n*** End Patch",
			after:  map[string]string{"f.py": "import os\nimport sys\nprint(1)\n"},
		},
		{
			name:   "two chunks in file order",
			before: map[string]string{"m.txt": "a\nb\nc\nd\ne\nf\n"},
			patch:  "*** Begin Patch\n*** Update File: m.txt\n@@\n-b\n+B\n@@\n-e\n+E\n*** End Patch",
			after:  map[string]string{"m.txt": "a\nB\nc\nd\nE\nf\n"},
		},
		{
			name:   "context header narrows the match",
			before: map[string]string{"g.go": "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 1\n}\n"},
			patch:  "*** Begin Patch\n*** Update File: g.go\n@@ func b() {\n-\treturn 1\n+\treturn 2\n*** End Patch",
			after:  map[string]string{"g.go": "func a() {\n\treturn 1\n}\n\nfunc b() {\n\treturn 2\n}\n"},
		},
		{
			name:   "pure addition after its context line",
			before: map[string]string{"i.go": "import (\n\t\"os\"\n)\n"},
			patch:  "*** Begin Patch\n*** Update File: i.go\n@@ import (\n+\t\"fmt\"\n*** End Patch",
			after:  map[string]string{"i.go": "import (\n\t\"fmt\"\n\t\"os\"\n)\n"},
		},
		{
			name:   "pure addition without context appends",
			before: map[string]string{"log.txt": "first\n"},
			patch:  "*** Begin Patch\n*** Update File: log.txt\n@@\n+second\n+third\n*** End Patch",
			after:  map[string]string{"log.txt": "first\nsecond\nthird\n"},
		},
		{
			name:   "deletion only",
			before: map[string]string{"l.txt": "keep\ndrop1\ndrop2\nkeep2\n"},
			patch:  "*** Begin Patch\n*** Update File: l.txt\n@@\n keep\n-drop1\n-drop2\n*** End Patch",
			after:  map[string]string{"l.txt": "keep\nkeep2\n"},
		},
		{
			name:   "end of file marker anchors at the end",
			before: map[string]string{"t.txt": "x\nend\nmiddle\nend\n"},
			patch:  "*** Begin Patch\n*** Update File: t.txt\n@@\n-end\n+END\n*** End of File\n*** End Patch",
			after:  map[string]string{"t.txt": "x\nend\nmiddle\nEND\n"},
		},
		{
			name:   "end of file marker needs the lines at the end",
			before: map[string]string{"t.txt": "tail\nlast\n"},
			patch:  "*** Begin Patch\n*** Update File: t.txt\n@@\n-tail\n+TAIL\n*** End of File\n*** End Patch",
			err:    "Update File t.txt, hunk 1 (patch line 3): expected lines not found at the end of the file",
		},
		{
			name:   "missing trailing newline is added",
			before: map[string]string{"n.txt": "no newline"},
			patch:  "*** Begin Patch\n*** Update File: n.txt\n@@\n-no newline\n+with newline\n*** End Patch",
			after:  map[string]string{"n.txt": "with newline\n"},
		},
		{
			name:   "trailing whitespace in the file is ignored",
			before: map[string]string{"w.txt": "alpha   \nbeta\t\n"},
			patch:  "*** Begin Patch\n*** Update File: w.txt\n@@\n alpha\n-beta\n+gamma\n*** End Patch",
			after:  map[string]string{"w.txt": "alpha   \ngamma\n"},
		},
		{
			name:   "leading whitespace differences are ignored",
			before: map[string]string{"s.py": "def f():\n        return 1\n"},
			patch:  "*** Begin Patch\n*** Update File: s.py\n@@\n-    return 1\n+    return 2\n*** End Patch",
			after:  map[string]string{"s.py": "def f():\n    return 2\n"},
		},
		{
			name:   "unicode dashes and quotes match ascii",
			before: map[string]string{"u.txt": "a \u2013 b\n\u201cquoted\u201d and it\u2019s\u00a0here\n"},
			patch:  "*** Begin Patch\n*** Update File: u.txt\n@@\n-a - b\n-\"quoted\" and it's here\n+plain\n*** End Patch",
			after:  map[string]string{"u.txt": "plain\n"},
		},
		{
			name:   "exact match wins over a lenient earlier one",
			before: map[string]string{"e.txt": "  x\nx\n"},
			patch:  "*** Begin Patch\n*** Update File: e.txt\n@@\n-x\n+y\n*** End Patch",
			after:  map[string]string{"e.txt": "  x\ny\n"},
		},
		{
			name:   "crlf file stays crlf",
			before: map[string]string{"w.bat": "echo one\r\necho two\r\n"},
			patch:  "*** Begin Patch\n*** Update File: w.bat\n@@\n echo one\n-echo two\n+echo 2\n+echo 3\n*** End Patch",
			after:  map[string]string{"w.bat": "echo one\r\necho 2\r\necho 3\r\n"},
		},
		{
			name:   "crlf patch text applies to lf file",
			before: map[string]string{"f.txt": "a\nb\n"},
			patch:  "*** Begin Patch\r\n*** Update File: f.txt\r\n@@\r\n-b\r\n+c\r\n*** End Patch\r\n",
			after:  map[string]string{"f.txt": "a\nc\n"},
		},
		{
			name:    "move to a new directory",
			before:  map[string]string{"old/name.txt": "from\n", "old/other.txt": "other\n"},
			patch:   "*** Begin Patch\n*** Update File: old/name.txt\n*** Move to: renamed/dir/name.txt\n@@\n-from\n+to\n*** End Patch",
			after:   map[string]string{"old/name.txt": absent, "renamed/dir/name.txt": "to\n", "old/other.txt": "other\n"},
			summary: "D old/name.txt\nA renamed/dir/name.txt",
		},
		{
			name:    "move overwrites an existing destination",
			before:  map[string]string{"src.txt": "line\n", "dst.txt": "previous\n"},
			patch:   "*** Begin Patch\n*** Update File: src.txt\n*** Move to: dst.txt\n@@\n-line\n+moved\n*** End Patch",
			after:   map[string]string{"src.txt": absent, "dst.txt": "moved\n"},
			summary: "D src.txt\nM dst.txt",
		},
		{
			name:   "pure rename without chunks",
			before: map[string]string{"a.txt": "same\n"},
			patch:  "*** Begin Patch\n*** Update File: a.txt\n*** Move to: b.txt\n*** End Patch",
			after:  map[string]string{"a.txt": absent, "b.txt": "same\n"},
		},
		{
			name:   "several operations in one patch",
			before: map[string]string{"modify.txt": "line1\nline2\n", "delete.txt": "x\n"},
			patch: "*** Begin Patch\n*** Add File: nested/new.txt\n+created\n*** Delete File: delete.txt\n" +
				"*** Update File: modify.txt\n@@\n-line2\n+changed\n*** End Patch",
			after:   map[string]string{"nested/new.txt": "created\n", "delete.txt": absent, "modify.txt": "line1\nchanged\n"},
			summary: "A nested/new.txt\nD delete.txt\nM modify.txt",
		},
		{
			name:   "a later hunk sees an earlier hunk's result",
			patch:  "*** Begin Patch\n*** Add File: x.txt\n+one\n*** Update File: x.txt\n@@\n-one\n+two\n*** End Patch",
			after:  map[string]string{"x.txt": "two\n"},
			before: map[string]string{},
		},
		{
			name:   "heredoc wrapper",
			before: map[string]string{"h.txt": "a\n"},
			patch:  "<<'EOF'\n*** Begin Patch\n*** Update File: h.txt\n@@\n-a\n+b\n*** End Patch\nEOF\n",
			after:  map[string]string{"h.txt": "b\n"},
		},
		{
			name:   "apply_patch heredoc command",
			before: map[string]string{"h.txt": "a\n"},
			patch:  "apply_patch <<\"PATCH\"\n*** Begin Patch\n*** Update File: h.txt\n@@\n-a\n+c\n*** End Patch\nPATCH",
			after:  map[string]string{"h.txt": "c\n"},
		},
		{
			name:   "padded markers and hunk headers",
			before: map[string]string{"p.txt": "one\n"},
			patch:  "  *** Begin Patch \n   *** Update File: p.txt\n@@\n-one\n+two\n *** End Patch  ",
			after:  map[string]string{"p.txt": "two\n"},
		},
		{
			name:   "blank line between chunks",
			before: map[string]string{"b.txt": "1\n2\n3\n4\n"},
			patch:  "*** Begin Patch\n*** Update File: b.txt\n@@\n-1\n+one\n\n@@\n-4\n+four\n*** End Patch",
			after:  map[string]string{"b.txt": "one\n2\n3\nfour\n"},
		},
		{
			name:   "absolute path inside the workspace",
			before: map[string]string{"abs.txt": "v1\n"},
			patch:  "*** Begin Patch\n*** Update File: {{WS}}/abs.txt\n@@\n-v1\n+v2\n*** End Patch",
			after:  map[string]string{"abs.txt": "v2\n"},
		},
		// Bad input: each leaves the workspace as it was.
		{
			name:  "empty patch",
			patch: "*** Begin Patch\n*** End Patch",
			err:   "no files were modified",
		},
		{
			name:  "not a patch",
			patch: "diff --git a/x b/x\n--- a/x\n+++ b/x",
			err:   "the first line of the patch must be '*** Begin Patch'",
		},
		{
			name:  "missing end marker",
			patch: "*** Begin Patch\n*** Add File: x\n+y",
			err:   "the last line of the patch must be '*** End Patch'",
		},
		{
			name:   "invalid hunk header",
			before: map[string]string{"foo.txt": "keep\n"},
			patch:  "*** Begin Patch\n*** Frobnicate File: foo.txt\n*** End Patch",
			err:    "line 2: '*** Frobnicate File: foo.txt' is not a valid hunk header",
		},
		{
			name:   "empty update hunk",
			before: map[string]string{"foo.txt": "keep\n"},
			patch:  "*** Begin Patch\n*** Update File: foo.txt\n*** End Patch",
			err:    "Update File hunk for path 'foo.txt' is empty",
		},
		{
			name:   "bad line inside a chunk",
			before: map[string]string{"foo.txt": "keep\n"},
			patch:  "*** Begin Patch\n*** Update File: foo.txt\n@@\nno prefix\n*** End Patch",
			err:    "line 4: unexpected line in update hunk: 'no prefix'",
		},
		{
			name:   "context mismatch leaves every file unchanged",
			before: map[string]string{"first.txt": "a\n", "second.txt": "b\n"},
			patch: "*** Begin Patch\n*** Add File: created.txt\n+new\n*** Update File: first.txt\n@@\n-a\n+A\n" +
				"*** Update File: second.txt\n@@\n-not there\n+x\n*** End Patch",
			after: map[string]string{"created.txt": absent},
			err:   "Update File second.txt, hunk 1 (patch line 9): expected lines not found:\n  not there",
		},
		{
			name:   "second chunk fails, first not applied",
			before: map[string]string{"c.txt": "1\n2\n3\n"},
			patch:  "*** Begin Patch\n*** Update File: c.txt\n@@\n-1\n+one\n@@\n-9\n+nine\n*** End Patch",
			err:    "Update File c.txt, hunk 2 (patch line 6)",
		},
		{
			name:   "chunks out of order",
			before: map[string]string{"o.txt": "a\nb\nc\n"},
			patch:  "*** Begin Patch\n*** Update File: o.txt\n@@\n-c\n+C\n@@\n-a\n+A\n*** End Patch",
			err:    "occurs at line 1, before the previous hunk's position",
		},
		{
			name:   "context header not found",
			before: map[string]string{"g.go": "func a() {}\n"},
			patch:  "*** Begin Patch\n*** Update File: g.go\n@@ func z() {\n-x\n+y\n*** End Patch",
			err:    "Update File g.go, hunk 1 (patch line 3): context line '@@ func z() {' not found",
		},
		{
			name:  "update of a missing file",
			patch: "*** Begin Patch\n*** Update File: nope.txt\n@@\n-a\n+b\n*** End Patch",
			err:   "Update File nope.txt (patch line 2): no such file to update",
		},
		{
			name:  "delete of a missing file",
			patch: "*** Begin Patch\n*** Delete File: nope.txt\n*** End Patch",
			err:   "Delete File nope.txt (patch line 2): no such file to delete",
		},
		{
			name:   "delete of a directory",
			before: map[string]string{"dir/foo.txt": "x\n"},
			patch:  "*** Begin Patch\n*** Delete File: dir\n*** End Patch",
			err:    "Delete File dir (patch line 2): is a directory",
		},
		{
			name:  "path outside the workspace",
			patch: "*** Begin Patch\n*** Add File: ../escape.txt\n+x\n*** End Patch",
			err:   "is outside the workspace",
		},
		{
			name:   "move outside the workspace",
			before: map[string]string{"in.txt": "x\n"},
			patch:  "*** Begin Patch\n*** Update File: in.txt\n*** Move to: /tmp/escaped.txt\n@@\n-x\n+y\n*** End Patch",
			err:    "move to /tmp/escaped.txt: path \"/tmp/escaped.txt\" is outside the workspace",
		},
		{
			name:   "binary file",
			before: map[string]string{"img.bin": "\x89PNG\x00\x01\x02\n"},
			patch:  "*** Begin Patch\n*** Update File: img.bin\n@@\n-x\n+y\n*** End Patch",
			err:    "Update File img.bin (patch line 2): binary file",
		},
		{
			name:   "mismatched heredoc quotes",
			before: map[string]string{"h.txt": "a\n"},
			patch:  "<<\"EOF'\n*** Begin Patch\n*** Update File: h.txt\n@@\n-a\n+b\n*** End Patch\nEOF",
			err:    "the first line of the patch must be '*** Begin Patch'",
		},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ws := t.TempDir()
			tree(t, ws, c.before)
			text := strings.ReplaceAll(c.patch, "{{WS}}", ws)
			p, err := Parse(text)
			var changes []Change
			if err == nil {
				changes, err = p.Apply(files(ws))
			}
			if c.err != "" {
				if err == nil || !strings.Contains(err.Error(), c.err) {
					t.Fatalf("error = %v, want one containing %q", err, c.err)
				}
				check(t, ws, c.before)
				check(t, ws, c.after)
				leftovers, _ := filepath.Glob(filepath.Join(ws, ".*.patch-*"))
				if len(leftovers) > 0 {
					t.Errorf("temporary files left: %v", leftovers)
				}
				return
			}
			if err != nil {
				t.Fatalf("apply: %v", err)
			}
			check(t, ws, c.after)
			if c.summary != "" {
				if got, want := Summary(changes), "Success. Updated the following files:\n"+c.summary; got != want {
					t.Errorf("summary:\n%s\nwant:\n%s", got, want)
				}
			}
		})
	}
}

func TestParseStructure(t *testing.T) {
	p, err := Parse("*** Begin Patch\n*** Add File: a.txt\n+x\n*** Delete File: b.txt\n*** Update File: c.txt\n*** Move to: d.txt\n" +
		"@@ class C\n ctx\n-old\n+new\n@@\n+tail\n*** End of File\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	if len(p.Hunks) != 3 {
		t.Fatalf("%d hunks, want 3", len(p.Hunks))
	}
	h := p.Hunks[2]
	if h.Op != Update || h.Path != "c.txt" || h.MoveTo != "d.txt" || h.Line != 5 || len(h.Chunks) != 2 {
		t.Fatalf("update hunk = %+v", h)
	}
	c0, c1 := h.Chunks[0], h.Chunks[1]
	if c0.Context != "class C" || !slices.Equal(c0.Old, []string{"ctx", "old"}) || !slices.Equal(c0.New, []string{"ctx", "new"}) || c0.EOF || c0.Line != 7 {
		t.Errorf("chunk 1 = %+v", c0)
	}
	if c1.Context != "" || len(c1.Old) != 0 || !slices.Equal(c1.New, []string{"tail"}) || !c1.EOF {
		t.Errorf("chunk 2 = %+v", c1)
	}
	if p.Hunks[0].Contents != "x\n" || p.Hunks[1].Op != Delete || p.Hunks[1].Path != "b.txt" {
		t.Errorf("hunks = %+v", p.Hunks[:2])
	}
}

func TestParseErrorsCarryLines(t *testing.T) {
	_, err := Parse("*** Begin Patch\n*** Update File: a\n@@\n-x\n+y\ngarbage\n*** End Patch")
	var pe *ParseError
	// "garbage" ends the chunk; the hunk loop then sees it as a header.
	if !errors.As(err, &pe) || pe.Line != 6 {
		t.Fatalf("error = %v, want a ParseError at line 6", err)
	}
}

func TestModeKept(t *testing.T) {
	ws := t.TempDir()
	script := filepath.Join(ws, "run.sh")
	if err := os.WriteFile(script, []byte("echo a\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	p, err := Parse("*** Begin Patch\n*** Update File: run.sh\n*** Move to: bin/run.sh\n@@\n-echo a\n+echo b\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := p.Apply(files(ws)); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(filepath.Join(ws, "bin/run.sh"))
	if err != nil || fi.Mode().Perm() != 0o755 {
		t.Fatalf("moved script: %v %v, want mode 0755", fi, err)
	}
}

func TestCheckRefusesBeforeWriting(t *testing.T) {
	ws := t.TempDir()
	tree(t, ws, map[string]string{"a.txt": "a\n", "locked/b.txt": "b\n"})
	fsys := files(ws)
	fsys.Check = func(abs string) error {
		if strings.Contains(abs, "locked") {
			return errors.New("refused (apply_patch): protected path")
		}
		return nil
	}
	p, err := Parse("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Update File: locked/b.txt\n@@\n-b\n+B\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	_, err = p.Apply(fsys)
	if err == nil || !strings.Contains(err.Error(), "locked/b.txt: refused (apply_patch): protected path") {
		t.Fatalf("error = %v", err)
	}
	check(t, ws, map[string]string{"a.txt": "a\n", "locked/b.txt": "b\n"})
}

func TestCommitRollsBack(t *testing.T) {
	ws := t.TempDir()
	tree(t, ws, map[string]string{"a.txt": "a\n", "ro/b.txt": "b\n"})
	p, err := Parse("*** Begin Patch\n*** Update File: a.txt\n@@\n-a\n+A\n*** Add File: ro/c.txt\n+c\n*** End Patch")
	if err != nil {
		t.Fatal(err)
	}
	pl, err := p.Plan(files(ws))
	if err != nil {
		t.Fatal(err)
	}
	// The directory becomes read-only between planning and writing.
	if err := os.Chmod(filepath.Join(ws, "ro"), 0o555); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(filepath.Join(ws, "ro"), 0o755)
	if os.Geteuid() == 0 {
		// root writes through directory permissions; make the target a
		// directory instead so the rename fails.
		if err := os.Chmod(filepath.Join(ws, "ro"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.Mkdir(filepath.Join(ws, "ro/c.txt"), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ws, "ro/c.txt/x"), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := pl.Commit(); err == nil {
		t.Fatal("commit succeeded, want a write error")
	}
	check(t, ws, map[string]string{"a.txt": "a\n"})
}
