package fs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestEdit(t *testing.T) {
	const abc = "one\ntwo\nthree\ntwo\n"
	tests := []struct {
		name        string
		file        string // content of f.txt before
		args        string
		want        string
		wantFile    string // content after; "" = unchanged
		wantOutcome string
	}{
		{"anchored picks the first match from start_line", abc, `{"path":"f.txt","old_string":"two","new_string":"TWO","start_line":3}`,
			"ok: replaced 1 occurrence(s) at line 4 in f.txt", "one\ntwo\nthree\nTWO\n", "applied"},
		{"anchored at line 1", abc, `{"path":"f.txt","old_string":"two","new_string":"TWO","start_line":1}`,
			"ok: replaced 1 occurrence(s) at line 2 in f.txt", "one\nTWO\nthree\ntwo\n", "applied"},
		{"match may start inside the start line", "ab ab\n", `{"path":"f.txt","old_string":"ab","new_string":"X","start_line":1,"end_line":1}`,
			"ok: replaced 1 occurrence(s) at line 1 in f.txt", "X ab\n", "applied"},
		{"unanchored unique", abc, `{"path":"f.txt","old_string":"three\n","new_string":"3\n"}`,
			"ok: replaced 1 occurrence(s) at line 3 in f.txt", "one\ntwo\n3\ntwo\n", "applied"},
		{"unanchored ambiguous", abc, `{"path":"f.txt","old_string":"two","new_string":"2"}`,
			"error editing f.txt: old_string matched 2 times on lines 2, 4; give start_line", "", "error"},
		{"not found from line, occurs before", abc, `{"path":"f.txt","old_string":"one","new_string":"1","start_line":2}`,
			"error editing f.txt: old_string not found from line 2; it occurs on line 1", "", "not_found"},
		{"not found in range, occurs elsewhere", abc, `{"path":"f.txt","old_string":"two","new_string":"2","start_line":3,"end_line":3}`,
			"error editing f.txt: old_string not found in lines 3-3; it occurs on lines 2, 4", "", "not_found"},
		{"match must end inside end_line", abc, `{"path":"f.txt","old_string":"two\nthree","new_string":"x","start_line":2,"end_line":2}`,
			"error editing f.txt: old_string not found in lines 2-2; it occurs on line 2", "", "not_found"},
		{"not found gives the closest line", abc, `{"path":"f.txt","old_string":"thre3","new_string":"3"}`,
			"error editing f.txt: old_string not found. The closest text in the file is line 3: three", "", "not_found"},
		{"not found, indentation differs", "func f() {\n\treturn 1\n}\n", `{"path":"f.txt","old_string":"    return 1","new_string":"\treturn 2","start_line":1}`,
			"error editing f.txt: old_string not found from line 1. The closest text in the file is line 2: \treturn 1", "", "not_found"},
		{"not found, nothing close", abc, `{"path":"f.txt","old_string":"xyzzy plugh","new_string":"3"}`,
			"error editing f.txt: old_string not found. Re-read the file and copy old_string exactly", "", "not_found"},
		{"insert at a line", abc, `{"path":"f.txt","old_string":"","new_string":"NEW\n","start_line":2}`,
			"ok: replaced 1 occurrence(s) at line 2 in f.txt", "one\nNEW\ntwo\nthree\ntwo\n", "applied"},
		{"insert at line 1", abc, `{"path":"f.txt","old_string":"","new_string":"// head\n","start_line":1}`,
			"ok: replaced 1 occurrence(s) at line 1 in f.txt", "// head\n" + abc, "applied"},
		{"append at last+1", abc, `{"path":"f.txt","old_string":"","new_string":"four\n","start_line":6}`,
			"ok: replaced 1 occurrence(s) at line 5 in f.txt", abc + "four\n", "applied"},
		{"append on the empty last line", abc, `{"path":"f.txt","old_string":"","new_string":"four\n","start_line":5}`,
			"ok: replaced 1 occurrence(s) at line 5 in f.txt", abc + "four\n", "applied"},
		{"append after a last line without newline", "x\ny", `{"path":"f.txt","old_string":"","new_string":"z","start_line":3}`,
			"ok: replaced 1 occurrence(s) at line 3 in f.txt", "x\ny\nz", "applied"},
		{"insert into an empty file", "", `{"path":"f.txt","old_string":"","new_string":"hello\n","start_line":1}`,
			"ok: replaced 1 occurrence(s) at line 1 in f.txt", "hello\n", "applied"},
		{"insert past the end", abc, `{"path":"f.txt","old_string":"","new_string":"x","start_line":7}`,
			"error editing f.txt: start_line 7 is past the end of the file (5 lines; 6 appends)", "", "error"},
		{"replace past the end", abc, `{"path":"f.txt","old_string":"one","new_string":"x","start_line":9}`,
			"error editing f.txt: start_line 9 is past the end of the file (5 lines)", "", "error"},
		{"insert needs start_line", abc, `{"path":"f.txt","old_string":"","new_string":"x"}`,
			"error editing f.txt: inserting (empty old_string) needs start_line", "", "error"},
		{"both empty", abc, `{"path":"f.txt","old_string":"","new_string":"","start_line":1}`,
			"error editing f.txt: old_string and new_string are both empty", "", "error"},
		{"no change", abc, `{"path":"f.txt","old_string":"one","new_string":"one"}`,
			"error editing f.txt: new_string must differ from old_string", "", "error"},
		{"start_line zero", abc, `{"path":"f.txt","old_string":"one","new_string":"1","start_line":0}`,
			"error editing f.txt: start_line and end_line must be positive line numbers", "", "error"},
		{"end before start", abc, `{"path":"f.txt","old_string":"one","new_string":"1","start_line":3,"end_line":2}`,
			"error editing f.txt: end_line must be a line number >= start_line", "", "error"},
		{"legacy replace_all false accepted", abc, `{"path":"f.txt","old_string":"one","new_string":"1","replace_all":false}`,
			"ok: replaced 1 occurrence(s) at line 1 in f.txt", "1\ntwo\nthree\ntwo\n", "applied"},
		{"legacy replace_all true refused", abc, `{"path":"f.txt","old_string":"two","new_string":"2","replace_all":true}`,
			"error editing f.txt: replace_all=true is no longer supported; give start_line to pick one match, or multi_edit with explicit line-anchored edits", "", "error"},
		{"CRLF file, LF strings", "a\r\nb\r\nc\r\n", `{"path":"f.txt","old_string":"a\nb","new_string":"A\nB\nB2"}`,
			"ok: replaced 1 occurrence(s) at line 1 in f.txt", "A\r\nB\r\nB2\r\nc\r\n", "applied"},
		{"CRLF file, anchored", "a\r\nb\r\nc\r\n", `{"path":"f.txt","old_string":"b\nc","new_string":"x\ny","start_line":2}`,
			"ok: replaced 1 occurrence(s) at line 2 in f.txt", "a\r\nx\r\ny\r\n", "applied"},
		{"CRLF file, insertion", "a\r\nb\r\n", `{"path":"f.txt","old_string":"","new_string":"X\n","start_line":2}`,
			"ok: replaced 1 occurrence(s) at line 2 in f.txt", "a\r\nX\r\nb\r\n", "applied"},
		{"CRLF file, CRLF strings", "a\r\nb\r\n", `{"path":"f.txt","old_string":"a\r\n","new_string":"z\r\n"}`,
			"ok: replaced 1 occurrence(s) at line 1 in f.txt", "z\r\nb\r\n", "applied"},
		{"unicode", "héllo wörld\n", `{"path":"f.txt","old_string":"wörld","new_string":"мир"}`,
			"ok: replaced 1 occurrence(s) at line 1 in f.txt", "héllo мир\n", "applied"},
		{"missing file", abc, `{"path":"nope.txt","old_string":"a","new_string":"b"}`,
			"error editing nope.txt: no such file; use write to create it", "", "error"},
		{"missing file, close name", abc, `{"path":"F.txt","old_string":"a","new_string":"b"}`,
			"error editing F.txt: no such file; use write to create it. Did you mean f.txt?", "", "error"},
		{"binary file", "\x00\x01", `{"path":"f.txt","old_string":"a","new_string":"b"}`,
			"error editing f.txt: binary file (not UTF-8 text); edit changes text files only", "", "error"},
		{"directory", abc, `{"path":".","old_string":"a","new_string":"b"}`,
			"error editing .: is a directory", "", "error"},
		{"missing old_string", abc, `{"path":"f.txt","new_string":"b"}`, "error: edit requires arguments.old_string", "", ""},
		{"missing new_string", abc, `{"path":"f.txt","old_string":"b"}`, "error: edit requires arguments.new_string", "", ""},
		{"missing path", abc, `{"old_string":"a","new_string":"b"}`, "error: edit requires arguments.path", "", ""},
		{"start_line as string", abc, `{"path":"f.txt","old_string":"a","new_string":"b","start_line":"2"}`, "error: edit requires arguments.start_line", "", ""},
		{"not an object", abc, `"f.txt"`, "error: edit requires object arguments", "", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, map[string]string{"f.txt": tt.file})
			res := call(t, Edit(), env, tt.args)
			if got := res.Content.Text(); got != tt.want {
				t.Fatalf("text =\n%q\nwant\n%q", got, tt.want)
			}
			wantFile := tt.wantFile
			if wantFile == "" {
				wantFile = tt.file
			}
			if got := readFile(t, env, "f.txt"); got != wantFile {
				t.Errorf("file =\n%q\nwant\n%q", got, wantFile)
			}
			if res.IsError != (tt.wantOutcome != "applied") {
				t.Errorf("IsError = %v for outcome %q", res.IsError, tt.wantOutcome)
			}
			if tt.wantOutcome != "" {
				if d := outcome(t, res); d.Outcome != tt.wantOutcome {
					t.Errorf("outcome = %q, want %q", d.Outcome, tt.wantOutcome)
				}
				if res.Brief == "" {
					t.Error("no Brief")
				}
			}
		})
	}
}

func TestEditDataAndMode(t *testing.T) {
	env := newEnv(t, map[string]string{"sub/run.sh": "#!/bin/sh\necho a\necho b\n"})
	p := filepath.Join(env.Workspace, "sub/run.sh")
	if err := os.Chmod(p, 0o750); err != nil {
		t.Fatal(err)
	}
	res := call(t, Edit(), env, `{"path":"sub/run.sh","old_string":"echo b\n","new_string":"echo b\necho c\n","start_line":3}`)
	if res.IsError {
		t.Fatal(res.Content.Text())
	}
	d := outcome(t, res)
	if d.Path != "sub/run.sh" || d.Lines == nil || d.Lines.Start != 3 || d.Lines.End != 4 {
		t.Errorf("data = %+v (lines %+v), want path sub/run.sh lines 3-4", d, d.Lines)
	}
	if res.Brief != "edit run.sh" {
		t.Errorf("Brief = %q", res.Brief)
	}
	fi, err := os.Stat(p)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o750 {
		t.Errorf("mode = %v, want 0750 kept", fi.Mode().Perm())
	}
	entries, _ := os.ReadDir(filepath.Dir(p))
	if len(entries) != 1 {
		t.Errorf("temporary files left behind: %v", entries)
	}
}
