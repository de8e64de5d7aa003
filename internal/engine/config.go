package engine

import (
	"github.com/openseek/openseek/internal/config"
	"github.com/openseek/openseek/internal/engine/runtime"
	"github.com/openseek/openseek/internal/trust"
	"github.com/openseek/openseek/internal/verify"
	"github.com/openseek/openseek/protocol"
)

// LoadConfig loads the user's and the workspace's config files. The
// workspace's keys that send data elsewhere or run programs count once the
// user trusted that file as it is now (openseek trust) or trustWorkspace
// (--trust-workspace); the keys left out are in Config.Held, which the
// caller must show (heldNotices).
func LoadConfig(home, dir string, getenv func(string) string, trustWorkspace bool) (*config.Config, error) {
	trusted := config.Trust(trust.Open(home).TrustedData)
	if trustWorkspace {
		trusted = config.TrustAll
	}
	return config.LoadTrusting(home, dir, getenv, trusted)
}

// heldNotices are the warnings for the workspace's keys left out.
func heldNotices(cfg *config.Config) []protocol.Event {
	var out []protocol.Event
	for _, h := range cfg.Held {
		out = append(out, protocol.BackgroundNotice{Content: h.String()})
	}
	return out
}

// CheckScript is the workspace's build check as a shell script, for runs
// that must pass it (best-of-N): [verify] command of the config (the
// workspace's once it is trusted), else the check detected from the
// project's files; "" with o.NoVerify or [verify] enabled = false.
func CheckScript(o Options) (string, error) {
	if o.NoVerify {
		return "", nil
	}
	cfg, err := LoadConfig(o.Home, o.Dir, o.Getenv, o.TrustWorkspace)
	if err != nil {
		return "", err
	}
	s, enabled, err := runtime.VerifySettings(cfg)
	if err != nil || !enabled {
		return "", err
	}
	if s.Command == "" {
		return verify.Detect(o.Dir).Script(), nil
	}
	return verify.NewCheck(s.Command).Script(), nil
}
