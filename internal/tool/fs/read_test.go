package fs

import (
	"fmt"
	"strings"
	"testing"
)

func TestRead(t *testing.T) {
	files := map[string]string{
		"a.txt":        "a\nb\n",
		"noeol.txt":    "a\nb",
		"empty.txt":    "",
		"crlf.txt":     "one\r\ntwo\r\n",
		"ten.txt":      "abcdefgh\nabcdefgh\nabcdefgh\n",
		"emoji.txt":    "😀😀\n",
		"long.txt":     strings.Repeat("y", 200_000),
		"bin.dat":      "\x00\x01\x02",
		"latin1.txt":   "caf\xe9\n",
		"src/main.go":  "package main\n",
		"dir/b/x":      "",
		"dir/a.txt":    "",
		"README.md":    "# hi\n",
		"big/many.txt": strings.Repeat("0123456789\n", 10_000),
	}
	env := newEnv(t, files)
	footer := func(start, shown, total int, truncated bool) string {
		return fmt.Sprintf("<system>start_line=%d shown_lines=%d total_lines=%d truncated=%t</system>", start, shown, total, truncated)
	}
	tests := []struct {
		name    string
		args    string
		want    string
		isError bool
		brief   string
	}{
		{"trailing newline gives a last empty line", `{"path":"a.txt"}`, "1\ta\n2\tb\n3\t\n" + footer(1, 3, 3, false), false, "read a.txt"},
		{"no trailing newline", `{"path":"noeol.txt"}`, "1\ta\n2\tb\n" + footer(1, 2, 2, false), false, "read noeol.txt"},
		{"start and max_lines", `{"path":"a.txt","start_line":2,"max_lines":1}`, "2\tb\n" + footer(2, 1, 3, false), false, ""},
		{"start past the end: footer only", `{"path":"a.txt","start_line":9}`, footer(9, 0, 3, false), false, ""},
		{"start_line 0 means 1", `{"path":"noeol.txt","start_line":0}`, "1\ta\n2\tb\n" + footer(1, 2, 2, false), false, ""},
		{"empty file", `{"path":"empty.txt"}`, "<system>start_line=1 shown_lines=0 total_lines=0 truncated=false note=empty file</system>", false, ""},
		{"CRLF shown without CR", `{"path":"crlf.txt"}`, "1\tone\n2\ttwo\n3\t\n" + footer(1, 3, 3, false), false, ""},
		{"budget cuts at a line", `{"path":"ten.txt","max_output_chars":20}`, "1\tabcdefgh\n" + footer(1, 1, 4, true), true, ""},
		{"budget fits exactly", `{"path":"ten.txt","max_output_chars":21,"max_lines":2}`, "1\tabcdefgh\n2\tabcdefgh\n" + footer(1, 2, 4, false), false, ""},
		{"over-long first line is clipped", `{"path":"ten.txt","max_output_chars":5}`, "1\tabc\n" + footer(1, 1, 4, true), true, ""},
		{"budget counts UTF-16 units", `{"path":"emoji.txt","max_output_chars":5}`, "1\t😀\n" + footer(1, 1, 2, true), true, ""},
		{"subdirectory path", `{"path":"src/main.go"}`, "1\tpackage main\n2\t\n" + footer(1, 2, 2, false), false, "read main.go"},
		{"directory lists entries", `{"path":"dir"}`, "a.txt\nb/\n<system>directory entries=2 shown_entries=2 truncated=false</system>", false, "read dir/"},
		{"workspace root lists", `{"path":"dir/b"}`, "x\n<system>directory entries=1 shown_entries=1 truncated=false</system>", false, ""},
		{"directory over budget", `{"path":"dir","max_output_chars":7}`, "a.txt\n<system>directory entries=2 shown_entries=1 truncated=true</system>", true, ""},
		{"missing with a close name", `{"path":"src/mian.go"}`, "error reading src/mian.go: no such file or directory. Did you mean src/main.go?", true, ""},
		{"missing directory with a close name", `{"path":"scr/main.go"}`, "error reading scr/main.go: no such file or directory. Did you mean src/main.go?", true, ""},
		{"case differs", `{"path":"readme.md"}`, "error reading readme.md: no such file or directory. Did you mean README.md?", true, ""},
		{"missing, nothing close", `{"path":"zzzzzzzz.q"}`, "error reading zzzzzzzz.q: no such file or directory", true, ""},
		{"binary refused", `{"path":"bin.dat"}`, "error reading bin.dat: binary file (not UTF-8 text); read shows text files only", true, ""},
		{"non-UTF-8 refused", `{"path":"latin1.txt"}`, "error reading latin1.txt: binary file (not UTF-8 text); read shows text files only", true, ""},
		{"outside", `{"path":"../x"}`, `error reading ../x: path "../x" is outside the workspace ` + env.Workspace, true, ""},
		{"missing path", `{}`, "error: read requires arguments.path", true, ""},
		{"not an object", `[1]`, "error: read requires object arguments", true, ""},
		{"wrong type", `{"path":"a.txt","start_line":"2"}`, "error: read requires arguments.start_line", true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, Read(), env, tt.args)
			if got := res.Content.Text(); got != tt.want {
				t.Fatalf("text =\n%q\nwant\n%q", got, tt.want)
			}
			if res.IsError != tt.isError {
				t.Errorf("IsError = %v, want %v", res.IsError, tt.isError)
			}
			if tt.brief != "" && res.Brief != tt.brief {
				t.Errorf("Brief = %q, want %q", res.Brief, tt.brief)
			}
		})
	}
}

func TestReadBudgets(t *testing.T) {
	env := newEnv(t, map[string]string{
		"long.txt": strings.Repeat("y", 200_000),
		"many.txt": strings.Repeat("0123456789\n", 10_000),
	})
	tests := []struct {
		name       string
		args       string
		bodyLen    int // UTF-16 units of the body (before the footer)
		footerPart string
	}{
		{"default budget on a huge line", `{"path":"long.txt"}`, 12000, "shown_lines=1 total_lines=1 truncated=true"},
		{"cap at 50000", `{"path":"long.txt","max_output_chars":100000}`, 50000, "shown_lines=1 total_lines=1 truncated=true"},
		{"many lines, default budget", `{"path":"many.txt"}`, 0, "total_lines=10001 truncated=true"},
		{"many lines from the middle", `{"path":"many.txt","start_line":9990,"max_lines":5}`, 0, "start_line=9990 shown_lines=5 total_lines=10001 truncated=false"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			text := call(t, Read(), env, tt.args).Content.Text()
			i := strings.LastIndex(text, "\n<system>")
			if i < 0 {
				t.Fatalf("no footer in %q", text[:min(len(text), 200)])
			}
			body, foot := text[:i], text[i+1:]
			if !strings.Contains(foot, tt.footerPart) {
				t.Errorf("footer %q lacks %q", foot, tt.footerPart)
			}
			if tt.bodyLen > 0 && utf16Len(body) != tt.bodyLen {
				t.Errorf("body is %d units, want %d", utf16Len(body), tt.bodyLen)
			}
			if utf16Len(body) > MaxOutputChars {
				t.Errorf("body of %d units exceeds the cap", utf16Len(body))
			}
		})
	}
}
