package main

import (
	"fmt"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/doctor"
	"github.com/openseek/openseek/internal/policy"
)

// modelsCmd is `openseek models`: what is configured, and which models
// have what they need (a key, or none needed) to be used now.
func (c *cli) modelsCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "models",
		Short: "List the configured models (provider/model), their windows and prices, and whether each is ready to use",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			dir, err := filepath.Abs(c.g.dir)
			if err != nil {
				return err
			}
			cfg, err := config.Load(c.getenv("HOME"), dir, c.getenv)
			if err != nil {
				return err
			}
			for _, m := range cfg.List() {
				state := "no key"
				if cfg.Ready(m.Provider) {
					state = "ready"
				}
				window := "-"
				if m.Window > 0 {
					window = fmt.Sprintf("%dk", m.Window/1000)
				}
				price := "-"
				if m.Price != (config.Model{}).Price {
					price = fmt.Sprintf("$%.2f/$%.2f/$%.2f", m.Price.InputHit, m.Price.InputMiss, m.Price.Output)
				}
				fmt.Fprintf(c.stdout, "%s\t%s\t%s\t%s\n", m.Spec(), window, price, state)
			}
			for name, p := range cfg.Profiles {
				fmt.Fprintf(c.stdout, "%s\tprofile: %v\n", name, p.Candidates)
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
			dir, err := filepath.Abs(c.g.dir)
			if err != nil {
				return err
			}
			checks := doctor.Diagnose(cmd.Context(), c.getenv("HOME"), dir, c.getenv, nil)
			checks = append(checks, doctor.Sandbox(cmd.Context(), dir))
			if _, err := policy.LoadRules(filepath.Join(c.getenv("HOME"), ".openseek", "config.toml"), filepath.Join(dir, ".openseek", "config.toml")); err != nil {
				checks = append(checks, doctor.Check{Name: "rules", Status: "fail", Detail: err.Error()})
			}
			failed := false
			for _, ch := range checks {
				fmt.Fprintf(c.stdout, "%-4s  %-14s %s\n", ch.Status, ch.Name, ch.Detail)
				failed = failed || ch.Status == "fail"
			}
			if failed {
				return exitError(1)
			}
			return nil
		},
	}
}
