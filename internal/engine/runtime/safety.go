package runtime

import (
	"context"
	"crypto/rand"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/openseek/openseek/internal/beneath"
	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/policy"
	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/secretfile"
	"github.com/openseek/openseek/internal/session"
	"github.com/openseek/openseek/internal/trust"
	"github.com/openseek/openseek/protocol"
)

// ErrNoSandbox explains why the engine refuses to start when the kernel
// cannot enforce the sandbox and the user did not choose to run without.
type ErrNoSandbox struct{ Problems []string }

func (e *ErrNoSandbox) Error() string {
	return "the OS sandbox cannot be enforced here: " + strings.Join(e.Problems, "; ") +
		". Commands would run with your full permissions; to accept that, pass --no-sandbox (or set OPENSEEK_SANDBOX=off)."
}

// configFiles are the user's and the project's config files, lowest
// precedence first.
func (e *Engine) configFiles() []string { return ConfigFiles(e.opts.Home, e.opts.Dir) }

// ConfigFiles are the user's and the project's config files, lowest
// precedence first (the files commands may never write).
func ConfigFiles(home, dir string) []string {
	return []string{
		filepath.Join(home, ".openseek", "config.toml"),
		filepath.Join(dir, ".openseek", "config.toml"),
	}
}

// setupSafety builds the permission guard for the tool environment and
// hands it the sandbox startSandbox set up. A rules file that does not
// parse stops the start.
func (e *Engine) setupSafety() error {
	mode, err := policy.ParseMode(e.opts.Approval)
	if err != nil {
		return err
	}
	secrets, err := e.secretFiles()
	if err != nil {
		return err
	}
	pol := &policy.Policy{Mode: mode, Rules: e.opts.Rules, Workspace: e.opts.Dir, Protected: e.configFiles(),
		// With an allowlist the sandbox's proxy decides, so commands
		// that use the network are not asked about (and run outside).
		Sandboxed: e.sandboxPolicy != nil, Network: e.sandboxPolicy != nil && (e.sandboxPolicy.Network || e.netProxy != nil), Secrets: secrets}
	pol.Pin() // now, before any command of the session can rename a protected directory
	guard := &policy.Guard{Policy: pol}
	if getenvOr(e.opts.Getenv, "OPENSEEK_SNAPSHOTS") != "off" {
		guard.Snapshot = e.commandSnapshot
	}
	if mode.Asks() {
		e.broker = policy.NewBroker(e.recordApproval)
		guard.Broker = e.broker
		if e.netProxy != nil {
			e.netProxy.SetAsk(e.askNetwork)
		}
	}
	e.env.Guard, e.guard = guard, guard

	e.withheld = e.secrets()
	e.env.Secrets = e.withheld
	if e.sandboxPolicy != nil {
		e.env.Sandbox = e.sandboxPolicy
	}
	return nil
}

// startSandbox works out the sandbox commands will run in and starts
// building it — its helper, probed with a command — so that the build
// runs while the rest of the engine is set up; New waits for the outcome
// before the session starts. Nothing is built when the user chose to run
// without (full-access mode, --no-sandbox, [sandbox] enabled = false).
func (e *Engine) startSandbox() error {
	mode, err := policy.ParseMode(e.opts.Approval)
	if err != nil {
		return err
	}
	sc, err := e.sandboxConfig()
	if err != nil {
		return err
	}
	if mode == policy.ModeFullAccess || e.opts.NoSandbox || (sc.Enabled != nil && !*sc.Enabled) {
		return nil
	}
	sp := sandbox.DefaultPolicy(e.opts.Dir)
	sp.Network = e.opts.Network || sc.Network.all
	if !sp.Network {
		px, err := e.newNetProxy(sc.Network.hosts)
		if err != nil {
			return err
		}
		if px != nil {
			e.netProxy, sp.Proxy = px, px
		}
	}
	// Plan mode's promise is kept by the sandbox, not by judging commands.
	sp.ReadOnlyWorkspace = mode == policy.ModePlan
	for _, f := range e.configFiles() {
		if filepath.IsAbs(f) { // no home known: no user config to keep
			sp.ReadOnly = append(sp.ReadOnly, f)
		}
	}
	sp.AllowEnv = append(sp.AllowEnv, sc.AllowEnv...)
	if sp.Secrets, err = e.secretFiles(); err != nil {
		return err
	}
	// The session's own sandbox helper: its commands share a private
	// /tmp that no other session of this process sees; Close ends it.
	sp.Session = rand.Text()
	for _, r := range sc.WritableRoots {
		if strings.HasPrefix(r, "~/") {
			r = filepath.Join(e.opts.Home, r[2:])
		}
		if !filepath.IsAbs(r) {
			return fmt.Errorf("%s: sandbox.writable_roots: %q is not an absolute path", e.configFiles()[0], r)
		}
		sp.WritableRoots = append(sp.WritableRoots, r)
	}
	// Where a sandbox of this shape was built before, by this program on
	// this kernel (sandboxMark), the build itself is the test: no probes,
	// New does not wait, the build starts once the first request is on
	// its way (afterFirstRequest) so that it does not compete with the
	// start for the processor, and the first turn's gate waits for it
	// before any tool or check runs — ending the turn with ErrNoSandbox
	// if it failed, and forgetting the mark. Elsewhere the kernel's probes
	// (a few milliseconds: a process in new namespaces) say what is
	// missing, and since they can pass while the sandbox still cannot be
	// built (an ordinary user once got "ok" and no command ran), New waits
	// for the build and refuses to start without it.
	mark := sandboxMark(e.opts.Home, sp)
	seen := mark.seen()
	if !seen {
		if problems := sandbox.Detect().Problems(sp); len(problems) > 0 {
			return &ErrNoSandbox{Problems: problems}
		}
	}
	ready := make(chan error, 1)
	build := func() {
		go func() {
			err := prepareSandbox(sp)
			mark.record(err == nil)
			ready <- err
		}()
	}
	e.sandboxReady = ready
	e.sandboxPolicy = &sp
	if seen {
		e.sandboxBuild = build
	} else {
		build()
	}
	return nil
}

