package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/openseek/openseek/protocol"
)

// Server is one configured MCP server: a stdio command (Command, Args,
// Env) or a Streamable HTTP endpoint (URL, Headers). Exactly one of
// Command and URL is set. Source is the config file it came from.
type Server struct {
	Name    string
	Command string
	Args    []string
	Env     map[string]string
	URL     string
	Headers map[string]string
	Source  string
}

// Transport names how s is reached: "stdio" or "http".
func (s Server) Transport() string {
	if s.URL != "" {
		return "http"
	}
	return "stdio"
}

// ConfigError is a config file that is not valid JSON or has the wrong
// shape. Reason names the offending server where there is one.
type ConfigError struct {
	Path   string
	Reason string
}

func (e *ConfigError) Error() string { return fmt.Sprintf("mcp config %s: %s", e.Path, e.Reason) }

// LoadFile reads the config file at path. A file that cannot be read is an
// error wrapping the fs error; a file that is not a JSON object holding an
// "mcpServers" object is a *ConfigError and no servers. A server entry that
// is invalid is left out and named in a *ConfigError returned beside the
// valid servers, so the rest still start. Servers come back sorted by name.
func LoadFile(path string) ([]Server, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read mcp config: %w", err)
	}
	return parse(path, data)
}

// rawServer is one entry of "mcpServers" as written. Unknown keys (for
// example Claude Code's "cwd" or "timeout") are ignored.
type rawServer struct {
	Type    string            `json:"type"`
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
	URL     string            `json:"url"`
	Headers map[string]string `json:"headers"`
}

// parse decodes a config file's bytes; path only labels errors.
func parse(path string, data []byte) ([]Server, error) {
	var top map[string]json.RawMessage
	if err := json.Unmarshal(data, &top); err != nil {
		if bytes.HasPrefix(bytes.TrimSpace(data), []byte("{")) || len(bytes.TrimSpace(data)) == 0 {
			return nil, &ConfigError{Path: path, Reason: "invalid JSON: " + jsonReason(err)}
		}
		return nil, &ConfigError{Path: path, Reason: "expected a JSON object with \"mcpServers\""}
	}
	rawServers, ok := top["mcpServers"]
	if !ok {
		return nil, &ConfigError{Path: path, Reason: "missing \"mcpServers\" object"}
	}
	var entries map[string]json.RawMessage
	if err := json.Unmarshal(rawServers, &entries); err != nil || entries == nil {
		return nil, &ConfigError{Path: path, Reason: "\"mcpServers\" must be an object of server name to server"}
	}
	names := make([]string, 0, len(entries))
	for name := range entries {
		names = append(names, name)
	}
	slices.Sort(names)
	var servers []Server
	var problems []string
	for _, name := range names {
		s, err := parseServer(name, entries[name])
		if err != nil {
			problems = append(problems, fmt.Sprintf("server %q: %v", name, err))
			continue
		}
		s.Source = path
		servers = append(servers, s)
	}
	if len(problems) > 0 {
		return servers, &ConfigError{Path: path, Reason: strings.Join(problems, "; ")}
	}
	return servers, nil
}

func parseServer(name string, raw json.RawMessage) (Server, error) {
	if strings.TrimSpace(name) == "" {
		return Server{}, errors.New("empty server name")
	}
	if !hasNameRune(name) {
		return Server{}, errors.New("the name has no letter, digit, '_' or '-'")
	}
	var r rawServer
	if err := json.Unmarshal(raw, &r); err != nil {
		return Server{}, errors.New(jsonReason(err))
	}
	if bytes.Equal(bytes.TrimSpace(raw), []byte("null")) {
		return Server{}, errors.New("expected an object with \"command\" or \"url\"")
	}
	s := Server{Name: name, Command: strings.TrimSpace(r.Command), Args: r.Args, Env: r.Env, URL: strings.TrimSpace(r.URL), Headers: r.Headers}
	switch {
	case s.Command != "" && s.URL != "":
		return Server{}, errors.New("has both \"command\" and \"url\"; give one")
	case s.Command == "" && s.URL == "":
		return Server{}, errors.New("needs \"command\" (stdio) or \"url\" (Streamable HTTP)")
	}
	switch r.Type {
	case "", "stdio", "http", "streamable-http", "streamableHttp":
	case "sse":
		return Server{}, errors.New("type \"sse\" is not supported; use the server's Streamable HTTP url")
	default:
		return Server{}, fmt.Errorf("unknown type %q (want \"stdio\" or \"http\")", r.Type)
	}
	if r.Type == "stdio" && s.Command == "" {
		return Server{}, errors.New("type \"stdio\" needs \"command\"")
	}
	if r.Type != "" && r.Type != "stdio" && s.URL == "" {
		return Server{}, fmt.Errorf("type %q needs \"url\"", r.Type)
	}
	if s.URL != "" {
		u, err := url.Parse(s.URL)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return Server{}, fmt.Errorf("url %q is not an http(s) URL", s.URL)
		}
		if len(s.Args) > 0 || len(s.Env) > 0 {
			return Server{}, errors.New("\"args\" and \"env\" apply to \"command\" servers only")
		}
	}
	if s.Command != "" && len(s.Headers) > 0 {
		return Server{}, errors.New("\"headers\" apply to \"url\" servers only")
	}
	return s, nil
}

