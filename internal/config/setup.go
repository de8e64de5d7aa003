package config

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"

	"github.com/BurntSushi/toml"

	"github.com/openseek/openseek/internal/beneath"
)

// Setup is what a first run without a key chose (the terminal UI's
// guided setup): a model and where its provider's key comes from.
type Setup struct {
	Provider string
	// Model is written as the config's default model when not "".
	Model string
	// Exactly one of Key (stored as api_key) and KeyCommand (stored as
	// api_key_command) is set.
	Key, KeyCommand string
}

// SaveSetup records s in the user's config file (~/.openseek/config.toml)
// and leaves it mode 0600, since it may hold a key: the provider's key
// source goes into its [providers.NAME] table (added when missing), the
// model into the top-level model key. The rest of the file, comments
// included, stays as it was. The new file must load (Load) or nothing is
// written.
func SaveSetup(home string, s Setup) error {
	if (s.Key == "") == (s.KeyCommand == "") {
		return errors.New("setup needs either a key or a key command")
	}
	path, _ := Paths(home, "")
	old, err := os.ReadFile(path)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return err
	}
	entry := map[string]string{"api_key": s.Key}
	if s.KeyCommand != "" {
		entry = map[string]string{"api_key_command": s.KeyCommand}
	}
	data, err := setKey(old, `providers\.("?)`+regexp.QuoteMeta(s.Provider)+`("?)`, "providers."+tomlKey(s.Provider), entry)
	if err != nil {
		return err
	}
	if s.Model != "" {
		data = setTopLevel(data, "model", s.Model)
	}
	// The new file must load, as any config would, before it replaces
	// the old one.
	if _, err := parseFile(path, data); err != nil {
		return fmt.Errorf("the new %s would not load (edit it by hand): %w", path, err)
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	return beneath.WriteFile(path, data, 0o600)
}

// setKey puts entry's key = value lines under the table header matching
// header (a regexp of the name between the brackets), adding the table
// (as name) at the end when the file has none. A key the table already
// has is replaced.
func setKey(data []byte, header, name string, entry map[string]string) ([]byte, error) {
	var line bytes.Buffer
	if err := toml.NewEncoder(&line).Encode(entry); err != nil {
		return nil, err
	}
	re := regexp.MustCompile(`(?m)^[ \t]*\[[ \t]*` + header + `[ \t]*\][ \t]*(#.*)?\r?\n?`)
	loc := re.FindIndex(data)
	if loc == nil {
		var b bytes.Buffer
		b.Write(data)
		if len(data) > 0 && !bytes.HasSuffix(data, []byte("\n")) {
			b.WriteByte('\n')
		}
		if len(data) > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "[%s]\n", name)
		b.Write(line.Bytes())
		return b.Bytes(), nil
	}
	// The table's own lines run to the next header.
	end := len(data)
	if next := regexp.MustCompile(`(?m)^[ \t]*\[`).FindIndex(data[loc[1]:]); next != nil {
		end = loc[1] + next[0]
	}
	body := data[loc[1]:end]
	// One key source: the one chosen replaces any other.
	body = regexp.MustCompile(`(?m)^[ \t]*(api_key|api_key_command)[ \t]*=.*\r?\n?`).ReplaceAll(body, nil)
	var b bytes.Buffer
	b.Write(data[:loc[1]])
	if loc[1] > 0 && data[loc[1]-1] != '\n' {
		b.WriteByte('\n')
	}
	b.Write(line.Bytes())
	b.Write(body)
	b.Write(data[end:])
	return b.Bytes(), nil
}

// setTopLevel sets a top-level string key: its line before the first
// table is replaced, or a line is put first.
func setTopLevel(data []byte, key, value string) []byte {
	var line bytes.Buffer
	_ = toml.NewEncoder(&line).Encode(map[string]string{key: value}) // a string map always encodes
	head := data
	if i := regexp.MustCompile(`(?m)^[ \t]*\[`).FindIndex(data); i != nil {
		head = data[:i[0]]
	}
	re := regexp.MustCompile(`(?m)^[ \t]*` + regexp.QuoteMeta(key) + `[ \t]*=.*\r?\n?`)
	if loc := re.FindIndex(head); loc != nil {
		return append(append(append([]byte{}, data[:loc[0]]...), line.Bytes()...), data[loc[1]:]...)
	}
	return append(line.Bytes(), data...)
}

// tomlKey quotes a table key part when it is not a bare key.
func tomlKey(k string) string {
	if regexp.MustCompile(`^[A-Za-z0-9_-]+$`).MatchString(k) {
		return k
	}
	return fmt.Sprintf("%q", k)
}