// Sandbox is the sandbox the session's commands run in, built (nil: none,
// as the user chose), or why it could not be built. A program that runs a
// command for the session beside its tools (a fleet task's verify
// command) runs it there.
func (e *Engine) Sandbox() (*sandbox.Policy, error) {
	if err := e.waitSandbox(); err != nil {
		return nil, err
	}
	return e.sandboxPolicy, nil
}

// startSandboxBuild starts the build startSandbox left for later, once.
func (e *Engine) startSandboxBuild() {
	if e.sandboxBuild != nil && e.sandboxStarted.CompareAndSwap(false, true) {
		e.sandboxBuild()
	}
}

// afterFirstRequest is a provider that calls then once its first request
// is answered (its first delta, or its end).
type afterFirstRequest struct {
	llm.Provider
	then func()
}

func (p *afterFirstRequest) Stream(ctx context.Context, req llm.Request, on func(llm.Delta)) (*llm.Response, error) {
	resp, err := p.Provider.Stream(ctx, req, func(d llm.Delta) {
		p.then()
		on(d)
	})
	p.then()
	return resp, err
}

// prepareSandbox builds a policy's sandbox and runs a command in it
// (sandbox.Policy.Prepare); tests replace it.
var prepareSandbox = sandbox.Policy.Prepare

// waitSandbox waits for the sandbox's first build startSandbox began, if
// any, once; its error is an ErrNoSandbox, kept for every later call.
func (e *Engine) waitSandbox() error {
	e.startSandboxBuild()
	e.sandboxOnce.Do(func() {
		if e.sandboxReady == nil {
			return
		}
		if err := <-e.sandboxReady; err != nil {
			e.sandboxErr = &ErrNoSandbox{Problems: []string{"Building the sandbox and running a command in it failed: " + err.Error()}}
		}
	})
	return e.sandboxErr
}

// markFile remembers that a sandbox was built (startSandbox): its
// content names what the build depended on, and any change makes the
// next start wait for the build again.
type markFile struct{ path, key string }

// sandboxMark is the mark for sp under home (~/.openseek/run/sandbox-ok):
// the kernel's release, this program (path, size, modification time),
// the user and the policy's shape. Without a home there is none.
func sandboxMark(home string, sp sandbox.Policy) markFile {
	if home == "" {
		return markFile{}
	}
	exe, err := os.Executable()
	if err != nil {
		return markFile{}
	}
	fi, err := os.Stat(exe)
	if err != nil {
		return markFile{}
	}
	release, _ := os.ReadFile("/proc/sys/kernel/osrelease")
	key := fmt.Sprintf("openseek sandbox built: kernel %s, program %s (%d bytes, %d), uid %d, network %v, proxy %v, read-only workspace %v\n",
		strings.TrimSpace(string(release)), exe, fi.Size(), fi.ModTime().UnixNano(), os.Getuid(), sp.Network, sp.Proxy != nil, sp.ReadOnlyWorkspace)
	return markFile{path: filepath.Join(home, ".openseek", "run", "sandbox-ok"), key: key}
}

// seen reports whether the mark says a sandbox like this was built.
func (m markFile) seen() bool {
	if m.path == "" {
		return false
	}
	b, err := os.ReadFile(m.path)
	return err == nil && string(b) == m.key
}

// record keeps the mark after a build that worked and removes it after
// one that failed. It is only a hint: a failure to write it is ignored.
func (m markFile) record(ok bool) {
	if m.path == "" {
		return
	}
	if !ok {
		_ = os.Remove(m.path)
		return
	}
	if m.seen() {
		return
	}
	if err := os.MkdirAll(filepath.Dir(m.path), 0o700); err != nil {
		return
	}
	_ = beneath.WriteFile(m.path, []byte(m.key), 0o600)
}

