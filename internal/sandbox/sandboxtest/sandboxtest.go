// Package sandboxtest runs a package's sandbox tests a second time as an
// ordinary user when the tests run as root, so the sandbox is proven both
// ways: CI runs as root, most users do not. It also runs them on both of
// the sandbox's start paths (BothStartPaths).
//
// The user is $OPENSEEK_TEST_USER, else "openseek-test"; CI creates it
// with `useradd -M openseek-test`. A root run without it logs the command
// that creates it and keeps the root results; under OPENSEEK_E2E=1 (CI)
// it fails.
//
// With -short (go test -short) the reruns are left out: a quick pass for
// development; the full suite, as CI runs it, has them.
package sandboxtest

import (
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openseek/openseek/internal/sandbox"
)

// ordinaryEnv marks the second run, so it does not start a third.
const ordinaryEnv = "OPENSEEK_TEST_ORDINARY_USER"

// DefaultUser is the account the tests switch to when OPENSEEK_TEST_USER
// is not set.
const DefaultUser = "openseek-test"

// AsOrdinaryUser reruns the tests of the calling test binary matched by
// pattern (a -test.run expression) as an ordinary user and fails t when
// any fails; env (KEY=value) is added to the rerun's environment, which
// lets t run in parallel where t.Setenv would not. It returns at once
// when this already is that rerun, or when the tests do not run as root
// (they then are the ordinary-user run).
func AsOrdinaryUser(t *testing.T, pattern string, env ...string) {
	t.Helper()
	if os.Getenv(ordinaryEnv) != "" {
		return
	}
	if os.Geteuid() != 0 {
		t.Logf("running as uid %d already: these tests are the ordinary-user run", os.Geteuid())
		return
	}
	if testing.Short() {
		t.Skip("-short leaves out the rerun as an ordinary user; the full suite runs it")
	}
	name := os.Getenv("OPENSEEK_TEST_USER")
	if name == "" {
		name = DefaultUser
	}
	u, err := user.Lookup(name)
	if err != nil {
		msg := fmt.Sprintf("the sandbox tests run a second time as an ordinary user, but user %q does not exist (%v): create it with `useradd -M %s` (or set OPENSEEK_TEST_USER)", name, err, name)
		if os.Getenv("OPENSEEK_E2E") == "1" {
			t.Fatal(msg)
		}
		// A machine with Go and git alone: the root run stands; say
		// what was not run.
		t.Log(msg + "; the ordinary-user run is skipped")
		return
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// The go tool keeps test binaries in a directory only root can enter:
	// copy this one where the user can run it.
	dir, err := os.MkdirTemp("", "openseek-ordinary-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe := filepath.Join(dir, "tests")
	if err := linkExecutable(exe); err != nil {
		t.Fatal(err)
	}
	out, err := runRetryingBusy(func() *exec.Cmd {
		cmd := exec.Command(exe, "-test.run", pattern, "-test.count=1", "-test.v")
		cmd.Dir = dir
		cmd.Env = append(append(userEnv(u.HomeDir), env...), ordinaryEnv+"=1")
		cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}}
		return cmd
	})
	if err != nil || !strings.Contains(string(out), "\nPASS") || !strings.Contains(string(out), "=== RUN") {
		t.Fatalf("as user %s (uid %d) the tests %q failed (%v):\n%s", name, uid, pattern, err, out)
	}
	t.Logf("as user %s (uid %d):\n%s", name, uid, tail(string(out), 40))
}

// userEnv is this process's environment with HOME and the temporary
// directory fit for the other user.
func userEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		switch k {
		case "HOME", "TMPDIR", "GOCACHE", "GOMODCACHE", "GOPATH", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR", "USER", "LOGNAME":
			continue
		}
		env = append(env, kv)
	}
	return append(env, "HOME="+home, "TMPDIR=/tmp")
}

// linkExecutable puts this test binary at dst: a hard link where it can
// (nothing is written, and an ordinary user can run it when its mode lets
// everyone), else a copy.
func linkExecutable(dst string) error {
	src, err := os.Executable()
	if err != nil {
		return err
	}
	if fi, err := os.Stat(src); err == nil && fi.Mode().Perm()&0o005 == 0o005 && os.Link(src, dst) == nil {
		return nil
	}
	return copyExecutable(src, dst)
}

