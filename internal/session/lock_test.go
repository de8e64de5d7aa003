package session

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"regexp"
	"testing"
	"time"
)

// TestMain doubles as the lease-holding child process of
// TestLeaseAcrossProcesses: re-executed with leaseChildEnv set, the test
// binary opens a writer, reports "ready" and holds the lease until its
// stdin closes (or it is killed).
const leaseChildEnv = "OPENSEEK_SESSION_TEST_LEASE_ROOT"

func TestMain(m *testing.M) {
	if root := os.Getenv(leaseChildEnv); root != "" {
		os.Exit(leaseChild(root))
	}
	os.Exit(m.Run())
}

func leaseChild(root string) int {
	w, err := NewStore(root).OpenWriter("shared", "sys", "openseek run")
	if err != nil {
		fmt.Println("error:", err)
		return 1
	}
	fmt.Println("ready")
	_, _ = io.Copy(io.Discard, os.Stdin)
	if err := w.Close(); err != nil {
		return 1
	}
	return 0
}

func TestSecondWriterInProcessIsBusy(t *testing.T) {
	s := newTestStore(t)
	w, err := s.OpenWriter("s1", "sys", "openseek run")
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.OpenWriter("s1", "sys", "openseek serve")
	var busy *BusyError
	if !errors.As(err, &busy) || !errors.Is(err, ErrBusy) {
		t.Fatalf("second OpenWriter: %v", err)
	}
	if busy.Holder == nil || busy.Holder.PID != os.Getpid() || busy.Holder.Command != "openseek run" || busy.Holder.StartedAtMS != 1758800001000 {
		t.Fatalf("holder %+v", busy.Holder)
	}
	since := time.UnixMilli(1758800001000).Format(time.RFC3339)
	want := fmt.Sprintf("session s1 is open for writing by pid %d (openseek run) since %s; wait for it to finish or pick another session", os.Getpid(), since)
	if err.Error() != want {
		t.Fatalf("error text:\n got %s\nwant %s", err, want)
	}
	// Loading stays possible while a writer holds the lease.
	if _, err := w.Append(&Notice{Content: "x"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Load("s1"); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	w2, err := s.OpenWriter("s1", "sys", "openseek serve")
	if err != nil {
		t.Fatalf("after Close: %v", err)
	}
	w2.Close()
}

func TestLeaseAcrossProcesses(t *testing.T) {
	tests := []struct {
		name string
		end  func(cmd *exec.Cmd, stdin io.Closer) error
	}{
		{"released on Close", func(cmd *exec.Cmd, stdin io.Closer) error { stdin.Close(); return cmd.Wait() }},
		{"released on process death", func(cmd *exec.Cmd, stdin io.Closer) error {
			_ = cmd.Process.Kill()
			_ = cmd.Wait()
			return nil
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			cmd := exec.Command(os.Args[0], "-test.run=^$")
			cmd.Env = append(os.Environ(), leaseChildEnv+"="+root)
			stdin, err := cmd.StdinPipe()
			if err != nil {
				t.Fatal(err)
			}
			stdout, err := cmd.StdoutPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			line, _ := bufio.NewReader(stdout).ReadString('\n')
			if line != "ready\n" {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("child said %q", line)
			}
			_, err = NewStore(root).OpenWriter("shared", "sys", "openseek tui")
			pat := fmt.Sprintf(`^session shared is open for writing by pid %d \(openseek run\) since \S+; wait for it to finish or pick another session$`, cmd.Process.Pid)
			if err == nil || !regexp.MustCompile(pat).MatchString(err.Error()) {
				_ = cmd.Process.Kill()
				_ = cmd.Wait()
				t.Fatalf("OpenWriter while child holds the lease: %v", err)
			}
			if err := tt.end(cmd, stdin); err != nil {
				t.Fatalf("child: %v", err)
			}
			w, err := NewStore(root).OpenWriter("shared", "sys", "openseek tui")
			if err != nil {
				t.Fatalf("after the child ended: %v", err)
			}
			w.Close()
		})
	}
}
