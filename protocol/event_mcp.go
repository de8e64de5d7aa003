package protocol

import "encoding/json"

// MCP events (reference §5.9). MCP tools reach the model as
// mcp__<server>__<tool>.

// McpConfigIgnored: MCP configuration was ignored in this mode.
type McpConfigIgnored struct{ Reason string }

// McpConfigUnreadable: the MCP config file at Path could not be read.
type McpConfigUnreadable struct{ Path, Error string }

// McpConfigInvalid: the MCP config file at Path has a bad shape.
type McpConfigInvalid struct{ Path, Error string }

// McpToolsRegistered: Tools tools from Servers servers, named Names.
type McpToolsRegistered struct {
	Servers, Tools int
	Names          []string
}

// McpToolDuplicate: Server offered Tool twice; the duplicate was dropped.
type McpToolDuplicate struct{ Server, Tool string }

// McpToolRenamed: a tool name was rewritten to fit the model's rules.
type McpToolRenamed struct{ From, To string }

// McpToolsCapped: only Kept tools of Server were registered.
type McpToolsCapped struct {
	Server string
	Kept   int
}

// McpServerSkippedOverCap: Server was skipped, the tool cap was reached.
type McpServerSkippedOverCap struct{ Server string }

// McpConnectFailed: Server could not be started or connected. A missing or
// null error (older engines) decodes as "unknown error".
type McpConnectFailed struct{ Server, Error string }

// McpListToolsFailed: listing Server's tools failed.
type McpListToolsFailed struct{ Server, Error string }

// McpListToolsTimeout: listing Server's tools timed out.
type McpListToolsTimeout struct{ Server string }

// McpNoTools: Server offers no tools.
type McpNoTools struct{ Server string }

func (McpConfigIgnored) EventName() string        { return "mcp_config_ignored" }
func (McpConfigUnreadable) EventName() string     { return "mcp_config_unreadable" }
func (McpConfigInvalid) EventName() string        { return "mcp_config_invalid" }
func (McpToolsRegistered) EventName() string      { return "mcp_tools_registered" }
func (McpToolDuplicate) EventName() string        { return "mcp_tool_duplicate" }
func (McpToolRenamed) EventName() string          { return "mcp_tool_renamed" }
func (McpToolsCapped) EventName() string          { return "mcp_tools_capped" }
func (McpServerSkippedOverCap) EventName() string { return "mcp_server_skipped_over_cap" }
func (McpConnectFailed) EventName() string        { return "mcp_connect_failed" }
func (McpListToolsFailed) EventName() string      { return "mcp_list_tools_failed" }
func (McpListToolsTimeout) EventName() string     { return "mcp_list_tools_timeout" }
func (McpNoTools) EventName() string              { return "mcp_no_tools" }

func appendServerError(b []byte, server, err string) []byte {
	return appendStrField(appendStrField(b, "server", server), "error", err)
}

func (e McpConfigIgnored) appendFields(b []byte) []byte { return appendStrField(b, "reason", e.Reason) }
func (e McpConfigUnreadable) appendFields(b []byte) []byte {
	return appendStrField(appendStrField(b, "path", e.Path), "error", e.Error)
}
func (e McpConfigInvalid) appendFields(b []byte) []byte {
	return appendStrField(appendStrField(b, "path", e.Path), "error", e.Error)
}
func (e McpToolsRegistered) appendFields(b []byte) []byte {
	b = appendIntField(b, "servers", e.Servers)
	b = appendIntField(b, "tools", e.Tools)
	return appendStrings(b, "names", e.Names)
}
func (e McpToolDuplicate) appendFields(b []byte) []byte {
	return appendStrField(appendStrField(b, "server", e.Server), "tool", e.Tool)
}
func (e McpToolRenamed) appendFields(b []byte) []byte {
	return appendStrField(appendStrField(b, "from", e.From), "to", e.To)
}
func (e McpToolsCapped) appendFields(b []byte) []byte {
	return appendIntField(appendStrField(b, "server", e.Server), "kept", e.Kept)
}
func (e McpServerSkippedOverCap) appendFields(b []byte) []byte {
	return appendStrField(b, "server", e.Server)
}
func (e McpConnectFailed) appendFields(b []byte) []byte {
	return appendServerError(b, e.Server, e.Error)
}
func (e McpListToolsFailed) appendFields(b []byte) []byte {
	return appendServerError(b, e.Server, e.Error)
}
func (e McpListToolsTimeout) appendFields(b []byte) []byte {
	return appendStrField(b, "server", e.Server)
}
func (e McpNoTools) appendFields(b []byte) []byte { return appendStrField(b, "server", e.Server) }

// strings decodes a required array of strings.
func (f *fields) strings(key string) []string {
	raw := f.o[key]
	var raws []json.RawMessage
	if firstByte(raw) != '[' || json.Unmarshal(raw, &raws) != nil {
		f.ok = false
		return nil
	}
	out := make([]string, 0, len(raws))
	for _, r := range raws {
		s, ok := rawString(r)
		if !ok {
			f.ok = false
			return nil
		}
		out = append(out, s)
	}
	return out
}

func parseMcpEvent(name string, f *fields) Event {
	switch name {
	case "mcp_config_ignored":
		return McpConfigIgnored{Reason: f.str("reason")}
	case "mcp_config_unreadable":
		return McpConfigUnreadable{Path: f.str("path"), Error: f.str("error")}
	case "mcp_config_invalid":
		return McpConfigInvalid{Path: f.str("path"), Error: f.str("error")}
	case "mcp_tools_registered":
		return McpToolsRegistered{Servers: f.int("servers"), Tools: f.int("tools"), Names: f.strings("names")}
	case "mcp_tool_duplicate":
		return McpToolDuplicate{Server: f.str("server"), Tool: f.str("tool")}
	case "mcp_tool_renamed":
		return McpToolRenamed{From: f.str("from"), To: f.str("to")}
	case "mcp_tools_capped":
		return McpToolsCapped{Server: f.str("server"), Kept: f.int("kept")}
	case "mcp_server_skipped_over_cap":
		return McpServerSkippedOverCap{Server: f.str("server")}
	case "mcp_connect_failed":
		msg, ok := f.o.str("error")
		if !ok {
			msg = "unknown error"
		}
		return McpConnectFailed{Server: f.str("server"), Error: msg}
	case "mcp_list_tools_failed":
		return McpListToolsFailed{Server: f.str("server"), Error: f.str("error")}
	case "mcp_list_tools_timeout":
		return McpListToolsTimeout{Server: f.str("server")}
	case "mcp_no_tools":
		return McpNoTools{Server: f.str("server")}
	}
	return nil
}
