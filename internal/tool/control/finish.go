package control

import (
	"context"

	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

type finishArgs struct {
	Answer string `json:"answer" jsonschema:"the final reply to the user"`
}

// Finish is the finish tool: it ends the turn with the answer.
func Finish() tool.Tool {
	return tool.Func("finish", "End the turn with your final answer.", func(_ context.Context, _ *tool.Env, a finishArgs) tool.Result {
		return tool.Result{Content: protocol.Text(a.Answer), Brief: "finish", Control: tool.Finish}
	})
}
