package main

import (
	"bufio"
	"context"
	"errors"
	"os"
	"os/exec"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/fleet"
	"github.com/openseek/openseek/internal/llm/llmtest"
)

// `openseek tasks logs --follow ID | head -1` ends quietly: the reader
// closing the pipe is no error (no text on stderr, exit 0), and the
// follow loop ends instead of waiting on. (The worker runs --no-sandbox,
// as startWorker says: what is tested here is the reader of the logs.)
func TestTasksLogsIntoAClosedPipe(t *testing.T) {
	t.Parallel()
	emb, err := fleet.StartEmbedded(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(emb.Close)
	// An answer far longer than a pipe's buffer (64 KiB): the logs are
	// still being written when the reader leaves.
	srv := llmtest.NewServer(t, llmtest.Reply{Text: strings.Repeat("a long answer line\n", 12000), ChunkSize: 4000})
	home, repo := t.TempDir(), fleetRepo(t, map[string]string{"README.md": "hi\n"})
	r := openseek(t, repo, "", []string{"HOME=" + home}, "tasks", "add", "--nats", emb.URL, "write", "a", "lot")
	if r.code != 0 {
		t.Fatalf("tasks add: %d %s", r.code, r.stderr)
	}
	id := strings.TrimSpace(r.stdout)
	startWorker(t, home, emb.URL, srv.URL(), "A")
	fc, err := fleet.Connect(context.Background(), fleet.Config{URL: emb.URL})
	if err != nil {
		t.Fatal(err)
	}
	defer fc.Close()
	waitFor(t, "the task to end", func() bool {
		task, _ := fc.Get(context.Background(), id)
		return task != nil && task.State.Terminal()
	})

	cmd := exec.Command(os.Args[0], "tasks", "logs", "--follow", "--nats", emb.URL, id)
	cmd.Dir = repo
	cmd.Env = []string{"OPENSEEK_TEST_MAIN=1", "HOME=" + home, "PATH=" + os.Getenv("PATH")}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var errb strings.Builder
	cmd.Stderr = &errb
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	first, err := bufio.NewReader(out).ReadString('\n') // head -1
	if err != nil || !strings.HasPrefix(first, `{"event":`) {
		t.Errorf("first line %q %v", first, err)
	}
	out.Close()
	err = cmd.Wait()
	var ee *exec.ExitError
	if err != nil && !errors.As(err, &ee) {
		t.Fatal(err)
	}
	if cmd.ProcessState.ExitCode() != 0 || errb.String() != "" {
		t.Errorf("tasks logs into a closed pipe: exit %d, stderr %q", cmd.ProcessState.ExitCode(), errb.String())
	}
}
