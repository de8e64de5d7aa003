package main

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/llm/llmtest"
	"github.com/openseek/openseek/internal/sandbox/sandboxtest"
	"github.com/openseek/openseek/protocol"
)

// guardWorkspace is a git repository with committed and untracked files
// at base/ws, beside base/other (a directory a command must not reach),
// and a throwaway home directory (HOME for the run) holding keep.txt.
func guardWorkspace(t *testing.T) (ws, other, home string) {
	t.Helper()
	base := t.TempDir()
	ws, other, home = filepath.Join(base, "ws"), filepath.Join(base, "other"), t.TempDir()
	writeTree(t, ws, map[string]string{"src/main.go": "package main\n", "src/lib/lib.go": "package lib\n"})
	writeTree(t, other, map[string]string{"keep.txt": "keep\n"})
	writeTree(t, home, map[string]string{"keep.txt": "keep\n"})
	git := func(args ...string) {
		cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main"}, args...)...)
		cmd.Dir = ws
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v %s", args, err, out)
		}
	}
	git("init", "-q")
	git("add", "src")
	git("commit", "-q", "-m", "init")
	writeTree(t, ws, map[string]string{"notes.txt": "untracked\n", "src/new.go": "package main // untracked\n"})
	return ws, other, home
}

func exists(p string) bool { _, err := os.Stat(p); return err == nil }

// TestDestructiveCommandsAreGuarded drives `openseek run` (the sandbox
// on) with a model that runs `git clean -fdx` and `rm -rf src` in the
// workspace, then `rm -rf "$HOME"` and `rm -rf ../other`: the first two
// run, each after a snapshot that `openseek rewind --snapshot` restores;
// the last two are refused with a message the model reads, and the turn
// goes on. With --approval always (and never, run's default) alike.
func TestDestructiveCommandsAreGuarded(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"never", "always"} {
		t.Run(mode, func(t *testing.T) {
			ws, other, home := guardWorkspace(t)
			env := []string{"HOME=" + home}
			srv := llmtest.NewServer(t, llmtest.Calls(
				llmtest.Call{ID: "clean", Name: "shell", Args: `{"cmd":"git clean -fdx"}`},
				llmtest.Call{ID: "rm", Name: "shell", Args: `{"cmd":"rm -rf src"}`},
				llmtest.Call{ID: "home", Name: "shell", Args: `{"cmd":"rm -rf \"$HOME\""}`},
				llmtest.Call{ID: "other", Name: "shell", Args: `{"cmd":"bash -lc 'rm -rf ../other'"}`},
				llmtest.Call{ID: "after", Name: "shell", Args: `{"cmd":"echo still-going"}`},
			), llmtest.Text("done"))
			r := openseek(t, ws, "", env, append(modelArgs(srv), "--approval", mode, "--session", "g1", "run", "clean up")...)
			if r.code != 0 {
				t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
			}
			results := map[string]string{}
			for _, tr := range find[protocol.ToolResult](r.events) {
				results[tr.ToolCallID] = tr.Content
			}
			// git clean -fdx also tries .openseek, which the sandbox keeps:
			// its warnings make it exit 1, the rest is removed.
			if !strings.Contains(results["clean"], "Removing notes.txt") || !strings.Contains(results["rm"], "<system>exit=0</system>") {
				t.Errorf("git clean or rm did not run: %q %q", results["clean"], results["rm"])
			}
			for id, why := range map[string]string{"home": "home directory", "other": "outside the workspace"} {
				if c := results[id]; !strings.Contains(c, "refused") || !strings.Contains(c, why) || !strings.Contains(c, "--approval full-access") {
					t.Errorf("%s: not refused with the reason: %q", id, c)
				}
			}
			if !strings.Contains(results["after"], "still-going") {
				t.Errorf("the turn did not go on after the refusals: %q", results["after"])
			}
			if exists(filepath.Join(ws, "src")) || exists(filepath.Join(ws, "notes.txt")) {
				t.Fatalf("git clean / rm -rf did not delete the files")
			}
			if !exists(filepath.Join(home, "keep.txt")) || !exists(filepath.Join(other, "keep.txt")) {
				t.Fatalf("a refused command deleted files outside the workspace")
			}
			var snaps []string
			for _, n := range find[protocol.BackgroundNotice](r.events) {
				if rest, ok := strings.CutPrefix(n.Content, "[snapshot] before `"); ok {
					_, id, _ := strings.Cut(rest, "openseek rewind --snapshot ")
					snaps = append(snaps, strings.Trim(strings.Fields(id)[0], "`"))
				}
			}
			if len(snaps) != 2 {
				t.Fatalf("want a snapshot before each of the two destructive commands, got %q", snaps)
			}
			// The snapshot before rm -rf src holds what git clean left.
			if rr := openseek(t, ws, "", env, "rewind", "--snapshot", snaps[1]); rr.code != 0 {
				t.Fatalf("rewind --snapshot: %s", rr.stderr)
			}
			if !exists(filepath.Join(ws, "src/lib/lib.go")) || exists(filepath.Join(ws, "src/new.go")) || exists(filepath.Join(ws, "notes.txt")) {
				t.Errorf("rewind to before rm -rf src did not restore the state then")
			}
			// Before git clean: the untracked files too.
			if rr := openseek(t, ws, "", env, "rewind", "--snapshot", snaps[0]); rr.code != 0 {
				t.Fatalf("rewind --snapshot: %s", rr.stderr)
			}
			if b, err := os.ReadFile(filepath.Join(ws, "src/new.go")); err != nil || string(b) != "package main // untracked\n" || !exists(filepath.Join(ws, "notes.txt")) {
				t.Errorf("rewind to before git clean did not restore the untracked files: %v", err)
			}
			// The session log records both (markers the model never sees):
			// rewind --list shows them under their turn.
			rl := openseek(t, ws, "", env, "rewind", "--list")
			for _, want := range []string{"snapshot " + snaps[0][:12], "before `git clean -fdx` deletes untracked files", "rewind --snapshot " + snaps[1]} {
				if !strings.Contains(rl.stdout, want) {
					t.Errorf("rewind --list lacks %q:\n%s%s", want, rl.stdout, rl.stderr)
				}
			}
		})
	}
}