// secrets are the credentials this process holds — every provider's key
// variables (built in and configured), anything named like a secret, keys
// written in config files, --api-key and whatever key the model's client
// sends (an api_key_command's output) — so commands get none of them and
// tool output shows none.
func (e *Engine) secrets() *sandbox.Secrets {
	getenv := e.opts.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	var names []string
	values := append([]string(nil), e.keys...) // api_key_command's too
	if e.opts.APIKey != "" {
		values = append(values, e.opts.APIKey)
	}
	names = e.opts.Config.KeyVariables()
	values = append(values, e.opts.Config.LiteralKeys()...)
	for _, n := range names {
		if v := getenv(n); v != "" {
			values = append(values, v)
		}
	}
	return sandbox.SecretsFromEnv(os.Environ(), names, values)
}

// LoadRules reads the user's and the project's command rules. A
// repository's allow rules would let its own commands run unasked, so
// they count only once the user trusted its config (openseek trust, or
// trustWorkspace); its ask and deny rules always count. dropped is how
// many allow rules were left out.
func LoadRules(home, dir string, trustWorkspace bool) (rules []policy.Rule, dropped int, err error) {
	files := ConfigFiles(home, dir)
	user, err := policy.LoadRules(files[0])
	if err != nil {
		return nil, 0, err
	}
	project, err := policy.LoadRules(files[1])
	if err != nil {
		return nil, 0, err
	}
	if trustWorkspace || trust.Open(home).Trusted(files[1]) {
		return append(user, project...), 0, nil
	}
	for _, r := range project {
		if r.Decision == policy.Allow {
			dropped++
			continue
		}
		user = append(user, r)
	}
	return user, dropped, nil
}

// sandboxConfig is the [sandbox] table of the user's config file:
//
//	[sandbox]
//	enabled = false                 # run commands unsandboxed (an explicit choice)
//	network = true                  # let sandboxed commands use the network
//	writable_roots = ["~/.gradle"]  # more directories commands may write in
//	allow_env = ["GITHUB_TOKEN"]    # secret-looking variables to pass anyway
//
// Only the user's own file may change the sandbox: a repository's
// .openseek/config.toml could otherwise switch it off for whoever runs
// the agent there, so the config loader leaves a [sandbox] table there out
// and reports it (the sandbox keys are "never" in config.Keys).
type sandboxConfig struct {
	Enabled       *bool          `toml:"enabled"`
	Network       networkSetting `toml:"network"`
	WritableRoots []string       `toml:"writable_roots"`
	AllowEnv      []string       `toml:"allow_env"`
}

// filesConfig is the [files] table of the user's config file:
//
//	[files]
//	allow_secrets = ["config/dev.env", "certs/*.pem"]  # secret files the model may use
//
// Only the user's own file may allow secret files (config.Keys: a
// repository's config could otherwise hand its owner the credentials of
// whoever runs the agent there, trusted or not).
type filesConfig struct {
	AllowSecrets []string `toml:"allow_secrets"`
}

// secretFiles are the session's secret-file rules (package secretfile).
func (e *Engine) secretFiles() (*secretfile.Rules, error) {
	var fc filesConfig
	if err := e.opts.Config.Section("files", &fc); err != nil {
		return nil, err
	}
	r := &secretfile.Rules{Allow: fc.AllowSecrets}
	if p, ok := r.Validate(); !ok {
		return nil, fmt.Errorf("%s: files.allow_secrets: %q is not a pattern relative to the workspace", e.configFiles()[0], p)
	}
	return r, nil
}

func (e *Engine) sandboxConfig() (sandboxConfig, error) {
	var sc sandboxConfig
	return sc, e.opts.Config.Section("sandbox", &sc)
}

// ResolveApproval answers an approval_requested question (reason: the
// user's word on a rejection, for the model). An unknown id is an error
// and approves nothing.
func (e *Engine) ResolveApproval(id string, allow, remember bool, reason string) error {
	if e.broker == nil {
		return fmt.Errorf("no approval request with id %s is pending (approvals are asked only with --approval auto or ask)", id)
	}
	return e.broker.Resolve(id, policy.Answer{Allow: allow, Remember: remember, Reason: reason})
}

// recordApproval keeps an approval question or answer in the session log
// (a marker the model never sees, which the viewer and a resumed session
// show), then emits it.
func (e *Engine) recordApproval(ev protocol.Event) {
	if e.log != nil {
		if _, err := e.log.Append(&session.Notice{Content: session.ApprovalMarker(ev)}); err != nil {
			e.opts.Emit(protocol.SessionError{Error: err.Error()})
		}
	}
	e.opts.Emit(ev)
}
