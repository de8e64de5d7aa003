package lsp

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"go.lsp.dev/protocol"

	"github.com/openseek/openseek/internal/sandbox"
	"github.com/openseek/openseek/internal/tool"
)

// Defaults of Options.
const (
	DefaultWait        = 1500 * time.Millisecond
	DefaultInitTimeout = 60 * time.Second
	// quiet is how long a server must stay silent after its first answer
	// to a change before the diagnostics count as settled.
	quiet = 150 * time.Millisecond
)

// Options configure a Manager; zero values take the defaults.
type Options struct {
	// Wait bounds how long a change waits for diagnostics (the baseline
	// waits at most half of it).
	Wait time.Duration
	// InitTimeout bounds a server's start; one that does not answer
	// initialize in time is killed and not started again this session.
	InitTimeout time.Duration
	Specs       []Spec // nil = DefaultSpecs
	Home        string // where to look for ~/go/bin and friends
	// Sandbox confines the servers as it does shell commands (they read
	// the workspace and may run its build tooling); nil runs them as is.
	Sandbox *sandbox.Policy
}

// Manager owns the language servers of one workspace. It implements
// tool.Diagnostics; its methods are safe for concurrent use.
type Manager struct {
	root string
	opts Options

	mu      sync.Mutex
	clients map[string]*client // by spec name, started or failed
	closed  bool
}

// New returns a manager for the workspace root; no server starts until a
// file of its language changes (or Warm is called).
func New(root string, o Options) *Manager {
	if o.Wait <= 0 {
		o.Wait = DefaultWait
	}
	if o.InitTimeout <= 0 {
		o.InitTimeout = DefaultInitTimeout
	}
	if o.Specs == nil {
		o.Specs = DefaultSpecs()
	}
	return &Manager{root: root, opts: o, clients: map[string]*client{}}
}

// clientFor returns the server for path's language, starting it when its
// program is installed; nil when there is none.
func (m *Manager) clientFor(path string) *client {
	for _, spec := range m.opts.Specs {
		if spec.language(path) == "" {
			continue
		}
		m.mu.Lock()
		defer m.mu.Unlock()
		if m.closed {
			return nil
		}
		if c, ok := m.clients[spec.Name]; ok {
			return c
		}
		program, err := lookPath(spec.Command[0], m.opts.Home)
		if err != nil {
			return nil // not installed: the language goes unchecked, silently
		}
		c := newClient(spec, m.root)
		m.clients[spec.Name] = c
		if sb := m.opts.Sandbox; sb != nil {
			if dir := sb.Hides(program); dir != "" {
				// Sandboxed, the server would not find its own program:
				// say so in every report instead of a failed start.
				c.unusable(fmt.Errorf("diagnostics are off: the language server %s is installed under %s, which the sandbox hides from the commands it runs; install it elsewhere (for example `go install golang.org/x/tools/gopls@latest` puts gopls in ~/go/bin)", program, dir))
				return c
			}
		}
		go c.start(program, m.opts.InitTimeout, m.opts.Sandbox)
		return c
	}
	return nil
}

// Warm starts the server for path's language and waits until it is ready
// or ctx ends. It reports why the server cannot be used, if so.
func (m *Manager) Warm(ctx context.Context, path string) error {
	c := m.clientFor(path)
	if c == nil {
		return fmt.Errorf("no language server is installed for %s", filepath.Base(path))
	}
	select {
	case <-c.ready:
		return c.failure()
	case <-ctx.Done():
		return ctx.Err()
	}
}

// group maps each server to the paths of its language.
func (m *Manager) group(paths []string) (map[*client][]string, []*client) {
	groups := map[*client][]string{}
	var order []*client
	for _, p := range paths {
		c := m.clientFor(p)
		if c == nil {
			continue
		}
		if _, ok := groups[c]; !ok {
			order = append(order, c)
		}
		groups[c] = append(groups[c], filepath.Clean(p))
	}
	return groups, order
}

// watch is one server's part of a change.
type watch struct {
	c      *client
	paths  []string
	before map[string][]protocol.Diagnostic
	note   string // why it cannot be compared; "" when the baseline is good
}

// Before implements tool.Diagnostics: it syncs paths with their servers
// and notes their diagnostics before the change (waiting at most Wait/2).
func (m *Manager) Before(ctx context.Context, paths []string) func(context.Context) tool.DiagnosticReport {
	groups, order := m.group(paths)
	if len(order) == 0 {
		return func(context.Context) tool.DiagnosticReport { return tool.DiagnosticReport{} }
	}
	ctx, cancel := context.WithTimeout(ctx, m.opts.Wait/2)
	defer cancel()
	watches := make([]*watch, len(order))
	var wg sync.WaitGroup
	for i, c := range order {
		w := &watch{c: c, paths: groups[c]}
		watches[i] = w
		wg.Add(1)
		go func() {
			defer wg.Done()
			w.before, w.note = bounded(ctx, w.baseline)
		}()
	}
	wg.Wait()
	return func(ctx context.Context) tool.DiagnosticReport { return m.after(ctx, watches) }
}

