// Package markdown is OpenSeek's one Markdown implementation: a parser
// for the CommonMark subset a model's answers use (plus GFM strikethrough,
// pipe tables and task lists; goldmark is its test oracle), rendered for
// a terminal (Terminal: styled, wrapped lines, as the terminal UI shows
// answers) and as HTML (HTML: what the web app and the session viewer
// show). Text from a model is untrusted: the terminal renderer drops
// control characters, the HTML renderer escapes everything and links only
// to http, https and mailto addresses.
package markdown

import "strings"

// Terminal renders markdown blocks for one colour scheme. Nothing in it
// depends on the width, so one serves every width.
type Terminal struct {
	th *mdTheme
}

// NewTerminal is a terminal renderer: plain without colour or styles,
// dark for a dark background.
func NewTerminal(plain, dark bool) *Terminal {
	return &Terminal{th: newMDTheme(plain, dark)}
}

// Render turns one markdown block into lines: a margin of two cells on
// the left, wrapped to leave two on the right.
func (r *Terminal) Render(src string, width int) []string {
	doc := parseMarkdown(sanitize(src))
	w := mdRender{th: r.th}
	lines := w.blocks(doc, max(width-4, 10), 0, true)
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	for i, l := range lines {
		if l != "" {
			lines[i] = "  " + l
		}
	}
	return lines
}

// sanitize drops control characters other than tab and newline: text
// from a model must not move the cursor or restyle the terminal.
func sanitize(s string) string {
	clean := true
	for _, r := range s {
		if isControl(r) {
			clean = false
			break
		}
	}
	if clean {
		return s
	}
	return strings.Map(func(r rune) rune {
		if isControl(r) {
			return -1
		}
		return r
	}, s)
}

func isControl(r rune) bool {
	return (r < 0x20 && r != '\t' && r != '\n') || (r >= 0x7f && r < 0xa0)
}
