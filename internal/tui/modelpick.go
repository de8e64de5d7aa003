package tui

import (
	"fmt"

	tea "charm.land/bubbletea/v2"

	"github.com/openseek/openseek/internal/engine"
)

// Catalogue is offered by backends that know the configured models (the
// in-process host); /model then opens a picker over them.
type Catalogue interface {
	Models() []engine.ModelInfo
}

// pickModel opens the model picker: each configured model with its
// context window, price and whether it can be used now (a key, or none
// needed). Picking a ready one switches to it from the next turn.
func (m *Model) pickModel() tea.Cmd {
	cat, ok := m.backend.(Catalogue)
	var list []engine.ModelInfo
	if ok {
		list = cat.Models()
	}
	if len(list) == 0 {
		m.note(kindNote, "", "model: "+m.model+" — /model NAME switches from the next turn")
		return nil
	}
	rows := make([]string, len(list))
	at, w := 0, specWidth(list)
	for i, mi := range list {
		mark := " "
		if mi.Spec() == m.model {
			mark, at = "*", i
		}
		rows[i] = mark + " " + modelRow(mi, w)
	}
	m.picker = &picker{title: "Model (* in use; window, $/M tokens cached in/in/out)", rows: rows, at: at, pick: func(i int) tea.Cmd {
		mi := list[i]
		switch {
		case mi.Spec() == m.model:
			return nil
		case !mi.Ready:
			m.note(kindWarn, "", mi.Spec()+" has no key: set its provider's key (openseek doctor says which), then pick it again")
			return nil
		}
		return m.reopen("", mi.Spec(), "model "+mi.Spec()+" from the next turn")
	}}
	return nil
}

// specWidth is the width of the widest model name of list: the column
// modelRow pads names to, so the columns after it line up.
func specWidth(list []engine.ModelInfo) int {
	w := 0
	for _, mi := range list {
		w = max(w, len(mi.Spec()))
	}
	return w
}

// modelRow is one model of a list: its spec (padded to width), context
// window, price per million tokens (cached in/in/out) and whether it can
// be used now.
func modelRow(mi engine.ModelInfo, width int) string {
	window, price, state := mi.Columns()
	return fmt.Sprintf("%-*s %6s  %-22s %s", width, mi.Spec(), window, price, state)
}