// bounded runs f but returns by ctx's end even when f is stuck (a server
// that stopped reading its input blocks writes); f then finishes when the
// server is killed.
func bounded(ctx context.Context, f func(context.Context) (snapshot, string)) (snapshot, string) {
	type result struct {
		snap snapshot
		note string
	}
	done := make(chan result, 1)
	go func() {
		s, n := f(ctx)
		done <- result{s, n}
	}()
	select {
	case r := <-done:
		return r.snap, r.note
	case <-ctx.Done():
		select {
		case r := <-done:
			return r.snap, r.note
		case <-time.After(50 * time.Millisecond):
			return nil, "no answer in time"
		}
	}
}

// snapshot is a server's diagnostics by path.
type snapshot = map[string][]protocol.Diagnostic

// baseline readies the server and records its diagnostics before the
// change; it returns why they cannot be trusted, or "".
func (w *watch) baseline(ctx context.Context) (snapshot, string) {
	c := w.c
	select {
	case <-c.ready:
	case <-ctx.Done():
		return nil, c.spec.Name + " is still starting"
	}
	if err := c.failure(); err != nil {
		return nil, err.Error()
	}
	return c.settle(ctx, w.paths)
}

// settle syncs paths and waits for the server's answer, then snapshots.
func (c *client) settle(ctx context.Context, paths []string) (snapshot, string) {
	ctx, stop := c.bound(ctx)
	defer stop()
	mark := c.mark()
	changed, err := c.sync(ctx, paths)
	if err != nil {
		return nil, fmt.Sprintf("%s: %v", c.spec.Name, err)
	}
	if len(changed) > 0 && !c.await(ctx, changed, mark, quiet) {
		return nil, notAnswered(c)
	}
	return c.snapshot(), ""
}

func notAnswered(c *client) string {
	if err := c.failure(); err != nil {
		return err.Error()
	}
	return c.spec.Name + " did not report in time"
}

// after tells the servers about the change and compares.
func (m *Manager) after(ctx context.Context, watches []*watch) tool.DiagnosticReport {
	ctx, cancel := context.WithTimeout(ctx, m.opts.Wait)
	defer cancel()
	type outcome struct {
		after map[string][]protocol.Diagnostic
		note  string
	}
	outs := make([]outcome, len(watches))
	var wg sync.WaitGroup
	for i, w := range watches {
		if w.note != "" {
			outs[i].note = w.note
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			snap, note := bounded(ctx, func(ctx context.Context) (snapshot, string) { return w.c.settle(ctx, w.paths) })
			outs[i] = outcome{after: snap, note: note}
		}()
	}
	wg.Wait()
	r := tool.DiagnosticReport{Checked: true}
	var notes []string
	for i, w := range watches {
		r.Servers = append(r.Servers, w.c.spec.Name)
		if outs[i].note != "" {
			r.Checked = false
			notes = append(notes, outs[i].note)
			continue
		}
		compare(&r, w.before, outs[i].after)
	}
	r.Note = strings.Join(notes, "; ")
	return r
}

// compare adds what changed between before and after to r.
func compare(r *tool.DiagnosticReport, before, after map[string][]protocol.Diagnostic) {
	key := func(path string, d protocol.Diagnostic) string {
		return path + "\x00" + code(d) + "\x00" + d.Message
	}
	left := map[string]int{}
	for path, ds := range before {
		for _, d := range ds {
			switch severity(d) {
			case "error":
				r.ErrorsBefore++
			case "warning":
				r.WarningsBefore++
			default:
				continue
			}
			left[key(path, d)]++
		}
	}
	paths := make([]string, 0, len(after))
	for p := range after {
		paths = append(paths, p)
	}
	slices.Sort(paths)
	for _, path := range paths {
		for _, d := range after[path] {
			sev := severity(d)
			switch sev {
			case "error":
				r.ErrorsAfter++
			case "warning":
				r.WarningsAfter++
			default:
				continue
			}
			if k := key(path, d); left[k] > 0 {
				left[k]--
				continue
			}
			r.Introduced = append(r.Introduced, tool.Diagnostic{
				Path: path, Line: int(d.Range.Start.Line) + 1, Column: int(d.Range.Start.Character) + 1,
				Severity: sev, Code: code(d), Source: d.Source, Message: d.Message,
			})
		}
	}
	for _, n := range left {
		r.Resolved += n
	}
}

func severity(d protocol.Diagnostic) string {
	switch d.Severity {
	case protocol.DiagnosticSeverityWarning:
		return "warning"
	case protocol.DiagnosticSeverityInformation:
		return "info"
	case protocol.DiagnosticSeverityHint:
		return "hint"
	}
	return "error" // unset counts as an error, as editors show it
}

func code(d protocol.Diagnostic) string {
	if d.Code == nil {
		return ""
	}
	return fmt.Sprint(d.Code)
}

// Close shuts every server down (politely, then by killing its process
// group) and waits for them; the manager starts nothing afterwards.
func (m *Manager) Close() error {
	m.mu.Lock()
	m.closed = true
	clients := make([]*client, 0, len(m.clients))
	for _, c := range m.clients {
		clients = append(clients, c)
	}
	m.clients = map[string]*client{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.close(time.Second)
		}()
	}
	wg.Wait()
	return nil
}

// Running names the servers started and not failed, for status displays.
func (m *Manager) Running() []string {
	m.mu.Lock()
	defer m.mu.Unlock()
	var names []string
	for name, c := range m.clients {
		select {
		case <-c.ready:
			if c.failure() == nil {
				names = append(names, name)
			}
		default:
		}
	}
	slices.Sort(names)
	return names
}

var _ tool.Diagnostics = (*Manager)(nil)
