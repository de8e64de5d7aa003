package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"time"
	"unicode/utf16"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"github.com/openseek/openseek/internal/sandbox"
)

// published is the latest diagnostics a server sent for one file.
type published struct {
	seq   uint64 // order of arrival, per client
	diags []protocol.Diagnostic
}

// doc is a file the server has open: what it was told the text is.
type doc struct {
	version int32
	text    string
	lang    string
}

// client is one running language server.
type client struct {
	spec  Spec
	root  string
	ready chan struct{} // closed once initialized, or once start failed
	gone  chan struct{} // closed when the process has exited

	conn   jsonrpc2.Conn // set before ready is closed
	stderr *tail
	// life ends when the server exits or is closed; every wait on the
	// server stops with it.
	life context.Context
	end  context.CancelFunc

	opMu sync.Mutex      // one document operation at a time
	docs map[string]*doc // under opMu

	mu     sync.Mutex
	cmd    *exec.Cmd
	err    error // why the server is unusable
	diags  map[string]published
	seq    uint64
	notify chan struct{} // closed and replaced on every publish
}

func newClient(spec Spec, root string) *client {
	life, end := context.WithCancel(context.Background())
	return &client{
		life: life, end: end,
		spec: spec, root: root,
		ready: make(chan struct{}), gone: make(chan struct{}),
		stderr: &tail{max: 2048},
		docs:   map[string]*doc{}, diags: map[string]published{},
		notify: make(chan struct{}),
	}
}

// unusable marks a client that never starts, with why.
func (c *client) unusable(err error) {
	c.setErr(err)
	close(c.ready)
	close(c.gone)
	c.end()
}

// failure is why the server cannot be used, or nil.
func (c *client) failure() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *client) setErr(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.err == nil {
		c.err = err
	}
}

// pipes is the server's stdout (read) and stdin (write) as one stream.
type pipes struct {
	io.Reader
	io.WriteCloser
	r io.Closer
}

func (p pipes) Close() error {
	return errors.Join(p.WriteCloser.Close(), p.r.Close())
}

// start launches program and initializes the server, within initTimeout.
func (c *client) start(program string, initTimeout time.Duration, sb *sandbox.Policy) {
	defer close(c.ready)
	inR, inW, err := os.Pipe()
	if err != nil {
		c.setErr(err)
		close(c.gone)
		return
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		inR.Close()
		inW.Close()
		c.setErr(err)
		close(c.gone)
		return
	}
	cmd := exec.Command(program, c.spec.Command[1:]...)
	cmd.Dir = c.root
	cmd.Stdin, cmd.Stdout, cmd.Stderr = inR, outW, c.stderr
	cmd.SysProcAttr = procAttr()
	var allow []string
	if sb != nil {
		allow = sb.AllowEnv
	}
	cmd.Env = sandbox.FilterEnv(os.Environ(), allow) // no API keys for servers
	if sb != nil {
		if err := sb.Wrap(cmd); err != nil {
			inR.Close()
			inW.Close()
			outR.Close()
			outW.Close()
			c.setErr(fmt.Errorf("start %s in the sandbox: %w", c.spec.Name, err))
			close(c.gone)
			return
		}
	}
	c.mu.Lock()
	if c.err != nil { // closed before it started
		c.mu.Unlock()
		inR.Close()
		inW.Close()
		outR.Close()
		outW.Close()
		close(c.gone)
		return
	}
	err = cmd.Start()
	if err == nil {
		c.cmd = cmd
	}
	c.mu.Unlock()
	inR.Close()
	outW.Close()
	if err != nil {
		inW.Close()
		outR.Close()
		c.setErr(fmt.Errorf("start %s: %w", c.spec.Name, err))
		close(c.gone)
		return
	}
	go func() {
		werr := cmd.Wait()
		c.setErr(fmt.Errorf("%s exited (%v)%s", c.spec.Name, werr, c.stderr.suffix()))
		c.end()
		close(c.gone)
	}()
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipes{Reader: outR, WriteCloser: inW, r: outR}))
	c.conn.Go(context.Background(), c.handle)

	ctx, cancel := context.WithTimeout(c.life, initTimeout)
	defer cancel()
	rootURI := uri.File(c.root)
	params := &protocol.InitializeParams{
		ProcessID:  int32(os.Getpid()),
		ClientInfo: &protocol.ClientInfo{Name: "openseek"},
		RootURI:    rootURI,
		RootPath:   c.root,
		Capabilities: protocol.ClientCapabilities{
			Workspace: &protocol.WorkspaceClientCapabilities{Configuration: true, WorkspaceFolders: true},
			TextDocument: &protocol.TextDocumentClientCapabilities{
				Synchronization:    &protocol.TextDocumentSyncClientCapabilities{DidSave: true},
				PublishDiagnostics: &protocol.PublishDiagnosticsClientCapabilities{VersionSupport: true},
			},
		},
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: string(rootURI), Name: filepath.Base(c.root)}},
	}
	var result json.RawMessage
	if _, err := c.conn.Call(ctx, protocol.MethodInitialize, params, &result); err != nil {
		if c.life.Err() != nil {
			return // exited or closed: the reason is already recorded
		}
		if errors.Is(err, context.DeadlineExceeded) {
			err = fmt.Errorf("no answer to initialize within %s", initTimeout)
		}
		c.setErr(fmt.Errorf("%s did not start: %w%s", c.spec.Name, err, c.stderr.suffix()))
		c.kill()
		return
	}
	if err := c.conn.Notify(ctx, protocol.MethodInitialized, &protocol.InitializedParams{}); err != nil {
		c.setErr(fmt.Errorf("%s did not start: %w", c.spec.Name, err))
		c.kill()
	}
}

