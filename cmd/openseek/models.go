package main

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/engine"
)

// modelsCmd is `openseek models`: what is configured, and which models
// have what they need (a key, or none needed) to be used now.
func (c *cli) modelsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "models",
		Short: "List the configured models (provider/model), their windows and prices, and whether each is ready to use",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			host, err := c.newHost(cmd, "", "")
			if err != nil {
				return err
			}
			defer host.Close()
			cfg := host.Config()
			use := host.ModelInUse()
			w := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "  MODEL\tWINDOW\tPRICE $/M TOKENS (CACHED IN/IN/OUT)\tSTATE")
			mark := func(inUse bool) string {
				if inUse {
					return "* "
				}
				return "  "
			}
			marked := false
			for _, m := range host.Models() {
				window, price, state := m.Columns()
				inUse := !marked && (m.Spec() == use || m.Name == use)
				marked = marked || inUse
				fmt.Fprintf(w, "%s%s\t%s\t%s\t%s\n", mark(inUse), m.Spec(), window, price, state)
			}
			for _, name := range slices.Sorted(maps.Keys(cfg.Profiles)) {
				inUse := !marked && name == use
				marked = marked || inUse
				fmt.Fprintf(w, "%s%s\t-\t-\tprofile: %s\n", mark(inUse), name, strings.Join(cfg.Profiles[name].Candidates, ", "))
			}
			if err := w.Flush(); err != nil {
				return err
			}
			if marked {
				fmt.Fprintln(c.stdout, "* in use (--model, else the config's model)")
			} else {
				fmt.Fprintf(c.stdout, "in use: %s (not in the list above)\n", use)
			}
			return nil
		},
	}
}

// doctorCmd is `openseek doctor`: config files, keys, endpoints and the
// sandbox, in plain words.
func (c *cli) doctorCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "doctor",
		Short: "Check config files, keys, endpoints (one cheap request each) and the OS sandbox, and say what is wrong",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			checks := engine.Diagnose(cmd.Context(), func() (*engine.Host, error) { return c.newHost(cmd, "", "") })
			failed, width := false, 0
			for _, ch := range checks {
				width = max(width, len(ch.Name))
			}
			for _, ch := range checks {
				detail := strings.ReplaceAll(ch.Detail, "\n", "\n"+strings.Repeat(" ", 6+width+1))
				fmt.Fprintf(c.stdout, "%-4s  %-*s %s\n", ch.Status, width, ch.Name, detail)
				failed = failed || ch.Status == "fail"
			}
			if failed {
				return exitError(1)
			}
			return nil
		},
	}
}
