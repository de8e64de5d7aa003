package script

import (
	"fmt"
	"strings"
)

// capped keeps the head and the tail of what a script prints, like the
// shell tool's output, and counts what it dropped between them.
type capped struct {
	max     int // 0: unbounded
	head    []byte
	tail    []byte // trimmed to its share only once it holds twice that
	dropped int
}

func newCapped(max int) *capped { return &capped{max: max} }

func (c *capped) WriteString(s string) {
	if c.max <= 0 {
		c.head = append(c.head, s...)
		return
	}
	half := c.max / 2
	if room := half - len(c.head); room > 0 {
		n := min(room, len(s))
		c.head = append(c.head, s[:n]...)
		s = s[n:]
	}
	c.tail = append(c.tail, s...)
	if keep := c.max - half; len(c.tail) > 2*keep {
		c.trim(keep)
	}
}

func (c *capped) trim(keep int) {
	if over := len(c.tail) - keep; over > 0 {
		c.dropped += over
		c.tail = append(c.tail[:0], c.tail[over:]...)
	}
}

// String is the output kept; a cut never splits a character.
func (c *capped) String() string {
	if c.max > 0 {
		c.trim(c.max - c.max/2)
	}
	if c.dropped == 0 {
		return strings.ToValidUTF8(string(c.head)+string(c.tail), "")
	}
	return fmt.Sprintf("%s\n<system>… %d characters of output left out …</system>\n%s",
		strings.ToValidUTF8(string(c.head), ""), c.dropped, strings.ToValidUTF8(string(c.tail), ""))
}
