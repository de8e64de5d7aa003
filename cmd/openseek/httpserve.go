//go:build !headless

package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"

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
	var more []*engine.Host
	defer func() {
		for _, h := range more {
			h.Close()
		}
	}()
	seen := map[string]bool{host.Workspace(): true}
	for _, dir := range hf.workspaces {
		abs, err := filepath.Abs(dir)
		if err != nil {
			return err
		}
		if st, err := os.Stat(abs); err != nil || !st.IsDir() {
			return fmt.Errorf("--workspace %s is not a directory", dir)
		}
		if seen[abs] {
			continue
		}
		seen[abs] = true
		opts, err := c.engineOptions(cmd, sysFile, addendum)
		if err != nil {
			return err
		}
		// Another workspace keeps its own sessions, config and sandbox root.
		opts.Dir, opts.Cwd, opts.SessionRoot = abs, "", ""
		h, err := engine.NewHost(cmd.Context(), opts)
		if err != nil {
			return fmt.Errorf("--workspace %s: %w", dir, err)
		}
		more = append(more, h)
	}
	return c.serveAPI(cmd.Context(), append([]*engine.Host{host}, more...), hf, false, path)
}

// serveAPI listens, prints the URL with the token on stderr and serves
// until ctx ends; the streams are closed before it returns. The first
// host is served at "/", each further one at /w/1, /w/2, ….
func (c *cli) serveAPI(ctx context.Context, hosts []*engine.Host, hf httpFlags, readOnly bool, path string) error {
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
	var picker []web.Workspace
	for i, h := range hosts {
		picker = append(picker, web.Workspace{Path: h.Workspace(), Base: workspaceBase(i)})
	}
	server := func(i int) *httpapi.Server {
		pages := web.New(hosts[i], web.Options{ReadOnly: readOnly, Base: workspaceBase(i), Workspaces: picker})
		o := httpapi.Options{Token: token, ReadOnly: readOnly, AllowRemote: hf.allowRemote, Web: pages}
		if i == 0 {
			o.Mount = c.fleetRoutes(ctx)
		}
		return httpapi.New(hosts[i], o)
	}
	srv := server(0)
	for i := 1; i < len(hosts); i++ {
		srv.Add(workspaceBase(i), server(i))
	}
	fmt.Fprintf(c.stderr, "openseek: serving %s\n", httpapi.URL(ln, path, token))
	if err := srv.Serve(ctx, ln); err != nil && !errors.Is(err, context.Canceled) {
		return fmt.Errorf("http server: %w", err)
	}
	return nil
}

// workspaceBase is where the i-th workspace of serve --http is served.
func workspaceBase(i int) string {
	if i == 0 {
		return ""
	}
	return "/w/" + strconv.Itoa(i)
}
