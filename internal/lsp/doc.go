// Package lsp runs language servers for a session so that the file tools
// can tell the model, right after an edit, which errors and warnings the
// edit introduced.
//
// A Manager starts a server lazily, the first time a file of its language
// changes, when its program is installed (gopls, pyright-langserver,
// typescript-language-server, rust-analyzer, clangd: looked up on PATH and
// in the usual install folders), keeps it warm for the session and shuts
// it down with it. It speaks LSP over the server's stdio with
// go.lsp.dev/jsonrpc2 and go.lsp.dev/protocol.
//
// Invariants:
//   - Waiting is bounded: Before waits at most Wait/2 for a baseline and
//     the report at most Wait; a server that is slow, hangs or crashed
//     yields a report that says so, never an error, never a stalled turn.
//   - No orphans: each server runs in its own process group (and, on
//     Linux, dies with its parent); Close asks it to shut down, then kills
//     the group.
//   - Servers run inside Options.Sandbox when set (the session's sandbox,
//     as for shell commands) and never see secret environment variables.
//   - Introduced diagnostics are those present after a change and not
//     before, matched as a multiset by file, code and message (not line:
//     an edit above a problem moves it).
package lsp
