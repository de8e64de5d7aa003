//go:build !headless

package main

import (
	"io"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/server/web"
)

// exportHTML is export --format html: the viewer's page, self-contained.
func exportHTML(w io.Writer, s *engine.Log) error { return web.Standalone(w, s) }
