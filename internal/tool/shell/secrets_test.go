package shell

import (
	"context"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/secretfile"
	"github.com/openseek/openseek/internal/tool"
)

// secretNotes names each secret file a command's words name, once, with
// how the user can allow it; allowed files, templates, quoted or
// computed words and other files get no note.
func TestSecretNotes(t *testing.T) {
	ws := t.TempDir()
	env := &tool.Env{Workspace: ws}
	env.Guard = &policy.Guard{Policy: &policy.Policy{Mode: policy.ModeAuto, Workspace: ws,
		Secrets: &secretfile.Rules{Allow: []string{"config/dev.env"}}}}
	for _, tc := range []struct{ cmd, want string }{
		{"cat .env", ".env"},
		{"grep KEY < sub/prod.env && cat .env .env", "sub/prod.env .env"},
		{"cat config/dev.env .env.example main.go", ""},
		{"cat $F; echo ok", ""},
		{"cat 'unclosed", ""},
	} {
		got := secretNotes(context.Background(), env, ws, tc.cmd)
		var files []string
		for line := range strings.Lines(got) {
			f, _, _ := strings.Cut(strings.TrimPrefix(line, "note: "), " holds secrets")
			files = append(files, f)
			if !strings.Contains(line, "allow_secrets") {
				t.Errorf("%q: a note without how to allow it: %q", tc.cmd, line)
			}
		}
		if strings.Join(files, " ") != tc.want {
			t.Errorf("%q: notes on %q, want %q\n%s", tc.cmd, files, tc.want, got)
		}
	}
}
