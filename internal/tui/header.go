package tui

// headerBlock opens the transcript: where the agent works, with which
// model, in which permission mode, in which session. It reads the model's
// current values on every render (a /plan or /model switch keeps the
// transcript), so it is never stale; being the first block, it is rendered
// only while the top of the history is on screen.
type headerBlock struct{ m *Model }

func (h headerBlock) lines(v *view) []string {
	m := h.m
	model := m.model
	if model == "" {
		model = "(default)"
	}
	mode := m.mode
	if mode == "" {
		mode = "the server's"
	}
	rows := []string{
		v.st.title.Render("OpenSeek") + v.st.dim.Render(" · ") + m.opts.Workspace,
		"model " + model + v.st.dim.Render(" · ") + "approval " + mode + v.st.dim.Render(" · ") + "session " + m.conn.ID(),
		v.st.dim.Render("/ commands · @ files · Esc interrupts · Ctrl-C twice quits"),
	}
	out := make([]string, 0, len(rows))
	for _, r := range rows {
		out = append(out, truncate(r, v.width))
	}
	return out
}
