package config

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"
	"time"
)

// KeyCommandTimeout bounds an api_key_command.
const KeyCommandTimeout = 10 * time.Second

// Credential is a provider's API key and where it came from.
type Credential struct {
	Key string
	// Source names the origin without revealing the key: "--api-key",
	// "$OPENAI_API_KEY", "api_key_command", "api_key in a config file";
	// "" when no key was found or none is needed.
	Source string
}

// Key finds the API key for a provider: the --api-key flag, then a literal
// api_key from a config file, then api_key_command, then the first set
// variable of api_key_env. A provider with no_key gets none. A found
// nothing is not an error (Resolve decides whether a key is required); a
// failing command is, and its error names the command but never its output.
func (c *Config) Key(ctx context.Context, provider, apiKeyFlag string) (Credential, error) {
	p, ok := c.Providers[provider]
	if !ok {
		return Credential{}, fmt.Errorf("unknown provider %q; known providers: %s", provider, c.providerList())
	}
	switch {
	case apiKeyFlag != "":
		return Credential{Key: apiKeyFlag, Source: "--api-key"}, nil
	case p.NoKey:
		return Credential{}, nil
	case p.APIKey != "":
		return Credential{Key: p.APIKey, Source: "api_key in a config file"}, nil
	case p.APIKeyCommand != "":
		key, err := runKeyCommand(ctx, p.APIKeyCommand)
		if err != nil {
			return Credential{}, fmt.Errorf("the api_key_command of provider %s (%s) %w", provider, p.APIKeyCommand, err)
		}
		return Credential{Key: key, Source: "api_key_command"}, nil
	}
	for _, name := range p.APIKeyEnv {
		if v := strings.TrimSpace(c.getenv(name)); v != "" {
			return Credential{Key: v, Source: "$" + name}, nil
		}
	}
	return Credential{}, nil
}

// needsKey reports whether a provider cannot work without a key: it names
// somewhere a key should come from and is not marked no_key. A provider
// with no key settings at all (a local server) needs none.
func (p Provider) needsKey() bool {
	return !p.NoKey && (p.APIKey != "" || p.APIKeyCommand != "" || len(p.APIKeyEnv) > 0)
}

// Ready reports, without running commands or touching the network,
// whether a provider can be used: it needs no key, or a key source is
// configured or set.
func (c *Config) Ready(provider string) bool {
	p, ok := c.Providers[provider]
	if !ok {
		return false
	}
	if !p.needsKey() || p.APIKey != "" || p.APIKeyCommand != "" {
		return true
	}
	for _, name := range p.APIKeyEnv {
		if strings.TrimSpace(c.getenv(name)) != "" {
			return true
		}
	}
	return false
}

// runKeyCommand runs cmd with sh -c and returns its trimmed stdout. The
// error completes a sentence ("… failed: exit status 1") and never
// includes what the command printed, which may be the key.
func runKeyCommand(ctx context.Context, cmd string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, KeyCommandTimeout)
	defer cancel()
	c := exec.CommandContext(ctx, "sh", "-c", cmd)
	var out bytes.Buffer
	c.Stdout = &out
	c.WaitDelay = time.Second // a grandchild holding stdout must not hang us
	err := c.Run()
	switch {
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return "", fmt.Errorf("did not finish within %s", KeyCommandTimeout)
	case ctx.Err() != nil:
		return "", fmt.Errorf("was cancelled: %w", ctx.Err())
	case err != nil:
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			return "", fmt.Errorf("failed: %s", ee.ProcessState)
		}
		return "", fmt.Errorf("could not run: %w", err)
	}
	key := strings.TrimSpace(out.String())
	if key == "" {
		return "", errors.New("printed no key")
	}
	return key, nil
}
