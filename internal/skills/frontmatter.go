package skills

import (
	"bytes"
	"errors"
	"fmt"
	"strings"

	"github.com/goccy/go-yaml"
)

// ErrNoFrontMatter is returned by FrontMatter for a file that does not
// start with a "---" line.
var ErrNoFrontMatter = errors.New("no front matter (the file must start with a --- line, then name: and description:, then ---)")

// FrontMatter splits a Markdown file into its YAML front matter, decoded
// into meta (a pointer, as for yaml.Unmarshal), and the body that follows
// it. The front matter opens with a "---" line at the very start of the
// file (after an optional byte-order mark) and closes with a "---" or
// "..." line. Unknown keys are ignored so files written for other agents
// (allowed-tools, license, …) still load. Custom agents share the format.
func FrontMatter(data []byte, meta any) (body string, err error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	first, rest, _ := cutLine(data)
	if !isDelim(first, false) {
		return "", ErrNoFrontMatter
	}
	var head []byte
	for off := 0; ; {
		line, next, more := cutLine(rest[off:])
		if isDelim(line, true) {
			head = rest[:off]
			body = string(next)
			break
		}
		if !more {
			return "", errors.New("front matter is not closed (no --- line after it)")
		}
		off = len(rest) - len(next)
	}
	if len(bytes.TrimSpace(head)) > 0 {
		if err := yaml.Unmarshal(head, meta); err != nil {
			return "", fmt.Errorf("front matter: %s", oneLine(yaml.FormatError(err, false, false)))
		}
	}
	return body, nil
}

// cutLine returns the first line of b (without its line break), the rest
// after the break, and whether a break was found.
func cutLine(b []byte) (line, rest []byte, found bool) {
	i := bytes.IndexByte(b, '\n')
	if i < 0 {
		return b, nil, false
	}
	return b[:i], b[i+1:], true
}

func isDelim(line []byte, closing bool) bool {
	s := strings.TrimRight(string(line), " \t\r")
	return s == "---" || (closing && s == "...")
}

// oneLine folds runs of white space, line breaks included, into single
// spaces, so an error or a description stays on one line.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}