// handle answers the server's requests and records its diagnostics. It
// never blocks the reading loop: replies are written from goroutines.
func (c *client) handle(ctx context.Context, reply jsonrpc2.Replier, req jsonrpc2.Request) error {
	var result any
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p protocol.PublishDiagnosticsParams
		if json.Unmarshal(req.Params(), &p) == nil {
			c.publish(p)
		}
		return nil
	case protocol.MethodWorkspaceConfiguration:
		var p protocol.ConfigurationParams
		_ = json.Unmarshal(req.Params(), &p)
		result = make([]any, len(p.Items)) // every section: the server's defaults
	case protocol.MethodWorkspaceWorkspaceFolders:
		result = []protocol.WorkspaceFolder{{URI: string(uri.File(c.root)), Name: filepath.Base(c.root)}}
	case protocol.MethodClientRegisterCapability, protocol.MethodClientUnregisterCapability,
		protocol.MethodWorkDoneProgressCreate, protocol.MethodWindowShowMessageRequest:
		result = nil
	default:
		if _, ok := req.(*jsonrpc2.Call); !ok {
			return nil // notifications we do not use (logs, progress)
		}
		go reply(ctx, nil, jsonrpc2.NewError(jsonrpc2.MethodNotFound, "openseek does not handle "+req.Method()))
		return nil
	}
	if _, ok := req.(*jsonrpc2.Call); ok {
		go reply(ctx, result, nil)
	}
	return nil
}

func (c *client) publish(p protocol.PublishDiagnosticsParams) {
	path := filepath.Clean(uri.URI(p.URI).Filename())
	c.mu.Lock()
	defer c.mu.Unlock()
	c.seq++
	c.diags[path] = published{seq: c.seq, diags: p.Diagnostics}
	close(c.notify)
	c.notify = make(chan struct{})
}

// bound is ctx that also ends when the server does.
func (c *client) bound(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	stop := context.AfterFunc(c.life, cancel)
	return ctx, func() { stop(); cancel() }
}

// mark is the sequence number of the last publish so far.
func (c *client) mark() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.seq
}

// await waits until every path has diagnostics published after mark, then
// until the server has been quiet for quiet; false when ctx ended first.
func (c *client) await(ctx context.Context, paths []string, mark uint64, quiet time.Duration) bool {
	for {
		c.mu.Lock()
		all := true
		for _, p := range paths {
			if c.diags[p].seq <= mark {
				all = false
				break
			}
		}
		notify, err := c.notify, c.err
		c.mu.Unlock()
		if all {
			break
		}
		if err != nil {
			return false
		}
		select {
		case <-notify:
		case <-ctx.Done():
			return false
		}
	}
	// More may follow (a second pass, other files of the package).
	for {
		c.mu.Lock()
		notify := c.notify
		c.mu.Unlock()
		t := time.NewTimer(quiet)
		select {
		case <-notify:
			t.Stop()
		case <-t.C:
			return true
		case <-ctx.Done():
			t.Stop()
			return true
		}
	}
}

