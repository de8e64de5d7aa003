package fs

import (
	"os"
	"path/filepath"
	"testing"
)

func TestMultiEdit(t *testing.T) {
	files := map[string]string{
		"a.txt":      "alpha\nbeta\ngamma\ndelta\n",
		"b.txt":      "one\ntwo\n",
		"crlf.txt":   "x\r\ny\r\n",
		"edits.json": `[{"file":"b.txt","old_string":"two","new_string":"TWO","start_line":2}]`,
		"bad.json":   `[{"file":"b.txt","old_string":"two","new_string":"TWO","start_line":"2"}]`,
	}
	tests := []struct {
		name        string
		args        string
		want        string
		changed     map[string]string // files expected to differ from files
		wantOutcome string
	}{
		{"two files, validated against the original",
			`{"edits":[
				{"file":"a.txt","old_string":"","new_string":"zero\n","start_line":1},
				{"file":"a.txt","old_string":"gamma","new_string":"GAMMA","start_line":3},
				{"file":"b.txt","old_string":"one","new_string":"1","start_line":1}]}`,
			"ok: applied 3 edit(s) across 2 file(s)\na.txt: 2 edit(s)\nb.txt: 1 edit(s)",
			map[string]string{"a.txt": "zero\nalpha\nbeta\nGAMMA\ndelta\n", "b.txt": "1\ntwo\n"}, "applied"},
		{"edits listed out of order within a file",
			`{"edits":[
				{"file":"a.txt","old_string":"delta","new_string":"D","start_line":4},
				{"file":"a.txt","old_string":"alpha","new_string":"A","start_line":1}]}`,
			"ok: applied 2 edit(s) across 1 file(s)\na.txt: 2 edit(s)",
			map[string]string{"a.txt": "A\nbeta\ngamma\nD\n"}, "applied"},
		{"insertion then replacement at the same offset",
			`{"edits":[
				{"file":"a.txt","old_string":"","new_string":"pre\n","start_line":2},
				{"file":"a.txt","old_string":"beta","new_string":"BETA","start_line":2}]}`,
			"ok: applied 2 edit(s) across 1 file(s)\na.txt: 2 edit(s)",
			map[string]string{"a.txt": "alpha\npre\nBETA\ngamma\ndelta\n"}, "applied"},
		{"CRLF kept",
			`{"edits":[{"file":"crlf.txt","old_string":"x\ny","new_string":"X\nY","start_line":1}]}`,
			"ok: applied 1 edit(s) across 1 file(s)\ncrlf.txt: 1 edit(s)",
			map[string]string{"crlf.txt": "X\r\nY\r\n"}, "applied"},
		{"edits_file appended",
			`{"edits":[{"file":"a.txt","old_string":"beta","new_string":"B","start_line":1}],"edits_file":"edits.json"}`,
			"ok: applied 2 edit(s) across 2 file(s)\na.txt: 1 edit(s)\nb.txt: 1 edit(s)",
			map[string]string{"a.txt": "alpha\nB\ngamma\ndelta\n", "b.txt": "one\nTWO\n"}, "applied"},
		{"edits_file alone", `{"edits_file":"edits.json"}`,
			"ok: applied 1 edit(s) across 1 file(s)\nb.txt: 1 edit(s)",
			map[string]string{"b.txt": "one\nTWO\n"}, "applied"},
		{"one miss: nothing written",
			`{"edits":[
				{"file":"a.txt","old_string":"alpha","new_string":"A","start_line":1},
				{"file":"a.txt","old_string":"alpha","new_string":"A2","start_line":2},
				{"file":"b.txt","old_string":"one","new_string":"1","start_line":1}]}`,
			"error multi_editing: 1 problem(s); no changes applied\na.txt edit[1] line range 2-5: old_string not found", nil, "rejected"},
		{"every problem listed",
			`{"edits":[
				{"file":"a.txt","old_string":"nope","new_string":"x","start_line":2,"end_line":3},
				{"file":"b.txt","old_string":"two","new_string":"two","start_line":1},
				{"file":"nothing-like-it.md","old_string":"x","new_string":"y","start_line":1}]}`,
			"error multi_editing: 3 problem(s); no changes applied\n" +
				"a.txt edit[0] line range 2-3: old_string not found\n" +
				"b.txt edit[1]: new_string must differ from old_string\n" +
				"nothing-like-it.md edit[2]: no such file; use write to create it", nil, "rejected"},
		{"overlapping spans",
			`{"edits":[
				{"file":"a.txt","old_string":"beta\ngamma","new_string":"x","start_line":2},
				{"file":"a.txt","old_string":"gamma","new_string":"y","start_line":3}]}`,
			"error multi_editing: 1 problem(s); no changes applied\na.txt edit[1] overlaps edit[0]; combine same-line changes into one edit", nil, "rejected"},
		{"same line twice",
			`{"edits":[
				{"file":"a.txt","old_string":"beta","new_string":"x","start_line":2},
				{"file":"a.txt","old_string":"beta","new_string":"y","start_line":2}]}`,
			"error multi_editing: 1 problem(s); no changes applied\na.txt edit[1] overlaps edit[0]; combine same-line changes into one edit", nil, "rejected"},
		{"two insertions at one point",
			`{"edits":[
				{"file":"a.txt","old_string":"","new_string":"x\n","start_line":2},
				{"file":"a.txt","old_string":"","new_string":"y\n","start_line":2}]}`,
			"error multi_editing: 1 problem(s); no changes applied\na.txt edit[1] overlaps edit[0]; combine same-line changes into one edit", nil, "rejected"},
		{"not contiguous",
			`{"edits":[
				{"file":"a.txt","old_string":"alpha","new_string":"A","start_line":1},
				{"file":"b.txt","old_string":"one","new_string":"1","start_line":1},
				{"file":"./a.txt","old_string":"beta","new_string":"B","start_line":2}]}`,
			"error multi_editing: edits for ./a.txt must be contiguous; it reappears at edit[2] after another file's edits; list all edits for a file together", nil, "error"},
		{"outside the workspace",
			`{"edits":[
				{"file":"a.txt","old_string":"alpha","new_string":"A","start_line":1},
				{"file":"../b.txt","old_string":"one","new_string":"1","start_line":1}]}`,
			"", nil, "rejected"},
		{"start_line not an integer",
			`{"edits":[{"file":"a.txt","old_string":"a","new_string":"b","start_line":"1"}]}`,
			"error: multi_edit requires arguments.edits[0].start_line to be an integer", nil, ""},
		{"start_line missing",
			`{"edits":[{"file":"a.txt","line":1,"old_string":"a","new_string":"b"}]}`,
			"error: multi_edit requires arguments.edits[0] to include start_line (present keys: file, line, new_string, old_string)", nil, ""},
		{"file not a string",
			`{"edits":[{"file":"a.txt","old_string":"alpha","new_string":"A","start_line":1},{"file":2,"old_string":"a","new_string":"b","start_line":1}]}`,
			"error: multi_edit requires arguments.edits[1].file to be a string", nil, ""},
		{"edit not an object", `{"edits":["a.txt"]}`, "error: multi_edit requires arguments.edits[0] to be an object", nil, ""},
		{"edits not an array", `{"edits":{"file":"a.txt"}}`, "error: multi_edit requires arguments.edits", nil, ""},
		{"empty batch", `{"edits":[]}`, "error: multi_edit requires arguments.edits (a non-empty array of edits) or arguments.edits_file", nil, "error"},
		{"no arguments", `{}`, "error: multi_edit requires arguments.edits (a non-empty array of edits) or arguments.edits_file", nil, "error"},
		{"bad edits_file entry numbered after inline edits",
			`{"edits":[{"file":"a.txt","old_string":"alpha","new_string":"A","start_line":1}],"edits_file":"bad.json"}`,
			"error: multi_edit requires arguments.edits[1].start_line to be an integer", nil, "error"},
		{"missing edits_file", `{"edits_file":"none.json"}`, "error multi_editing: edits_file none.json: no such file or directory", nil, "error"},
		{"not an object", `[]`, "error: multi_edit requires object arguments", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t, files)
			res := call(t, MultiEdit(), env, tt.args)
			got := res.Content.Text()
			if tt.want != "" && got != tt.want {
				t.Fatalf("text =\n%s\nwant\n%s", got, tt.want)
			}
			if res.IsError != (tt.wantOutcome != "applied") {
				t.Errorf("IsError = %v (%s)", res.IsError, got)
			}
			for name, before := range files {
				want := before
				if c, ok := tt.changed[name]; ok {
					want = c
				}
				if after := readFile(t, env, name); after != want {
					t.Errorf("%s =\n%q\nwant\n%q", name, after, want)
				}
			}
			if tt.wantOutcome != "" {
				if d := outcome(t, res); d.Outcome != tt.wantOutcome {
					t.Errorf("outcome = %q, want %q", d.Outcome, tt.wantOutcome)
				}
			}
		})
	}
}

