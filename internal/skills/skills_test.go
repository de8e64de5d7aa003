package skills

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// write creates path under dir with text, making parent directories.
func write(t testing.TB, dir, path, text string) string {
	t.Helper()
	p := filepath.Join(dir, filepath.FromSlash(path))
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func skillFile(name, desc, body string) string {
	return "---\nname: " + name + "\ndescription: " + desc + "\n---\n" + body
}

func TestDiscover(t *testing.T) {
	ws, global := t.TempDir(), t.TempDir()
	write(t, ws, ".openseek/skills/deploy/SKILL.md", skillFile("deploy", "Ship the service", "ws deploy body"))
	write(t, ws, ".openseek/skills/lint.md", skillFile("lint", "Run the linters", "lint body"))
	write(t, ws, ".openseek/skills/README.txt", "not a skill")
	write(t, ws, ".openseek/skills/.hidden/SKILL.md", skillFile("hidden", "never seen", ""))
	write(t, ws, ".agents/skills/review/SKILL.md", skillFile("review", "Review a change", "r"))
	write(t, ws, ".agents/skills/flat.md", skillFile("flat", "flat files are not read in compatibility dirs", ""))
	write(t, ws, ".claude/skills/pdf/SKILL.md", "---\ndescription: >\n  Fill PDF\n  forms\nallowed-tools: Read\n---\npdf body")
	write(t, ws, ".claude/skills/lint/SKILL.md", skillFile("lint", "shadowed by .openseek", ""))
	write(t, ws, ".claude/skills/broken/SKILL.md", "---\nname: [unclosed\n---\n")
	write(t, ws, ".claude/skills/nodesc/SKILL.md", "---\nname: nodesc\n---\nbody")
	write(t, ws, ".claude/skills/nofm/SKILL.md", "# Just markdown\n")
	write(t, global, "deploy/SKILL.md", skillFile("deploy", "global deploy", "global body"))
	write(t, global, "notes.md", skillFile("notes", "Take notes", "notes body"))
	write(t, global, "dup/SKILL.md", skillFile("twin", "first twin", ""))
	write(t, global, "twin.md", skillFile("twin", "second twin", ""))

	got, errs := Discover(ws, global)

	want := []Skill{
		{"deploy", "Ship the service", filepath.Join(ws, ".openseek/skills/deploy/SKILL.md"), Workspace},
		{"lint", "Run the linters", filepath.Join(ws, ".openseek/skills/lint.md"), Workspace},
		{"notes", "Take notes", filepath.Join(global, "notes.md"), Global},
		{"pdf", "Fill PDF forms", filepath.Join(ws, ".claude/skills/pdf/SKILL.md"), Workspace},
		{"review", "Review a change", filepath.Join(ws, ".agents/skills/review/SKILL.md"), Workspace},
		{"twin", "first twin", filepath.Join(global, "dup/SKILL.md"), Global},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d skills %+v, want %d", len(got), got, len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("skill %d = %+v, want %+v", i, got[i], want[i])
		}
	}

	wantErrs := []struct{ file, reason string }{
		{"broken/SKILL.md", "front matter"},
		{"nodesc/SKILL.md", "no description"},
		{"nofm/SKILL.md", "no front matter"},
		{"twin.md", "already used by"},
	}
	if len(errs) != len(wantErrs) {
		t.Fatalf("got errors %v, want %d", errs, len(wantErrs))
	}
	for _, w := range wantErrs {
		found := false
		for _, e := range errs {
			if strings.Contains(e.Error(), w.file) && strings.Contains(e.Error(), w.reason) {
				found = true
			}
		}
		if !found {
			t.Errorf("no error naming %s with %q in %v", w.file, w.reason, errs)
		}
	}
}

func TestDiscoverMissingDirs(t *testing.T) {
	tests := []struct{ name, ws, global string }{
		{"empty args", "", ""},
		{"dirs without skills", t.TempDir(), filepath.Join(t.TempDir(), "absent")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, errs := Discover(tt.ws, tt.global)
			if len(got) != 0 || len(errs) != 0 {
				t.Fatalf("got %v, %v; want nothing", got, errs)
			}
		})
	}
}

func TestDiscoverSymlinkedSkill(t *testing.T) {
	ws, shared := t.TempDir(), t.TempDir()
	write(t, shared, "fmt/SKILL.md", skillFile("fmt", "Format code", "fmt body"))
	if err := os.MkdirAll(filepath.Join(ws, ".claude/skills"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(shared, "fmt"), filepath.Join(ws, ".claude/skills/fmt")); err != nil {
		t.Fatal(err)
	}
	got, errs := Discover(ws, "")
	if len(errs) != 0 || len(got) != 1 || got[0].Name != "fmt" || got[0].Source != Workspace {
		t.Fatalf("got %+v, %v", got, errs)
	}
}

func TestBody(t *testing.T) {
	dir := t.TempDir()
	tests := []struct{ name, file, want string }{
		{"plain", skillFile("a", "d", "line one\nline two\n"), "line one\nline two"},
		{"crlf and bom", "\xef\xbb\xbf---\r\nname: a\r\ndescription: d\r\n---\r\n\r\nbody\r\n", "body"},
		{"dots close", "---\nname: a\ndescription: d\n...\nbody", "body"},
		{"rule in body kept", skillFile("a", "d", "x\n---\ny"), "x\n---\ny"},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := write(t, dir, filepath.Join("s", string(rune('a'+i))+".md"), tt.file)
			got, err := Skill{Name: "a", Path: p}.Body()
			if err != nil || got != tt.want {
				t.Fatalf("Body() = %q, %v; want %q", got, err, tt.want)
			}
		})
	}
	if _, err := (Skill{Name: "gone", Path: filepath.Join(dir, "gone.md")}).Body(); err == nil || !strings.Contains(err.Error(), "gone") {
		t.Fatalf("missing file: err = %v", err)
	}
}

func TestFrontMatter(t *testing.T) {
	tests := []struct {
		name, in      string
		wantName      string
		wantBody      string
		wantErrSubstr string
	}{
		{"ok", "---\nname: x\n---\nb", "x", "b", ""},
		{"empty front matter", "---\n---\nb", "", "b", ""},
		{"no front matter", "b", "", "", "no front matter"},
		{"leading blank line", "\n---\nname: x\n---\n", "", "", "no front matter"},
		{"unclosed", "---\nname: x\n", "", "", "not closed"},
		{"bad yaml", "---\nname: [x\n---\n", "", "", "front matter:"},
		{"wrong type", "---\nname: {a: 1}\n---\n", "", "", "front matter:"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var m meta
			body, err := FrontMatter([]byte(tt.in), &m)
			if tt.wantErrSubstr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErrSubstr) {
					t.Fatalf("err = %v, want %q", err, tt.wantErrSubstr)
				}
				if strings.Contains(err.Error(), "\n") {
					t.Fatalf("error spans lines: %q", err)
				}
				return
			}
			if err != nil || m.Name != tt.wantName || body != tt.wantBody {
				t.Fatalf("got %q %q %v", m.Name, body, err)
			}
		})
	}
}

func FuzzFrontMatter(f *testing.F) {
	f.Add([]byte("---\nname: x\ndescription: y\n---\nbody"))
	f.Add([]byte("---\r\nname: [\r\n...\r\n"))
	f.Add([]byte("\xef\xbb\xbf---\n---\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		var m meta
		body, err := FrontMatter(data, &m)
		if err == nil && len(body) > len(data) {
			t.Fatalf("body longer than input")
		}
		if err != nil && strings.Contains(err.Error(), "\n") {
			t.Fatalf("multi-line error %q", err)
		}
	})
}
