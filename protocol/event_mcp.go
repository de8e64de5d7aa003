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
type McpConnectFailed struct {
	Server string
	Error  string `wire:",default=unknown error"`
}

// McpListToolsFailed: listing Server's tools failed.
type McpListToolsFailed struct{ Server, Error string }

// McpListToolsTimeout: listing Server's tools timed out.
type McpListToolsTimeout struct{ Server string }

// McpNoTools: Server offers no tools.
type McpNoTools struct{ Server string }

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
