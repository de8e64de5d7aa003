// Package mcp brings the tools of Model Context Protocol servers into the
// tool registry, and reads the configuration that names those servers.
//
// Configuration files have the shape Claude Code uses:
//
//	{"mcpServers": {
//	  "<name>": {"command": "npx", "args": ["-y", "pkg"], "env": {"K": "V"}},
//	  "<name>": {"url": "https://host/mcp", "headers": {"Authorization": "Bearer …"}}
//	}}
//
// A stdio server is started as a child process (its env is the config's env
// merged over the engine's); a url server is reached over Streamable HTTP.
// OpenSeek reads ~/.openseek/mcp.json, the workspace's .mcp.json and the file
// named with --mcp-config (ConfigFiles, Load). A repository's .mcp.json only
// starts servers once the user has trusted it; a file named on the command
// line is trusted by being named. Trust itself is decided by the engine.
//
// Start connects to every server in parallel and lists its tools. Each
// server's tool "t" reaches the model as "mcp__<server>__t", rewritten to
// [A-Za-z0-9_-] and at most 64 characters (mcp_tool_renamed). Start never
// fails: a server that cannot be started, connected or listed within the
// timeouts is skipped and reported with its mcp_* event (protocol §5.9), and
// the other servers still load.
//
// Key invariants:
//   - Tools() is sorted by name and its schemas are byte-stable, so the tool
//     block of every request is identical between turns.
//   - A tool call never blocks a turn for longer than CallTimeout and never
//     returns a Go error except *tool.ArgError: a server error, a hang, a
//     crashed server or an oversized answer all become an error (or capped)
//     result the model can read.
//   - Close stops every stdio server process and its children (the process
//     group): stdin is closed first, then SIGTERM, then SIGKILL.
package mcp
