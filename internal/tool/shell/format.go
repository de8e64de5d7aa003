package shell

import (
	"fmt"
	"strconv"
	"strings"
)

// Output budget of shell, in characters.
const (
	DefaultMaxOutputChars = 12000
	MaxOutputChars        = 50000
)

// reader reads characters [start, start+n) of an output.
type reader func(start, n int64) (string, error)

// excerpt is what the model is shown of an output of total characters:
// all of it when it fits budget, else its head and tail around a line
// saying how much was left out.
type excerpt struct {
	text      string
	shown     int64
	total     int64
	truncated bool
}

func headTail(read reader, total, budget int64) (excerpt, error) {
	if total <= budget {
		s, err := read(0, total)
		return excerpt{text: s, shown: total, total: total}, err
	}
	head, tail := budget/2, budget-budget/2
	h, err := read(0, head)
	if err != nil {
		return excerpt{}, err
	}
	t, err := read(total-tail, tail)
	if err != nil {
		return excerpt{}, err
	}
	if !strings.HasSuffix(h, "\n") {
		h += "\n"
	}
	text := h + fmt.Sprintf("[… %d characters omitted …]\n", total-head-tail) + t
	return excerpt{text: text, shown: head + tail, total: total, truncated: true}, nil
}

// footer builds the trailing `<system>k=v …</system>` line.
type footer []string

func (f *footer) add(kv ...string) { *f = append(*f, kv...) }

func (f *footer) int(k string, v int64) { f.add(k + "=" + strconv.FormatInt(v, 10)) }

func (f *footer) flag(k string, on bool) {
	if on {
		f.add(k + "=true")
	}
}

// withFooter is body, a newline unless body ends with one, and the footer.
func withFooter(body string, f footer) string {
	line := "<system>" + strings.Join(f, " ") + "</system>"
	if body == "" {
		return line
	}
	if !strings.HasSuffix(body, "\n") {
		body += "\n"
	}
	return body + line
}
