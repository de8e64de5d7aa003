package engine

import (
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/openseek/openseek/internal/llm"
)

// Options configure a host (NewHost): the workspace and the choices of
// the run that every session of the host shares. Zero values mean the
// documented defaults.
type Options struct {
	Dir string // workspace root; must exist
	// Cwd is where the user started, inside Dir (shell commands start
	// there; the system prompt names it); "" = Dir.
	Cwd         string
	SessionRoot string // default ".openseek"; relative roots resolve under Dir
	IDPrefix    string // generated ids: <prefix>-YYYYMMDD-HHMMSS-mmm (default "cli")
	Holder      string // who writes the session, shown to a second writer

	Model  string // default deepseek-v4-flash
	APIKey string
	APIURL string // full chat-completions URL; any model name is accepted with it
	// Thinking is the reasoning knob the user chose: no, high or max; ""
	// = decided from the model (high for catalogue models, none for the
	// models of an arbitrary server, which may reject the knob).
	Thinking string
	MaxSteps int     // 0 = unbounded
	MaxCost  float64 // USD for the whole session (sub-agents included); 0 = no budget
	Window   int     // context window in tokens; 0 = the catalogue's, else agent.DefaultWindow

	SystemPrompt         string // replaces the built-in prompt when non-empty
	SystemPromptAddendum string

	Home            string // the user's home (default $HOME): ~/.openseek lives there
	GlobalSkillsDir string // default <Home>/.openseek/skills
	// TrustWorkspace trusts the repository's own .mcp.json and
	// .openseek/hooks.json for this run (see package trust).
	TrustWorkspace bool
	MCPConfig      string // --mcp-config: a file of MCP servers, trusted by being named

	// Approval is the permission mode: never (default), auto, ask, always, plan
	// or full-access (see package policy).
	Approval string
	// NoSandbox runs commands without the OS sandbox (an explicit choice);
	// Network lets sandboxed commands reach the network.
	NoSandbox, Network bool
	// NoVerify turns off the build check at the end of a turn that changed
	// files (--no-verify); VerifyTimeout overrides its timeout.
	NoVerify      bool
	VerifyTimeout time.Duration

	// Tools changes the built-in tool set: "+apply_patch,-multi_edit"
	// adds and removes, bare names are the exact set (see toolset.go).
	Tools string

	Retry      llm.RetryPolicy // zero = llm.DefaultRetry()
	HTTPClient *http.Client
	Getenv     func(string) string // default os.Getenv
}

// retryPolicy is the options' retry policy, else the default adjusted by
// OPENSEEK_RETRY_ATTEMPTS and OPENSEEK_RETRY_BACKOFF_MS.
func retryPolicy(o Options) llm.RetryPolicy {
	rp := o.Retry
	if rp.Attempts != 0 {
		return rp
	}
	getenv := o.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	rp = llm.DefaultRetry()
	if n, err := strconv.Atoi(getenv("OPENSEEK_RETRY_ATTEMPTS")); err == nil && n > 0 {
		rp.Attempts = n
	}
	if ms, err := strconv.Atoi(getenv("OPENSEEK_RETRY_BACKOFF_MS")); err == nil && ms >= 0 {
		rp.Base = time.Duration(ms) * time.Millisecond
		if rp.Max < rp.Base {
			rp.Max = rp.Base
		}
	}
	return rp
}
