package markdown

import "strings"

// CodeBlocks are the contents of src's code blocks (fenced or indented,
// nested in lists and quotes too), in order, as written: without fences
// or indentation, each line ending in a newline. The terminal UI's /copy N
// copies one.
func CodeBlocks(src string) []string {
	var out []string
	var walk func(n *mdNode)
	walk = func(n *mdNode) {
		for c := n.first; c != nil; c = c.next {
			if c.kind == mdCodeBlock {
				var b strings.Builder
				for _, l := range c.lines {
					b.WriteString(strings.TrimRight(l, "\r\n") + "\n")
				}
				out = append(out, b.String())
			} else if c.isBlock() {
				walk(c)
			}
		}
	}
	walk(parseMarkdown(src))
	return out
}
