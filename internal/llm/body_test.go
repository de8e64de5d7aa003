package llm

import (
	"bytes"
	"encoding/json"
	"io"
	"strings"
	"testing"
)

// TestBodyIsTheWholeEncoding: a body assembled from kept runs, fresh
// elements and members reads as the encoding of the whole object, every
// time it is read, and references the kept bytes instead of copying them.
func TestBodyIsTheWholeEncoding(t *testing.T) {
	long := strings.Repeat("x", 2000)
	var run Run
	for _, m := range []string{`{"role":"system"}`, `{"role":"user","content":"` + long + `"}`, `{"role":"assistant"}`} {
		run.Push([]byte(m))
	}
	for _, tc := range []struct {
		name  string
		build func() *Array
		want  string
	}{
		{"empty", func() *Array { return &Array{} }, `[]`},
		{"run only", func() *Array {
			var a Array
			a.AddRun(run.Slice(0, 3))
			return &a
		}, `[{"role":"system"},{"role":"user","content":"` + long + `"},{"role":"assistant"}]`},
		{"run then fresh", func() *Array {
			var a Array
			a.AddRun(run.Slice(0, 2))
			a.Add([]byte(`{"role":"tool"}`))
			return &a
		}, `[{"role":"system"},{"role":"user","content":"` + long + `"},{"role":"tool"}]`},
		{"fresh only", func() *Array {
			var a Array
			a.Add([]byte(`1`))
			a.Add([]byte(`2`))
			return &a
		}, `[1,2]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body, err := WriteObject([]Member{{Key: "model", Value: []byte(`"m"`)}, {Key: "messages", Array: tc.build()}, {Key: "stream", Value: []byte("true")}})
			if err != nil {
				t.Fatal(err)
			}
			want := `{"model":"m","messages":` + tc.want + `,"stream":true}`
			if !json.Valid([]byte(want)) {
				t.Fatalf("bad test: %s", want)
			}
			for range 2 {
				got, err := io.ReadAll(body.Reader())
				if err != nil || string(got) != want || body.Len() != len(want) || !bytes.Equal(body.Bytes(), got) {
					t.Fatalf("got %d bytes %.80q…, want %d bytes %.80q… (%v)", len(got), got, len(want), want, err)
				}
			}
		})
	}
	var a Array
	a.AddRun(run.Slice(0, 3))
	body := Splice([]byte(`{"input":`), &a, []byte(`}`))
	for _, p := range body.parts {
		if len(p) > 1000 && &p[0] != &run.buf[0] {
			t.Errorf("the kept run was copied into the body")
		}
	}
}
