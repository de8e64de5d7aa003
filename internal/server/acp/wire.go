package acp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"
)

// MaxLine is the longest JSON-RPC message read (images travel inline);
// the SDK's own reader stops at 10 MiB.
const MaxLine = 10 << 20

// lockedWriter writes whole messages under a lock: the SDK writes each
// message with one Write, and filter's error replies go through the same
// lock, so lines never interleave.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// filter copies JSON-RPC lines from in to the SDK (pw) and answers the
// ones the SDK would drop in silence: a line that is not JSON gets a
// parse error (-32700), a JSON value that is not a request, notification
// or response an invalid-request error (-32600), a line over MaxLine an
// invalid-request error too. The connection stays up either way. It
// returns when in ends (nil at EOF) or the SDK stops reading.
func filter(in io.Reader, pw *io.PipeWriter, out io.Writer) error {
	r := bufio.NewReaderSize(in, 64<<10)
	var buf []byte
	tooLong := false
	for {
		chunk, err := r.ReadSlice('\n')
		if !tooLong {
			buf = append(buf, chunk...)
			if len(buf) > MaxLine {
				tooLong, buf = true, buf[:0]
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		var werr error
		if tooLong {
			reject(out, nil, -32600, "Invalid request", fmt.Sprintf("message longer than %d bytes; skipped", MaxLine))
		} else if line := bytes.TrimSpace(buf); len(line) > 0 {
			if id, code, msg, detail := check(line); code != 0 {
				reject(out, id, code, msg, detail)
			} else {
				_, werr = pw.Write(append(line, '\n'))
			}
		}
		buf, tooLong = buf[:0], false
		switch {
		case werr != nil:
			return werr
		case errors.Is(err, io.EOF):
			return pw.Close()
		case err != nil:
			_ = pw.CloseWithError(err)
			return fmt.Errorf("read requests: %w", err)
		}
	}
}

// check says whether line is a message the SDK can route; when not, it
// gives the error to answer with (and the id to answer, when known).
func check(line []byte) (id json.RawMessage, code int, msg, detail string) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(line, &m); err != nil {
		var any json.RawMessage
		if json.Unmarshal(line, &any) == nil {
			return nil, -32600, "Invalid request", "a JSON-RPC message must be a JSON object"
		}
		return nil, -32700, "Parse error", "the message is not JSON: " + err.Error()
	}
	id = m["id"]
	var method string
	if raw, ok := m["method"]; ok {
		if json.Unmarshal(raw, &method) != nil || method == "" {
			return id, -32600, "Invalid request", `"method" must be a non-empty string`
		}
	}
	if method == "" && id == nil {
		return nil, -32600, "Invalid request", `a request needs "method" (and "id" to be answered)`
	}
	if method == "" && m["result"] == nil && m["error"] == nil {
		return id, -32600, "Invalid request", `a request needs "method"`
	}
	return nil, 0, "", ""
}

// reject writes one JSON-RPC error response.
func reject(out io.Writer, id json.RawMessage, code int, msg, detail string) {
	if id == nil {
		id = json.RawMessage("null")
	}
	b, _ := json.Marshal(struct {
		JSONRPC string          `json:"jsonrpc"`
		ID      json.RawMessage `json:"id"`
		Error   any             `json:"error"`
	}{"2.0", id, map[string]any{"code": code, "message": msg, "data": map[string]string{"details": detail}}})
	_, _ = out.Write(append(b, '\n'))
}