// TestFullAccessRunsDestructiveCommands: in full-access mode a command
// that reaches outside the workspace runs (HOME is a throwaway directory
// here), after a snapshot. full-access turns the sandbox off: it is the
// one mode the guard lets such a command through, which is what this
// test checks; the same commands under the default sandbox are refused
// in TestDestructiveCommandsAreGuarded, and both run again as an ordinary
// user in TestGuardsAsOrdinaryUser.
func TestFullAccessRunsDestructiveCommands(t *testing.T) {
	t.Parallel()
	ws, other, home := guardWorkspace(t)
	srv := llmtest.NewServer(t, llmtest.Calls(
		llmtest.Call{ID: "other", Name: "shell", Args: `{"cmd":"rm -rf ../other"}`},
		llmtest.Call{ID: "home", Name: "shell", Args: `{"cmd":"rm -rf \"$HOME\""}`},
	), llmtest.Text("done"))
	r := openseek(t, ws, "", []string{"HOME=" + home}, append(modelArgs(srv), "--approval", "full-access", "run", "wipe")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	for _, tr := range find[protocol.ToolResult](r.events) {
		if strings.Contains(tr.Content, "refused") {
			t.Errorf("%s refused in full-access: %q", tr.ToolCallID, tr.Content)
		}
	}
	if _, err := os.Stat(other); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("rm -rf ../other did not run in full-access: %v", err)
	}
	if _, err := os.Stat(filepath.Join(home, "keep.txt")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("rm -rf \"$HOME\" did not run in full-access: %v", err)
	}
	n := 0
	for _, e := range find[protocol.BackgroundNotice](r.events) {
		if strings.HasPrefix(e.Content, "[snapshot] before `rm -rf") {
			n++
		}
	}
	if n != 2 {
		t.Errorf("want a snapshot before each command in full-access, got %d", n)
	}
}

// TestScriptShellIsGuarded: a script's shell(...) calls get the same
// guard — a snapshot before rm -rf src, a refusal for rm -rf ../other.
func TestScriptShellIsGuarded(t *testing.T) {
	t.Parallel()
	ws, other, home := guardWorkspace(t)
	code := "print(shell(cmd='rm -rf ../other', check=False))\n" +
		"print(shell(cmd='rm -rf src'))\n"
	srv := llmtest.NewServer(t, scriptTurn("s1", code), llmtest.Text("done"))
	env := []string{"HOME=" + home} // the snapshots live there
	r := openseek(t, ws, "", env, append(modelArgs(srv), "run", "clean")...)
	if r.code != 0 {
		t.Fatalf("exit %d\nstderr: %s", r.code, r.stderr)
	}
	if c := resultOf(r.events, "s1").Content; !strings.Contains(c, "refused") || !strings.Contains(c, "outside the workspace") {
		t.Errorf("the script's rm -rf ../other was not refused: %q", c)
	}
	if !exists(filepath.Join(other, "keep.txt")) || exists(filepath.Join(ws, "src")) {
		t.Errorf("want ../other kept and src deleted")
	}
	var snap string
	for _, n := range find[protocol.BackgroundNotice](r.events) {
		if rest, ok := strings.CutPrefix(n.Content, "[snapshot] before `rm -rf src`"); ok {
			_, id, _ := strings.Cut(rest, "--snapshot ")
			snap = strings.Trim(strings.Fields(id)[0], "`")
		}
	}
	if snap == "" {
		t.Fatalf("no snapshot before the script's rm -rf src")
	}
	if rr := openseek(t, ws, "", env, "rewind"); rr.code != 0 || !exists(filepath.Join(ws, "src/lib/lib.go")) {
		t.Errorf("openseek rewind did not bring src back: %s", rr.stderr)
	}
}

