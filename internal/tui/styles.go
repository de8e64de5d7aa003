package tui

import (
	"charm.land/lipgloss/v2"
)

// styles are the UI's colours; with NO_COLOR every style is plain.
type styles struct {
	plain                  bool
	dark                   bool
	dim, user, warn, err   lipgloss.Style
	ok, added, removed     lipgloss.Style
	hunk, title, status    lipgloss.Style
	pending, dialog, check lipgloss.Style
}

func newStyles(noColor, dark bool) *styles {
	s := &styles{plain: noColor, dark: dark}
	if noColor {
		p := lipgloss.NewStyle()
		s.dim, s.user, s.warn, s.err, s.ok, s.added, s.removed, s.hunk, s.title, s.status, s.pending, s.check = p, p, p, p, p, p, p, p, p, p, p, p
		s.dialog = p.Border(lipgloss.NormalBorder())
		return s
	}
	ld := lipgloss.LightDark(dark)
	s.dim = lipgloss.NewStyle().Foreground(ld(lipgloss.Color("245"), lipgloss.Color("243")))
	s.user = lipgloss.NewStyle().Bold(true).Foreground(ld(lipgloss.Color("25"), lipgloss.Color("75")))
	s.warn = lipgloss.NewStyle().Foreground(ld(lipgloss.Color("130"), lipgloss.Color("214")))
	s.err = lipgloss.NewStyle().Foreground(ld(lipgloss.Color("160"), lipgloss.Color("203")))
	s.ok = lipgloss.NewStyle().Foreground(ld(lipgloss.Color("28"), lipgloss.Color("78")))
	s.added = lipgloss.NewStyle().Foreground(ld(lipgloss.Color("28"), lipgloss.Color("114")))
	s.removed = lipgloss.NewStyle().Foreground(ld(lipgloss.Color("160"), lipgloss.Color("210")))
	s.hunk = lipgloss.NewStyle().Foreground(ld(lipgloss.Color("31"), lipgloss.Color("80")))
	s.title = lipgloss.NewStyle().Bold(true)
	s.status = lipgloss.NewStyle().Foreground(ld(lipgloss.Color("238"), lipgloss.Color("250"))).Background(ld(lipgloss.Color("254"), lipgloss.Color("236")))
	s.pending = s.dim.Italic(true)
	s.dialog = lipgloss.NewStyle().Border(lipgloss.RoundedBorder()).BorderForeground(ld(lipgloss.Color("130"), lipgloss.Color("214"))).Padding(0, 1)
	s.check = s.ok
	return s
}
