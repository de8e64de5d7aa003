package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/openseek/openseek/internal/tool"
)

// newTool is the registry's view of the server tool rt, called name.
func (m *Manager) newTool(c *conn, rt *sdk.Tool, name string) tool.Tool {
	schema, required, err := inputSchema(rt.InputSchema)
	if err != nil {
		// The model can still call a tool whose schema is unusable; the
		// server checks the arguments and its error text gets through.
		schema, required = json.RawMessage(`{"properties":{},"type":"object"}`), nil
	}
	desc := rt.Description
	if desc == "" {
		desc = rt.Title
	}
	remote := rt.Name
	return tool.Tool{
		Name:        name,
		Description: desc,
		Schema:      schema,
		Run: func(ctx context.Context, _ *tool.Env, raw json.RawMessage) (tool.Result, error) {
			args, aerr := callArgs(name, raw, required)
			if aerr != nil {
				return aerr.Result(), aerr
			}
			return m.call(ctx, c, remote, name, args), nil
		},
	}
}

// call runs one tool call within CallTimeout and turns every failure into
// an error result the model can read.
func (m *Manager) call(ctx context.Context, c *conn, remote, name string, args json.RawMessage) tool.Result {
	cctx, cancel := context.WithTimeout(ctx, m.opts.CallTimeout)
	defer cancel()
	res, err := c.session.CallTool(cctx, &sdk.CallToolParams{Name: remote, Arguments: args})
	switch {
	case err == nil:
		return convertResult(name, res, m.opts.MaxResultBytes, m.opts.MaxImageBytes)
	case ctx.Err() != nil:
		return tool.Errorf("error: MCP tool %s cancelled", name)
	case errors.Is(cctx.Err(), context.DeadlineExceeded):
		return tool.Errorf("error: MCP tool %s timed out after %s", name, m.opts.CallTimeout)
	case errors.Is(err, sdk.ErrConnectionClosed):
		msg := fmt.Sprintf("MCP server %s is not running (it exited or closed the connection)", c.server.Name)
		if tail := c.ep.stderrText(); tail != "" {
			msg += "; stderr: " + lastLines(tail, 3)
		}
		c.setFailed(msg)
		return tool.Errorf("error: MCP tool %s failed: %s", name, msg)
	}
	return tool.Errorf("error: MCP tool %s failed: %v", name, err)
}
