package fs

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/openseek/openseek/internal/tool"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// newEnv returns an Env over a fresh workspace holding files (name →
// content; parent directories are created).
func newEnv(t testing.TB, files map[string]string) *tool.Env {
	t.Helper()
	ws, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	for name, content := range files {
		p := filepath.Join(ws, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return &tool.Env{Workspace: ws, Files: tool.NewFileState()}
}

// call runs tl with args; an *ArgError comes back as its result.
func call(t testing.TB, tl tool.Tool, env *tool.Env, args any) tool.Result {
	t.Helper()
	raw, ok := args.(string)
	if !ok {
		b, err := json.Marshal(args)
		if err != nil {
			t.Fatal(err)
		}
		raw = string(b)
	}
	res, err := tl.Run(context.Background(), env, json.RawMessage(raw))
	var ae *tool.ArgError
	if err != nil && !errors.As(err, &ae) {
		t.Fatalf("%s: unexpected error %v", tl.Name, err)
	}
	return res
}

func readFile(t testing.TB, env *tool.Env, name string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(env.Workspace, name))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func outcome(t testing.TB, res tool.Result) data {
	t.Helper()
	var d data
	if err := json.Unmarshal(res.Data, &d); err != nil {
		t.Fatalf("Data %q: %v", res.Data, err)
	}
	return d
}

// snapshot maps every file under dir to its content.
func snapshot(t testing.TB, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if d.Type()&os.ModeSymlink != 0 {
			target, _ := os.Readlink(p)
			out[p] = "-> " + target
			return nil
		}
		b, err := os.ReadFile(p)
		out[p] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func golden(t *testing.T, name string, got []byte) {
	t.Helper()
	path := filepath.Join("testdata", name)
	if *update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, append(got, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to create it)", err)
	}
	if !bytes.Equal(bytes.TrimSuffix(want, []byte("\n")), got) {
		t.Errorf("%s differs from golden:\n got %s\nwant %s", name, got, want)
	}
}
