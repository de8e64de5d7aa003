package tui

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"

	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/internal/tool/search"
)

// @ mentions: "@" and part of a path completes from the workspace's files
// as the search tools see them (.gitignore honoured, no hidden files), and
// the files mentioned in a prompt go to the model with it: their paths and
// contents appended as context, within bounds.

const (
	mentionFiles    = 50_000   // files listed for completion at most
	mentionMatches  = 50       // completions offered at most
	mentionFileMax  = 64 << 10 // bytes of one file sent at most
	mentionTotalMax = 256 << 10
)

type filesMsg struct {
	root  string
	paths []string
}

// loadFiles lists the workspace's files off the UI's goroutine.
func (m *Model) loadFiles() tea.Cmd {
	root, ctx := m.opts.FilesRoot, m.ctx
	return func() tea.Msg {
		paths, _ := search.Files(ctx, root, mentionFiles)
		return filesMsg{root: root, paths: paths}
	}
}

func (m *Model) onFiles(f filesMsg) {
	m.filesLoading = false
	if f.root == m.opts.FilesRoot {
		m.files = f.paths
	}
}

// wantFiles starts listing the files when the input begins a mention and
// the list is not there yet.
func (m *Model) wantFiles() tea.Cmd {
	if m.opts.FilesRoot == "" || m.files != nil || m.filesLoading {
		return nil
	}
	if _, ok := mentionToken(m.input.Value()); !ok {
		return nil
	}
	m.filesLoading = true
	return m.loadFiles()
}

// mentionToken is the partial path of an "@" that ends the input.
func mentionToken(v string) (string, bool) {
	i := strings.LastIndexAny(v, " \t\n")
	tok := v[i+1:]
	if !strings.HasPrefix(tok, "@") {
		return "", false
	}
	return tok[1:], true
}

// mentionMenu offers the files that match the "@" being typed: names that
// start with it first, then paths that start with it, then paths that
// contain it (case ignored).
func (m *Model) mentionMenu(v string) *menu {
	q, ok := mentionToken(v)
	if !ok || m.files == nil {
		return nil
	}
	q = strings.ToLower(q)
	var name, prefix, rest []string
	for _, p := range m.files {
		lp := strings.ToLower(p)
		switch {
		case strings.HasPrefix(strings.ToLower(path.Base(p)), q):
			name = append(name, p)
		case strings.HasPrefix(lp, q):
			prefix = append(prefix, p)
		case strings.Contains(lp, q):
			rest = append(rest, p)
		}
		if len(name) >= mentionMatches {
			break
		}
	}
	found := append(append(name, prefix...), rest...)
	found = found[:min(len(found), mentionMatches)]
	mu := &menu{items: make([]menuItem, len(found))}
	for i, p := range found {
		mu.items[i] = menuItem{label: "@" + p}
	}
	mu.complete = func(i int) {
		m.input.SetValue(v[:len(v)-len(q)-1] + "@" + found[i] + " ")
	}
	mu.enter = func(i int) tea.Cmd {
		mu.complete(i)
		return nil
	}
	return mu
}

// withMentions appends the files text mentions to it, for the model; the
// names of the files attached are returned for the transcript.
func (m *Model) withMentions(text string) (string, []string) {
	if m.opts.FilesRoot == "" || !strings.Contains(text, "@") {
		return text, nil
	}
	if m.files == nil {
		m.onFiles((m.loadFiles()()).(filesMsg)) // sent before the list arrived
	}
	var b strings.Builder
	var names []string
	total := 0
	for _, f := range strings.Fields(text) {
		p, ok := strings.CutPrefix(f, "@")
		p = strings.TrimRight(p, ",.;:!?)\"'")
		if !ok || p == "" || slices.Contains(names, p) {
			continue
		}
		if _, found := slices.BinarySearch(m.files, p); !found {
			continue
		}
		body, note := readMention(m.opts.FilesRoot, p, min(mentionFileMax, mentionTotalMax-total))
		total += len(body)
		names = append(names, p)
		fmt.Fprintf(&b, "\n\n<file path=%q>\n%s</file>", p, body)
		if note != "" {
			fmt.Fprintf(&b, "\n(%s)", note)
		}
	}
	if len(names) == 0 {
		return text, nil
	}
	return text + mentionHead + b.String(), names
}

// mentionHead starts the files a prompt carries.
const mentionHead = "\n\nThe files mentioned above, as they are now:"

// shownText is a prompt as the user typed it: the files it carried are
// named, not shown (a resumed session, an applied steer).
func shownText(s string) string {
	text, files, ok := strings.Cut(s, mentionHead)
	if !ok {
		return s
	}
	var names []string
	for _, l := range strings.Split(files, "\n") {
		if rest, ok := strings.CutPrefix(l, "<file path="); ok {
			if name, err := strconv.Unquote(strings.TrimSuffix(rest, ">")); err == nil {
				names = append(names, name)
			}
		}
	}
	return text + "\n[attached " + strings.Join(names, ", ") + "]"
}

// readMention reads up to limit bytes of a workspace file; it cannot leave
// the workspace (os.Root refuses a path or link that would).
func readMention(root, p string, limit int) (string, string) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return "", "unreadable: " + err.Error()
	}
	defer r.Close()
	f, err := r.Open(p)
	if err != nil {
		return "", "unreadable: " + err.Error()
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return "", "not a regular file"
	}
	data, err := io.ReadAll(io.LimitReader(f, int64(max(limit, 0))))
	if err != nil {
		return "", "unreadable: " + err.Error()
	}
	if bytes.IndexByte(data, 0) >= 0 {
		return "", "a binary file: contents left out"
	}
	body := string(data)
	if body != "" && !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	if int64(len(data)) < fi.Size() {
		return body, fmt.Sprintf("first %d of %d bytes shown; read the file for the rest", len(data), fi.Size())
	}
	return body, ""
}
