package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// Try builds the sandbox p describes and runs a command in it (`true`, in
// the workspace), so a caller can tell for certain that sandboxed
// commands will run here rather than trusting [Detect]'s probes. The
// error carries the sandbox's own explanation.
func (p Policy) Try(ctx context.Context) error {
	path, err := exec.LookPath("true")
	if err != nil {
		path = "/bin/true"
	}
	cmd := exec.CommandContext(ctx, path)
	cmd.Dir = p.Workspace
	cmd.Env = FilterEnv(os.Environ(), p.AllowEnv)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	// The probe needs no caches, and must leave the workspace as it was.
	p.CacheDir = ""
	if err := p.Wrap(cmd); err != nil {
		return err
	}
	if err := cmd.Run(); err != nil {
		if msg := strings.TrimSpace(out.String()); msg != "" {
			return fmt.Errorf("%s (%v)", msg, err)
		}
		return fmt.Errorf("a command in the sandbox failed: %w", err)
	}
	return nil
}
