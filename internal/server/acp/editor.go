package acp

import (
	"context"
	"sync/atomic"
	"time"

	sdk "github.com/coder/acp-go-sdk"
)

// editorReadTimeout bounds one fs/read_text_file round trip; a client
// that does not answer in time leaves the tool to read the disk.
const editorReadTimeout = 10 * time.Second

// editor reads files through the client (fs/read_text_file) when it
// offered to at initialize, so the read tool sees the editor's buffers,
// unsaved changes included. Any failure falls back to the disk.
type editor struct {
	a  *agent
	id atomic.Value // the session id (string), known once the session opened
}

func (e *editor) read(ctx context.Context, path string) (string, bool) {
	id, _ := e.id.Load().(string)
	if id == "" {
		return "", false
	}
	ctx, cancel := context.WithTimeout(ctx, editorReadTimeout)
	defer cancel()
	resp, err := e.a.conn.ReadTextFile(ctx, sdk.ReadTextFileRequest{SessionId: sdk.SessionId(id), Path: path})
	if err != nil {
		e.a.opts.Log.Debug("fs/read_text_file failed; reading the disk", "path", path, "error", err)
		return "", false
	}
	return resp.Content, true
}
