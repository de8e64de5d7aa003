package httpapi

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TokenEnv is the variable that sets the token.
const TokenEnv = "OPENSEEK_HTTP_TOKEN"

// TokenPath is where the generated token is kept under home.
func TokenPath(home string) string { return filepath.Join(home, ".openseek", "run", "http-token") }

// LoadToken returns $OPENSEEK_HTTP_TOKEN when set, else the token kept at
// TokenPath(home), generating it (32 random bytes, hex) on first use. The
// directory is made 0700 and the file 0600: the token gives full control
// of the workspace.
func LoadToken(getenv func(string) string, home string) (string, error) {
	if t := strings.TrimSpace(getenv(TokenEnv)); t != "" {
		return t, nil
	}
	if home == "" {
		return "", fmt.Errorf("no home directory to keep the HTTP token in; set $HOME or %s", TokenEnv)
	}
	path := TokenPath(home)
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("make %s for the HTTP token: %w", dir, err)
	}
	if err := os.Chmod(dir, 0o700); err != nil {
		return "", fmt.Errorf("restrict %s: %w", dir, err)
	}
	if t, err := readToken(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return t, err
	}
	var raw [32]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return "", fmt.Errorf("generate the HTTP token: %w", err)
	}
	tok := hex.EncodeToString(raw[:])
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return readToken(path) // another server made it first
	}
	if err != nil {
		return "", fmt.Errorf("keep the HTTP token in %s: %w", path, err)
	}
	_, err = f.WriteString(tok + "\n")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return "", fmt.Errorf("keep the HTTP token in %s: %w", path, err)
	}
	return tok, nil
}

// readToken reads a kept token, tightening its mode if someone loosened it.
func readToken(path string) (string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	tok := strings.TrimSpace(string(data))
	if tok == "" {
		return "", fmt.Errorf("the HTTP token file %s is empty; delete it and a new token is generated", path)
	}
	if err := os.Chmod(path, 0o600); err != nil {
		return "", fmt.Errorf("restrict %s: %w", path, err)
	}
	return tok, nil
}
