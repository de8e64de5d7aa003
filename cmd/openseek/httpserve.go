//go:build !headless

package main

import (
	"context"
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
	"github.com/openseek/openseek/internal/server/httpapi"
	"github.com/openseek/openseek/internal/server/web"
)

// httpDefaultAddr is where serve --http listens without an address.
const httpDefaultAddr = httpapi.DefaultAddr

// serveHTTP is `openseek serve --http`: the HTTP + SSE API and the web app
// over the workspace host, until a signal ends ctx.
func (c *cli) serveHTTP(cmd *cobra.Command, hf httpFlags, sysFile, addendum string) error {
	c.interactiveApproval(cmd) // the web app answers
	if _, _, err := prepareDir(c.g.dir); err != nil {
		return err
	}
	host, err := c.newHost(cmd, sysFile, addendum)
	if err != nil {
		return err
	}
	defer host.Close()
	if _, err := host.ResolveModel(cmd.Context()); err != nil {
		return err
	}
	path := "/"
	if c.g.session != "" {
		s, err := host.Open(cmd.Context(), engine.OpenOptions{ID: c.g.session, Holder: "openseek serve --http"})
		if err != nil {
			return err
		}
		path = "/sessions/" + s.ID()
	}
	return c.serveAPI(cmd.Context(), host, hf, false, path)
}

// serveAPI listens, prints the URL with the token on stderr and serves
// until ctx ends; the streams are closed before it returns.
func (c *cli) serveAPI(ctx context.Context, host *engine.Host, hf httpFlags, readOnly bool, path string) error {
	home := c.getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	token, err := httpapi.LoadToken(c.getenv, home)
	if err != nil {
		return err
	}
	ln, err := httpapi.Listen(hf.addr, hf.allowRemote)
	if err != nil {
		return err
	}
	pages := web.New(host, web.Options{ReadOnly: readOnly})
	srv := httpapi.New(host, httpapi.Options{Token: token, ReadOnly: readOnly, AllowRemote: hf.allowRemote, Web: pages, Mount: c.fleetRoutes(ctx)})
	fmt.Fprintf(c.stderr, "openseek: serving %s\n", httpapi.URL(ln, path, token))
	if err := srv.Serve(ctx, ln); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("http server: %w", err)
	}
	return nil
}
