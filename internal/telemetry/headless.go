//go:build headless

package telemetry

import (
	"context"
	"errors"

	"github.com/openseek/openseek/internal/llm"
	"github.com/openseek/openseek/internal/tool"
	"github.com/openseek/openseek/protocol"
)

// The headless build (-tags headless) leaves the OpenTelemetry SDK out:
// it doubles that binary's size and init time. Telemetry configured
// there is an error that says how to get it, as every left-out face is.

// Exporter is never made in the headless build.
type Exporter struct{}

// Turn is never made in the headless build.
type Turn struct{}

// Start says that telemetry is not in this build.
func Start(context.Context, Options) (*Exporter, error) {
	return nil, errors.New("telemetry is not in this openseek, built for headless use (-tags headless); install the full binary: CGO_ENABLED=0 go install ./cmd/openseek")
}

// StartTurn is unreachable: Start never returns an Exporter here.
func (x *Exporter) StartTurn(ctx context.Context, _, _ string, _ protocol.Content) (context.Context, *Turn) {
	return ctx, nil
}

// End is unreachable in the headless build.
func (t *Turn) End(protocol.TurnSummary) {}

// Fail is unreachable in the headless build.
func (t *Turn) Fail(error) {}

// Provider is unreachable in the headless build.
func (x *Exporter) Provider(p llm.Provider, _ string, _ llm.Price) llm.Provider { return p }

// Tool is unreachable in the headless build.
func (x *Exporter) Tool(t tool.Tool) tool.Tool { return t }

// Shutdown is unreachable in the headless build.
func (x *Exporter) Shutdown(context.Context) error { return nil }