// TestAutoModeRefusesDestructiveOutside: in auto mode (`serve`, the
// interactive faces' default) a destructive command that reaches outside
// the workspace is refused, not asked about; one inside runs unasked in
// the sandbox.
func TestAutoModeRefusesDestructiveOutside(t *testing.T) {
	t.Parallel()
	ws, other, home := guardWorkspace(t)
	srv := llmtest.NewServer(t, llmtest.Calls(
		llmtest.Call{ID: "home", Name: "shell", Args: `{"cmd":"rm -rf \"$HOME\""}`},
		llmtest.Call{ID: "other", Name: "shell", Args: `{"cmd":"rm -rf ../other"}`},
		llmtest.Call{ID: "src", Name: "shell", Args: `{"cmd":"rm -rf src"}`},
	), llmtest.Text("done"))
	results := map[string]string{}
	serveTurn(t, ws, []string{"HOME=" + home}, append(modelArgs(srv), "--approval", "auto"), func(ev protocol.Event, stdin io.Writer) {
		switch e := ev.(type) {
		case protocol.ApprovalRequested:
			t.Errorf("asked about %q: auto mode refuses it", e.Detail)
			fmt.Fprintf(stdin, `{"command":"approval","id":%q,"allow":false}`+"\n", e.ID)
		case protocol.ToolResult:
			results[e.ToolCallID] = e.Content
		}
	}, `{"command":"prompt","content":"clean up"}`)
	for id, why := range map[string]string{"home": "home directory", "other": "outside the workspace"} {
		if c := results[id]; !strings.Contains(c, "refused") || !strings.Contains(c, why) {
			t.Errorf("%s: %q", id, c)
		}
	}
	if !exists(filepath.Join(home, "keep.txt")) || !exists(filepath.Join(other, "keep.txt")) {
		t.Errorf("a refused command deleted files outside the workspace")
	}
	if exists(filepath.Join(ws, "src")) {
		t.Errorf("rm -rf src did not run: %q", results["src"])
	}
}

// TestGuardsAsOrdinaryUser runs the guard tests again as an ordinary user.
func TestGuardsAsOrdinaryUser(t *testing.T) {
	t.Parallel()
	sandboxtest.AsOrdinaryUser(t, "^(TestDestructiveCommandsAreGuarded|TestFullAccessRunsDestructiveCommands|TestScriptShellIsGuarded|TestAutoModeRefusesDestructiveOutside)$")
}

// serveTurn runs `openseek serve` (args before "serve") in dir with env,
// writes lines to it, and hands every event to on — which may answer on
// the engine's stdin — until the turn has finished.
func serveTurn(t *testing.T, dir string, env, args []string, on func(ev protocol.Event, stdin io.Writer), lines ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], append(args, "serve")...)
	cmd.Dir = dir
	cmd.Env = append([]string{"OPENSEEK_TEST_MAIN=1", "HOME=" + t.TempDir(), "PATH=" + os.Getenv("PATH")}, env...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	// A hung engine is killed, which ends the scan below.
	deadline := time.AfterFunc(60*time.Second, func() { cmd.Process.Kill() })
	defer deadline.Stop()
	for _, l := range lines {
		io.WriteString(stdin, l+"\n")
	}
	sc := bufio.NewScanner(stdout)
	sc.Buffer(nil, 1<<24)
	for sc.Scan() {
		ev, ok := protocol.ParseEvent(sc.Bytes())
		if !ok {
			continue
		}
		on(ev, stdin)
		if ev.EventName() == "agent_finished" {
			break
		}
	}
	stdin.Close()
	cmd.Wait()
}