func copyExecutable(src, dst string) error {
	in, err := os.Open(src)
	if err != nil {
		return err
	}
	defer in.Close()
	out, err := os.OpenFile(dst, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	return out.Close()
}

// runRetryingBusy runs the command newCmd makes and returns its combined
// output. A freshly copied executable can fail to start with "text file
// busy" while a child that another test forked at the moment of the copy
// still holds the file open for writing (it closes it when that child
// execs, golang.org/issue/22315): the start is tried again until that
// has happened.
func runRetryingBusy(newCmd func() *exec.Cmd) ([]byte, error) {
	for delay := time.Millisecond; ; delay *= 2 {
		var out bytes.Buffer
		cmd := newCmd()
		cmd.Stdout, cmd.Stderr = &out, &out
		err := cmd.Start()
		if errors.Is(err, syscall.ETXTBSY) && delay < 5*time.Second {
			time.Sleep(delay)
			continue
		}
		if err == nil {
			err = cmd.Wait()
		}
		return out.Bytes(), err
	}
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// BothStartPaths runs m's tests on the sandbox's start path of this build
// (the helper, where it is known good) and, when they pass, once more with
// sandbox.ReexecEnv set, so that one suite proves both paths. It returns
// the exit code for os.Exit. An ordinary-user rerun (AsOrdinaryUser), or a
// run with sandbox.ReexecEnv already set, runs once: the path was chosen;
// so does a run of benchmarks, which name the path they measure.
func BothStartPaths(m *testing.M) int {
	code := m.Run()
	if code != 0 || os.Getenv(ordinaryEnv) != "" || os.Getenv(sandbox.ReexecEnv) != "" || testing.Short() {
		return code
	}
	if f := flag.Lookup("test.bench"); f != nil && f.Value.String() != "" {
		return code // benchmarks name the path they measure
	}
	if helper, _ := sandbox.StartPath(); !helper {
		return code // this build has the re-exec path only
	}
	os.Setenv(sandbox.ReexecEnv, "1")
	defer os.Unsetenv(sandbox.ReexecEnv)
	os.Stdout.WriteString("=== the tests again on the re-exec path (" + sandbox.ReexecEnv + "=1)\n")
	return m.Run()
}

// OnReexecPath reruns the tests of the calling test binary matched by
// pattern with sandbox.ReexecEnv set, so that the sandbox's re-exec path
// passes what its fast path passed, and fails t when any fails. It
// returns at once in that rerun, in an ordinary-user rerun (whose parent
// chose the path) and where this build has the re-exec path only. A test
// that starts the program under test with an environment of its own
// passes sandbox.ReexecEnv on.
func OnReexecPath(t *testing.T, pattern string) {
	t.Helper()
	if os.Getenv(sandbox.ReexecEnv) != "" || os.Getenv(ordinaryEnv) != "" {
		return
	}
	if testing.Short() {
		t.Skip("-short leaves out the rerun on the re-exec path; the full suite runs it")
	}
	if helper, _ := sandbox.StartPath(); !helper {
		t.Logf("this build takes the re-exec path already")
		return
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(exe, "-test.run", pattern, "-test.count=1", "-test.v")
	cmd.Env = append(os.Environ(), sandbox.ReexecEnv+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "\nPASS") || !strings.Contains(string(out), "=== RUN") {
		t.Fatalf("on the re-exec path (%s=1) the tests %q failed (%v):\n%s", sandbox.ReexecEnv, pattern, err, out)
	}
	t.Logf("on the re-exec path:\n%s", tail(string(out), 40))
}

// DefaultParallel sets -test.parallel to n unless the command line set
// it; TestMain calls it before m.Run. Sandbox tests spend their time
// waiting on child processes (the sandboxed command, the program under
// test, a rerun of the test binary), not on the CPU: go test's default,
// GOMAXPROCS, leaves a two-core machine idle most of the run.
func DefaultParallel(n int) {
	if !flag.Parsed() {
		flag.Parse()
	}
	set := false
	flag.Visit(func(f *flag.Flag) { set = set || f.Name == "test.parallel" })
	if !set {
		flag.Set("test.parallel", strconv.Itoa(n))
	}
}

// StartPaths wraps m for goleak.VerifyTestMain and the like, whose Run
// then is BothStartPaths.
type StartPaths struct{ M *testing.M }

// Run runs the tests on both start paths.
func (s StartPaths) Run() int { return BothStartPaths(s.M) }
