// Package lineio reads newline-delimited messages (JSONL commands,
// JSON-RPC over stdio) with a bound on a line's length: an over-long
// line is skipped, not buffered whole, and reading goes on. It is what
// the stdio transports share.
package lineio

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// Read calls fn for each non-blank line of in, without its newline and
// surrounding white space; a line longer than max bytes is passed as nil
// with tooLong set. The line is only valid during the call. Read returns
// nil at EOF, fn's error, or the read error.
func Read(in io.Reader, max int, fn func(line []byte, tooLong bool) error) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			buf = append(buf, chunk...)
			if len(buf) > max {
				tooLong, buf = true, buf[:0]
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		var ferr error
		if tooLong {
			ferr = fn(nil, true)
		} else if line := bytes.TrimSpace(buf); len(line) > 0 {
			ferr = fn(line, false)
		}
		buf, tooLong = buf[:0], false
		switch {
		case ferr != nil:
			return ferr
		case errors.Is(err, io.EOF):
			return nil
		case err != nil:
			return err
		}
	}
}
