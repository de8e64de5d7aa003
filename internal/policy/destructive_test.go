package policy

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDestructiveCommands: a destructive command inside the workspace is
// allowed and marked for a snapshot; one that reaches outside it — also
// through sh -c, bash -lc, xargs, env, sudo, timeout, find -exec, a cd,
// a glob, a link — is refused in every mode but full-access.
func TestDestructiveCommands(t *testing.T) {
	ws := t.TempDir()
	os.MkdirAll(filepath.Join(ws, "src", "sub"), 0o755)
	other := t.TempDir()
	os.Symlink(other, filepath.Join(ws, "link"))
	cases := []struct {
		script  string
		refused bool // outside the workspace
		why     string
	}{
		{"rm -rf src", false, ""},
		{"rm -r -f ./src/sub", false, ""},
		{"rm --recursive src/*", false, ""},
		{"rm -rf src/*.o build/.cache*", false, ""},
		{"cd src && rm -rf ../src/sub", false, ""},
		{"(cd /; ls) && rm -rf src", false, ""},
		{"echo $(cd / && pwd) && rm -rf src", false, ""},
		{"git clean -fdx", false, ""},
		{"git reset --hard HEAD~1", false, ""},
		{"git checkout -- .", false, ""},
		{"git checkout .", false, ""},
		{"git restore src", false, ""},
		{"find . -name '*.o' -delete", false, ""},
		{"find src -exec rm -rf {} +", false, ""},
		{"timeout 5 rm -rf src", false, ""},
		{"git -C src clean -f", false, ""},
		{`rm -rf "$HOME"`, true, "home directory"},
		{"rm -rf ~", true, "home directory"},
		{"rm -rf ~/projects", true, "home directory"},
		{"rm -rf /", true, "root directory"},
		{"rm -fr /*", true, "root directory"},
		{"rm -rf ../other", true, "outside the workspace"},
		{"rm -rf src/../../x", true, "outside the workspace"},
		{"rm -rf ../*", true, "outside the workspace"},
		{"rm -rf " + other, true, "outside the workspace"},
		{"rm -rf link/", true, "outside the workspace"},
		{"rm -rf link/*", true, "outside the workspace"},
		{"cd .. && rm -rf x", true, "outside the workspace"},
		{"(cd .. && rm -rf x)", true, "outside the workspace"},
		{"cd $X && rm -rf x", true, "only known when it runs"},
		{"rm -rf $DIR", true, "only known when it runs"},
		{`sh -c 'rm -rf "$HOME"'`, true, "home directory"},
		{"bash -lc 'rm -rf ../other'", true, "outside the workspace"},
		{"echo .. | xargs rm -rf", true, "only known when it runs"},
		{"env A=1 rm -rf /etc", true, "outside the workspace"},
		{"sudo rm -rf /", true, "root directory"},
		{"timeout 5 rm -rf ~", true, "home directory"},
		{"find / -delete", true, "root directory"},
		{"find . -exec rm -rf ../x \\;", true, "outside the workspace"},
		{"git -C " + other + " reset --hard", true, "outside the workspace"},
		{"git clean -fdx && cd / && git clean -fdx", true, "root directory"},
		{"git push --force origin main", true, "remote"},
		{"git push origin +main", true, "remote"},
		{"git push -d origin old", true, "remote"},
		{"rm -rf */../..", true, "parent directory"},
		{"rm -rf .*", true, "parent directory"},
		{"rm -rf src/{a,../../x}", true, "parent directory"},
	}
	for _, mode := range []Mode{ModeAuto, ModeNever, ModeAlways, ModeFullAccess} {
		p := &Policy{Mode: mode, Workspace: ws, Sandboxed: mode != ModeFullAccess, Network: true}
		for _, tc := range cases {
			v := p.CheckCommand(tc.script)
			if v.Destructive == "" {
				t.Errorf("%s: %q: not seen as destructive: %+v", mode, tc.script, v)
			}
			refused := v.Decision == Deny
			if want := tc.refused && mode != ModeFullAccess; refused != want {
				t.Errorf("%s: %q: refused=%v, want %v (%s)", mode, tc.script, refused, want, v.Reason)
			}
			if refused && (!strings.Contains(v.Reason, tc.why) || !strings.Contains(v.Reason, "--approval full-access")) {
				t.Errorf("%s: %q: the reason does not say %q and how to allow it: %s", mode, tc.script, tc.why, v.Reason)
			}
		}
	}
}

// TestNotDestructive: commands that destroy nothing take no snapshot.
func TestNotDestructive(t *testing.T) {
	p := &Policy{Mode: ModeAuto, Workspace: t.TempDir(), Sandboxed: true}
	for _, s := range []string{"rm file.txt", "git checkout main", "git restore --staged x", "git clean -n", "git push origin main",
		"find . -name x", "git reset HEAD~1", "ls ~", "rmdir empty"} {
		if v := p.CheckCommand(s); v.Destructive != "" || v.Decision == Deny {
			t.Errorf("%q: %+v", s, v)
		}
	}
}

// TestCheckCommandInStartsInDir: relative targets are judged from the
// command's directory.
func TestCheckCommandInStartsInDir(t *testing.T) {
	ws := t.TempDir()
	p := &Policy{Mode: ModeAuto, Workspace: ws, Sandboxed: true}
	if v := p.CheckCommandIn(filepath.Join(ws, "a", "b"), "rm -rf ../x"); v.Decision == Deny {
		t.Errorf("../x from a/b is inside the workspace: %s", v.Reason)
	}
	if v := p.CheckCommandIn(filepath.Join(ws, "a"), "rm -rf ../../x"); v.Decision != Deny {
		t.Errorf("../../x from a is outside the workspace: %+v", v)
	}
}

// TestGuardSnapshotsBeforeDestructive: the guard calls Snapshot before an
// allowed destructive command only, and a failed snapshot stops it.
func TestGuardSnapshotsBeforeDestructive(t *testing.T) {
	ws := t.TempDir()
	var took []string
	fail := false
	g := &Guard{Policy: &Policy{Mode: ModeNever, Workspace: ws, Sandboxed: true}, Snapshot: func(_ context.Context, what string) error {
		if fail {
			return errors.New("no git")
		}
		took = append(took, what)
		return nil
	}}
	ctx := context.Background()
	if err := g.Command(ctx, "shell", "ls && git clean -fdx"); err != nil || len(took) != 1 || !strings.Contains(took[0], "git clean -fdx") {
		t.Fatalf("err %v, snapshots %q", err, took)
	}
	if err := g.Command(ctx, "shell", "go test ./..."); err != nil || len(took) != 1 {
		t.Fatalf("a harmless command took a snapshot: %v %q", err, took)
	}
	if err := g.Command(ctx, "shell", "rm -rf ../x"); !IsRefusal(err) || len(took) != 1 {
		t.Fatalf("a refused command: %v, snapshots %q", err, took)
	}
	fail = true
	if err := g.Command(ctx, "shell", "rm -rf src"); err == nil || !strings.Contains(err.Error(), "was not run") {
		t.Fatalf("a failed snapshot let the command run: %v", err)
	}
}
