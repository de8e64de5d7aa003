package markdown

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Column alignments of a pipe table.
const (
	alignLeft = iota
	alignCenter
	alignRight
)

// table renders a paragraph that is a GFM pipe table — a header row, a
// delimiter row such as |---|:--:|, then body rows — with columns fitted
// to width (cells wrap); nil when the paragraph is not a table.
// CommonMark parses a table as one paragraph, so the rows are its lines.
func (w *mdRender) table(n *mdNode, width int) []string {
	if len(n.lines) < 2 {
		return nil
	}
	row := func(i int) string { return strings.TrimSpace(n.lines[i]) }
	delim := row(1)
	if !strings.Contains(delim, "|") && !strings.Contains(row(0), "|") {
		return nil
	}
	aligns := parseAligns(splitRow(delim))
	head := splitRow(row(0))
	if aligns == nil || len(head) != len(aligns) {
		return nil
	}
	rows := [][]string{head}
	for i := 2; i < len(n.lines); i++ {
		rows = append(rows, splitRow(row(i)))
	}
	cols := len(aligns)
	cells := make([][][]span, len(rows))
	natural := make([]int, cols)
	for r, cs := range rows {
		cells[r] = make([][]span, cols)
		for c := 0; c < cols && c < len(cs); c++ {
			cells[r][c] = w.cell(cs[c], r == 0)
			natural[c] = max(natural[c], spansWidth(cells[r][c]))
		}
	}
	widths := fitColumns(natural, width-3*(cols-1))
	if sum(widths)+3*(cols-1) > width {
		return nil // too many columns for the width: shown as text
	}
	sep := w.th.paint(" │ ", sDim)
	var out []string
	for r := range cells {
		wrapped := make([][]string, cols)
		h := 1
		for c := range cols {
			wrapped[c] = w.wrap(cells[r][c], widths[c])
			h = max(h, len(wrapped[c]))
		}
		for k := range h {
			var b strings.Builder
			for c := range cols {
				if c > 0 {
					b.WriteString(sep)
				}
				cell := ""
				if k < len(wrapped[c]) {
					cell = wrapped[c][k]
				}
				b.WriteString(alignCell(cell, widths[c], aligns[c]))
			}
			out = append(out, strings.TrimRight(b.String(), " "))
		}
		if r == 0 {
			parts := make([]string, cols)
			for c, wd := range widths {
				parts[c] = strings.Repeat("─", wd)
			}
			out = append(out, w.th.paint(strings.Join(parts, "─┼─"), sDim))
		}
	}
	return out
}

// cell parses one cell's inline markdown (bold in the header row).
func (w *mdRender) cell(s string, head bool) []span {
	var st styleBits
	if head {
		st = sBold
	}
	if s == "" {
		return nil
	}
	p := parseMarkdown(s).first
	if p == nil || p.kind != mdParagraph || p.next != nil {
		return []span{{text: s, st: st}} // "# x" or "- x" in a cell is text
	}
	return w.inline(p, st, "", nil)
}

// splitRow cuts a table row at its unescaped pipes; an escaped pipe is
// cell content, inside code spans too (as GFM has it).
func splitRow(s string) []string {
	s = strings.TrimPrefix(strings.TrimSpace(s), "|")
	if strings.HasSuffix(s, "|") && !strings.HasSuffix(s, `\|`) {
		s = s[:len(s)-1]
	}
	var cells []string
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch {
		case s[i] == '\\' && i+1 < len(s) && s[i+1] == '|':
			b.WriteByte('|')
			i++
		case s[i] == '|':
			cells = append(cells, strings.TrimSpace(b.String()))
			b.Reset()
		default:
			b.WriteByte(s[i])
		}
	}
	return append(cells, strings.TrimSpace(b.String()))
}

// parseAligns reads a delimiter row (---, :--, --:, :-:); nil if a cell
// is anything else.
func parseAligns(cells []string) []int {
	out := make([]int, len(cells))
	for i, c := range cells {
		core := strings.Trim(c, ":")
		if core == "" || strings.Trim(core, "-") != "" || len(c)-len(core) > 2 {
			return nil
		}
		left, right := c[0] == ':', c[len(c)-1] == ':'
		switch {
		case left && right:
			out[i] = alignCenter
		case right:
			out[i] = alignRight
		default:
			out[i] = alignLeft
		}
	}
	return out
}

// fitColumns shrinks the widest columns until the row fits avail cells
// (no column below three cells: past that the row is let overflow).
func fitColumns(natural []int, avail int) []int {
	w := make([]int, len(natural))
	total := 0
	for i, n := range natural {
		w[i] = max(n, 1)
		total += w[i]
	}
	for total > avail {
		widest := 0
		for i := range w {
			if w[i] > w[widest] {
				widest = i
			}
		}
		if w[widest] <= 3 {
			break
		}
		w[widest]--
		total--
	}
	return w
}

func sum(xs []int) int {
	n := 0
	for _, x := range xs {
		n += x
	}
	return n
}

// alignCell pads a rendered cell to width cells.
func alignCell(cell string, width, align int) string {
	pad := width - ansi.StringWidth(cell)
	if pad <= 0 {
		return cell
	}
	switch align {
	case alignRight:
		return strings.Repeat(" ", pad) + cell
	case alignCenter:
		return strings.Repeat(" ", pad/2) + cell + strings.Repeat(" ", pad-pad/2)
	}
	return cell + strings.Repeat(" ", pad)
}
