package engine

import (
	"context"
	"errors"
	"io"
	"net"

	"github.com/openseek/openseek/internal/agent"
	"github.com/openseek/openseek/internal/netproxy"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/prompt"
	"github.com/openseek/openseek/internal/session"
)

// Outcome is how a turn ended: what Session.Prompt returns.
type Outcome = agent.Outcome

// Ending is the class of an outcome a caller reports as a status (run's
// exit status and JSON result, a delegated run's result).
type Ending int

const (
	EndFinished    Ending = iota // the turn finished
	EndInterrupted               // interrupted (Ctrl-C, SIGTERM, a closed stdout, a cancelled parent)
	EndLimit                     // a limit: max steps, max cost, the context window, the loop guard
	EndModel                     // the model or provider failed after its retries
	EndRefused                   // the prompt was refused or the turn aborted
	EndFailed                    // any other failure (the project's check rejected the answer, …)
)

// EndingOf classifies out; the first that applies wins, in the order of
// the constants.
func EndingOf(out Outcome) Ending {
	switch {
	case out.Kind == session.Finished:
		return EndFinished
	case out.Kind == session.Interrupted:
		return EndInterrupted
	case out.Kind == session.MaxStepsExhausted, out.Kind == session.ContextYield, out.Cause == agent.CauseLimit:
		return EndLimit
	case out.Cause == agent.CauseModel:
		return EndModel
	case out.Kind == session.Aborted:
		return EndRefused
	}
	return EndFailed
}

// CheckApproval refuses a permission mode the host does not know, with
// the message a user reads.
func CheckApproval(mode string) error {
	_, err := policy.ParseMode(mode)
	return err
}

// ApprovalAsks reports whether permission mode asks a controller (auto,
// ask), which a face nobody answers must refuse.
func ApprovalAsks(mode string) bool { return policy.Mode(mode).Asks() }

// ReadPromptFile is the text of a system prompt file named by flag
// ("" for no file), with an error naming the flag.
func ReadPromptFile(path, flag string) (string, error) { return prompt.ReadFile(path, flag) }

// ProxyConnect tunnels in and out to host:port through the network proxy
// the environment names (ALL_PROXY, HTTPS_PROXY, HTTP_PROXY): ssh's
// ProxyCommand inside a sandbox whose network is an allowlist. It returns
// when the far end closes.
func ProxyConnect(ctx context.Context, getenv func(string) string, host, port string, in io.Reader, out io.Writer) error {
	proxy := netproxy.ProxyFromEnv(getenv)
	if proxy == "" {
		return errors.New("no proxy to tunnel through: ALL_PROXY, HTTPS_PROXY and HTTP_PROXY are unset (OpenSeek sets them for sandboxed commands when [sandbox] network lists hosts)")
	}
	conn, err := netproxy.Connect(ctx, proxy, net.JoinHostPort(host, port))
	if err != nil {
		return err
	}
	defer conn.Close()
	go func() {
		io.Copy(conn, in)
		if cw, ok := conn.(interface{ CloseWrite() error }); ok {
			cw.CloseWrite()
		}
	}()
	_, err = io.Copy(out, conn)
	return err
}