func TestMultiEditKeepsModeAndProvenance(t *testing.T) {
	env := newEnv(t, map[string]string{"x.sh": "echo 1\n"})
	if err := os.Chmod(filepath.Join(env.Workspace, "x.sh"), 0o755); err != nil {
		t.Fatal(err)
	}
	call(t, Write(), env, `{"path":"mine.txt","content":"a\n"}`)
	res := call(t, MultiEdit(), env, `{"edits":[
		{"file":"x.sh","old_string":"1","new_string":"2","start_line":1},
		{"file":"mine.txt","old_string":"a","new_string":"b","start_line":1}]}`)
	if res.IsError {
		t.Fatal(res.Content.Text())
	}
	if fi, _ := os.Stat(filepath.Join(env.Workspace, "x.sh")); fi.Mode().Perm() != 0o755 {
		t.Errorf("mode = %v, want 0755", fi.Mode().Perm())
	}
	if !env.Files.CreatedUnchanged(filepath.Join(env.Workspace, "mine.txt"), []byte("b\n")) {
		t.Error("an agent-created file edited by multi_edit is no longer removable")
	}
	if d := outcome(t, res); len(d.Paths) != 2 || d.Paths[0] != "x.sh" || d.Paths[1] != "mine.txt" {
		t.Errorf("paths = %v", d.Paths)
	}
}
