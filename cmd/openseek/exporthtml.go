//go:build !headless

package main

import (
	"io"

	"github.com/openseek/openseek/internal/server/web"
	"github.com/openseek/openseek/internal/session"
)

// exportHTML is export --format html: the viewer's page, self-contained.
func exportHTML(w io.Writer, s *session.Session) error { return web.Standalone(w, s) }
