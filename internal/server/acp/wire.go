package acp

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sync"

	"github.com/openseek/openseek/internal/server/lineio"
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
	err := lineio.Read(in, MaxLine, func(line []byte, tooLong bool) error {
		if tooLong {
			reject(out, nil, -32600, "Invalid request", fmt.Sprintf("message longer than %d bytes; skipped", MaxLine))
			return nil
		}
		if id, code, msg, detail := check(line); code != 0 {
			reject(out, id, code, msg, detail)
			return nil
		}
		_, werr := pw.Write(append(line, '\n'))
		return writeErr{werr}.orNil()
	})
	var we writeErr
	switch {
	case errors.As(err, &we):
		return we.err
	case err != nil:
		_ = pw.CloseWithError(err)
		return fmt.Errorf("read requests: %w", err)
	}
	return pw.Close()
}

// writeErr marks a failed write to the SDK (it stopped reading), which
// ends filtering without closing the pipe with an error.
type writeErr struct{ err error }

func (w writeErr) Error() string { return w.err.Error() }

func (w writeErr) orNil() error {
	if w.err == nil {
		return nil
	}
	return w
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
