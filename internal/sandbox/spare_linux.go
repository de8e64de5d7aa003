package sandbox

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"strings"

	"golang.org/x/sys/unix"
)

// A spare is a sandbox built before its command is known: [Main] sets up
// the namespaces, mounts, Landlock domain, capabilities and seccomp filter
// as for any command, then reports "ready" on the control socket at
// spareFD and waits there for one command (path, argv, environment,
// directory, and its stdin, stdout and stderr as file descriptors). It
// starts the command from the confined thread, reports "started", and
// from then on is the command's supervisor exactly as a cold sandbox is.
// The parent's side is in warm_linux.go.

// spareFD is the control socket's descriptor in a spare (its ExtraFiles[0]).
const spareFD = 3

// The spare's messages on the control socket (SOCK_SEQPACKET: one message
// each). A failure carries its reason after a NUL.
const (
	spareReady   = "ready"
	spareStarted = "started"
	spareFailed  = "fail"
)

// maxSpareRequest bounds a command handed to a spare; a bigger one (a
// huge heredoc) takes a cold sandbox instead.
const maxSpareRequest = 128 << 10

// spareMode is set in a spare once its payload is decoded.
var spareMode bool

// spareRequest is the command a spare runs.
type spareRequest struct {
	Path string   `json:"path"`
	Args []string `json:"args"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
}

// reportSpare sends one message to the parent; outside a spare it does
// nothing. The parent may be gone: there is nobody left to tell then.
func reportSpare(kind, detail string) {
	if !spareMode {
		return
	}
	msg := kind
	if detail != "" {
		msg += "\x00" + detail
	}
	_ = unix.Sendmsg(spareFD, []byte(msg), nil, nil, unix.MSG_NOSIGNAL)
}

// serveSpare runs in a spare whose sandbox is complete: it reports ready,
// waits for the command and supervises it. Like runChild it returns only
// on failure; a parent that hangs up without a command ends the spare.
func serveSpare(pol Policy, sigs <-chan os.Signal) error {
	reportSpare(spareReady, "")
	req, files, err := receiveCommand()
	if err != nil {
		return err
	}
	if err := os.Chdir(req.Dir); err != nil {
		for _, f := range files {
			f.Close()
		}
		return fmt.Errorf("chdir %s: %w", req.Dir, err)
	}
	started := false
	err = supervise(req.Path, req.Args, cacheEnv(req.Env, pol.CacheDir), files, func() {
		started = true
		// The command holds its own copies; the supervisor must not keep
		// its output pipe open past it.
		for _, f := range files {
			f.Close()
		}
		reportSpare(spareStarted, "")
		unix.Close(spareFD)
		spareMode = false
	}, sigs)
	if started {
		return err
	}
	// The command could not be started: say so where its output goes, as
	// a cold sandbox does, so both fail alike.
	fmt.Fprintf(files[2], "openseek sandbox: %v; the command was not run\n", err)
	for _, f := range files {
		f.Close()
	}
	reportSpare(spareStarted, "")
	os.Exit(exitSetupFailed)
	return nil
}

// receiveCommand waits on the control socket for the command and its
// three standard descriptors.
func receiveCommand() (spareRequest, []*os.File, error) {
	var req spareRequest
	buf := make([]byte, maxSpareRequest)
	oob := make([]byte, unix.CmsgSpace(3*4))
	var n, oobn int
	for {
		var err error
		n, oobn, _, _, err = unix.Recvmsg(spareFD, buf, oob, unix.MSG_CMSG_CLOEXEC)
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return req, nil, fmt.Errorf("receive the command: %w", err)
		}
		break
	}
	if n == 0 {
		os.Exit(0) // discarded before use
	}
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil || len(msgs) != 1 {
		return req, nil, errors.New("receive the command: no descriptors came with it")
	}
	fds, err := unix.ParseUnixRights(&msgs[0])
	if err != nil || len(fds) != 3 {
		for _, fd := range fds {
			unix.Close(fd)
		}
		return req, nil, errors.New("receive the command: want its stdin, stdout and stderr")
	}
	files := []*os.File{os.NewFile(uintptr(fds[0]), "stdin"), os.NewFile(uintptr(fds[1]), "stdout"), os.NewFile(uintptr(fds[2]), "stderr")}
	if err := json.Unmarshal(buf[:n], &req); err != nil || req.Path == "" || len(req.Args) == 0 {
		for _, f := range files {
			f.Close()
		}
		return req, nil, fmt.Errorf("receive the command: malformed request (%v)", err)
	}
	return req, files, nil
}

// parseSpareMessage splits a message into its kind and detail.
func parseSpareMessage(b []byte) (kind, detail string) {
	kind, detail, _ = strings.Cut(string(b), "\x00")
	return kind, detail
}