// jsonReason is err's text without the "json: " prefix the user does not
// need.
func jsonReason(err error) string {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return fmt.Sprintf("%s (at byte %d)", strings.TrimPrefix(se.Error(), "json: "), se.Offset)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		field := te.Field
		if field == "" {
			field = "value"
		}
		return fmt.Sprintf("%s must be %s, not %s", field, jsonKind(te.Type.Kind().String()), te.Value)
	}
	return strings.TrimPrefix(err.Error(), "json: ")
}

func jsonKind(goKind string) string {
	switch goKind {
	case "slice", "array":
		return "an array"
	case "map", "struct":
		return "an object"
	case "string":
		return "a string"
	}
	return "a " + goKind
}

// File is one config file to read. Trusted says whether its servers may
// start; Required says whether a missing file is worth reporting (true for
// a file the user named, false for the default locations).
type File struct {
	Path     string
	Trusted  bool
	Required bool
}

// ConfigFiles lists the config files OpenSeek reads, lowest precedence
// first: ~/.openseek/mcp.json (trusted: it is the user's), the workspace's
// .mcp.json (trusted only if workspaceTrusted), and flagPath from
// --mcp-config when not empty (trusted by being named). Empty home or
// workspace leave their file out.
func ConfigFiles(home, workspace, flagPath string, workspaceTrusted bool) []File {
	var files []File
	if home != "" {
		files = append(files, File{Path: filepath.Join(home, ".openseek", "mcp.json"), Trusted: true})
	}
	if workspace != "" {
		files = append(files, File{Path: filepath.Join(workspace, ".mcp.json"), Trusted: workspaceTrusted})
	}
	if flagPath != "" {
		files = append(files, File{Path: flagPath, Trusted: true, Required: true})
	}
	return files
}

// Load reads files in order and returns the servers of the trusted ones,
// sorted by name; a server defined again in a later file replaces the
// earlier definition. Problems become events and never stop the others:
// mcp_config_unreadable (a Required file that is missing, or any file that
// exists and cannot be read), mcp_config_invalid (the file and reason; its
// valid servers still load), and mcp_config_ignored for an untrusted file
// that defines servers. emit may be nil.
func Load(files []File, emit func(protocol.Event)) []Server {
	if emit == nil {
		emit = func(protocol.Event) {}
	}
	byName := map[string]Server{}
	for _, f := range files {
		servers, err := LoadFile(f.Path)
		var ce *ConfigError
		switch {
		case errors.As(err, &ce):
			emit(protocol.McpConfigInvalid{Path: f.Path, Error: ce.Reason})
		case err != nil:
			if errors.Is(err, fs.ErrNotExist) && !f.Required {
				continue
			}
			emit(protocol.McpConfigUnreadable{Path: f.Path, Error: fsReason(err)})
			continue
		}
		if !f.Trusted {
			if len(servers) > 0 {
				emit(protocol.McpConfigIgnored{Reason: fmt.Sprintf("%s is not trusted; its %d MCP server(s) will start once you trust it", f.Path, len(servers))})
			}
			continue
		}
		for _, s := range servers {
			byName[s.Name] = s
		}
	}
	out := make([]Server, 0, len(byName))
	for _, s := range byName {
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b Server) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// fsReason is the os error's own text ("no such file or directory")
// without the path the event carries anyway.
func fsReason(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err.Error()
	}
	return err.Error()
}