// snapshot copies the current diagnostics, by path.
func (c *client) snapshot() map[string][]protocol.Diagnostic {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make(map[string][]protocol.Diagnostic, len(c.diags))
	for p, d := range c.diags {
		out[p] = d.diags
	}
	return out
}

// sync tells the server the current disk content of paths: didOpen for
// a new file, didChange (+didSave) for a changed one, didClose for a
// removed one. It returns the paths whose diagnostics will be
// republished.
func (c *client) sync(ctx context.Context, paths []string) ([]string, error) {
	c.opMu.Lock()
	defer c.opMu.Unlock()
	var changed []string
	for _, p := range paths {
		b, rerr := os.ReadFile(p)
		text := string(b)
		d := c.docs[p]
		u := uri.File(p)
		var err error
		switch {
		case rerr != nil && d != nil:
			delete(c.docs, p)
			err = c.conn.Notify(ctx, protocol.MethodTextDocumentDidClose, &protocol.DidCloseTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
		case rerr != nil:
		case d == nil:
			lang := c.spec.language(p)
			c.docs[p] = &doc{version: 1, text: text, lang: lang}
			changed = append(changed, p)
			err = c.conn.Notify(ctx, protocol.MethodTextDocumentDidOpen, &protocol.DidOpenTextDocumentParams{
				TextDocument: protocol.TextDocumentItem{URI: u, LanguageID: protocol.LanguageIdentifier(lang), Version: 1, Text: text},
			})
		case d.text != text:
			// The whole old text is replaced: go.lsp.dev/protocol always
			// writes a range, so it spans the old document exactly.
			old := d.text
			d.version++
			d.text = text
			changed = append(changed, p)
			err = c.conn.Notify(ctx, protocol.MethodTextDocumentDidChange, &protocol.DidChangeTextDocumentParams{
				TextDocument:   protocol.VersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: u}, Version: d.version},
				ContentChanges: []protocol.TextDocumentContentChangeEvent{{Range: protocol.Range{End: endOf(old)}, Text: text}},
			})
			if err == nil {
				err = c.conn.Notify(ctx, protocol.MethodTextDocumentDidSave, &protocol.DidSaveTextDocumentParams{TextDocument: protocol.TextDocumentIdentifier{URI: u}})
			}
		}
		if err != nil {
			return changed, err
		}
	}
	return changed, nil
}

// endOf is the LSP position just past the end of text (UTF-16 columns).
func endOf(text string) protocol.Position {
	line := strings.Count(text, "\n")
	last := text[strings.LastIndexByte(text, '\n')+1:]
	return protocol.Position{Line: uint32(line), Character: uint32(len(utf16.Encode([]rune(last))))}
}

// close asks the server to shut down, then kills its process group.
func (c *client) close(grace time.Duration) {
	c.setErr(errors.New(c.spec.Name + " was shut down"))
	select {
	case <-c.ready:
	default:
		c.end() // still starting: no polite way out
		c.kill()
		<-c.ready
	}
	if c.conn != nil {
		ctx, cancel := context.WithTimeout(context.Background(), grace)
		done := make(chan struct{})
		go func() {
			defer close(done)
			if _, err := c.conn.Call(ctx, protocol.MethodShutdown, nil, nil); err == nil {
				_ = c.conn.Notify(ctx, protocol.MethodExit, nil)
			}
		}()
		select {
		case <-c.gone:
		case <-ctx.Done():
		case <-done:
			select {
			case <-c.gone:
			case <-ctx.Done():
			}
		}
		cancel()
	}
	c.end()
	c.kill()
	select {
	case <-c.gone:
	case <-time.After(5 * time.Second):
	}
	if c.conn != nil {
		c.conn.Close()
	}
}

// kill ends the server's process group.
func (c *client) kill() {
	c.mu.Lock()
	cmd := c.cmd
	c.mu.Unlock()
	if cmd != nil {
		killGroup(cmd)
	}
}

// tail keeps the last max bytes written (a server's stderr).
type tail struct {
	mu  sync.Mutex
	max int
	b   []byte
}

func (t *tail) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append([]byte(nil), t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

// suffix is ": <last stderr line>" or "".
func (t *tail) suffix() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	s := strings.TrimSpace(string(t.b))
	if s == "" {
		return ""
	}
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	return ": " + s
}
