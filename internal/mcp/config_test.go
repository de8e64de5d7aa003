package mcp

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/openseek/openseek/protocol"
)

func TestLoadFile(t *testing.T) {
	tests := []struct {
		name    string
		data    string
		want    []Server
		wantErr string // substring of the ConfigError reason; "" = no error
	}{
		{
			name: "stdio and http",
			data: `{"mcpServers": {
				"fs": {"command": "npx", "args": ["-y", "server-fs", "/tmp"], "env": {"K": "V"}},
				"web": {"type": "http", "url": "https://example.com/mcp", "headers": {"Authorization": "Bearer x"}},
				"z": {"type": "stdio", "command": "z", "cwd": "/ignored"}
			}}`,
			want: []Server{
				{Name: "fs", Command: "npx", Args: []string{"-y", "server-fs", "/tmp"}, Env: map[string]string{"K": "V"}},
				{Name: "web", URL: "https://example.com/mcp", Headers: map[string]string{"Authorization": "Bearer x"}},
				{Name: "z", Command: "z"},
			},
		},
		{name: "empty servers", data: `{"mcpServers": {}}`},
		{name: "malformed JSON", data: `{"mcpServers": {"a": {"command": "x",}}}`, wantErr: "invalid JSON: invalid character '}'"},
		{name: "truncated", data: `{"mcpServers": {`, wantErr: "invalid JSON: unexpected end of JSON input"},
		{name: "empty file", data: ``, wantErr: "invalid JSON"},
		{name: "array", data: `[1]`, wantErr: `expected a JSON object with "mcpServers"`},
		{name: "VS Code shape", data: `{"servers": {}}`, wantErr: `missing "mcpServers" object`},
		{name: "servers not an object", data: `{"mcpServers": []}`, wantErr: `"mcpServers" must be an object`},
		{
			name:    "neither command nor url; the rest loads",
			data:    `{"mcpServers": {"bad": {"args": ["x"]}, "good": {"command": "g"}}}`,
			want:    []Server{{Name: "good", Command: "g"}},
			wantErr: `server "bad": needs "command" (stdio) or "url" (Streamable HTTP)`,
		},
		{name: "both", data: `{"mcpServers": {"b": {"command": "x", "url": "http://h/"}}}`, wantErr: `server "b": has both "command" and "url"`},
		{name: "bad url", data: `{"mcpServers": {"b": {"url": "ftp://h/"}}}`, wantErr: `server "b": url "ftp://h/" is not an http(s) URL`},
		{name: "sse", data: `{"mcpServers": {"b": {"type": "sse", "url": "http://h/sse"}}}`, wantErr: `type "sse" is not supported`},
		{name: "unknown type", data: `{"mcpServers": {"b": {"type": "ws", "url": "http://h/"}}}`, wantErr: `unknown type "ws"`},
		{name: "stdio type with url", data: `{"mcpServers": {"b": {"type": "stdio", "url": "http://h/"}}}`, wantErr: `type "stdio" needs "command"`},
		{name: "args not strings", data: `{"mcpServers": {"b": {"command": "x", "args": [1]}}}`, wantErr: `server "b": args must be a string, not number`},
		{name: "env not object", data: `{"mcpServers": {"b": {"command": "x", "env": ["A=1"]}}}`, wantErr: `server "b": env must be an object, not array`},
		{name: "server is null", data: `{"mcpServers": {"b": null}}`, wantErr: `server "b": expected an object`},
		{name: "server is a string", data: `{"mcpServers": {"b": "npx x"}}`, wantErr: `server "b": value must be an object, not string`},
		{name: "headers on stdio", data: `{"mcpServers": {"b": {"command": "x", "headers": {"A": "1"}}}}`, wantErr: `"headers" apply to "url" servers only`},
		{name: "nameless", data: `{"mcpServers": {"": {"command": "x"}, "!!": {"command": "y"}}}`, wantErr: `server "": empty server name; server "!!": the name has no letter`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "mcp.json")
			if err := os.WriteFile(path, []byte(tc.data), 0o600); err != nil {
				t.Fatal(err)
			}
			got, err := LoadFile(path)
			for i := range tc.want {
				tc.want[i].Source = path
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("servers = %+v\nwant %+v", got, tc.want)
			}
			var ce *ConfigError
			switch {
			case tc.wantErr == "" && err != nil:
				t.Errorf("unexpected error %v", err)
			case tc.wantErr != "" && (!errors.As(err, &ce) || ce.Path != path || !strings.Contains(ce.Reason, tc.wantErr)):
				t.Errorf("error = %v, want a ConfigError naming %s with %q", err, path, tc.wantErr)
			case tc.wantErr != "" && !strings.Contains(err.Error(), path):
				t.Errorf("error %q does not name the file", err)
			}
		})
	}
}

func TestLoadFileUnreadable(t *testing.T) {
	_, err := LoadFile(filepath.Join(t.TempDir(), "absent.json"))
	var ce *ConfigError
	if err == nil || errors.As(err, &ce) || !errors.Is(err, os.ErrNotExist) {
		t.Errorf("missing file error = %v", err)
	}
}

func TestLoad(t *testing.T) {
	home, ws, dir := t.TempDir(), t.TempDir(), t.TempDir()
	write := func(path, data string) {
		t.Helper()
		if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	userFile := filepath.Join(home, ".openseek", "mcp.json")
	repoFile := filepath.Join(ws, ".mcp.json")
	flagFile := filepath.Join(dir, "flag.json")
	write(userFile, `{"mcpServers": {"a": {"command": "user-a"}, "b": {"command": "user-b"}}}`)
	write(repoFile, `{"mcpServers": {"b": {"command": "repo-b"}, "c": {"command": "repo-c"}, "bad": {}}}`)
	write(flagFile, `{"mcpServers": {"a": {"url": "http://flag/a"}}}`)

	tests := []struct {
		name     string
		files    []File
		want     string // name=command-or-url,...
		wantEvts []string
	}{
		{
			name:  "trusted repo: later files override",
			files: ConfigFiles(home, ws, flagFile, true),
			want:  "a=http://flag/a,b=repo-b,c=repo-c",
			wantEvts: []string{
				`{"event":"mcp_config_invalid","path":"` + repoFile + `","error":"server \"bad\": needs \"command\" (stdio) or \"url\" (Streamable HTTP)"}`,
			},
		},
		{
			name:  "untrusted repo is ignored",
			files: ConfigFiles(home, ws, "", false),
			want:  "a=user-a,b=user-b",
			wantEvts: []string{
				`{"event":"mcp_config_invalid","path":"` + repoFile + `","error":"server \"bad\": needs \"command\" (stdio) or \"url\" (Streamable HTTP)"}`,
				`{"event":"mcp_config_ignored","reason":"` + repoFile + ` is not trusted; its 2 MCP server(s) will start once you trust it"}`,
			},
		},
		{
			name:  "missing defaults are silent, a missing named file is not",
			files: ConfigFiles(t.TempDir(), t.TempDir(), filepath.Join(dir, "nope.json"), true),
			wantEvts: []string{
				`{"event":"mcp_config_unreadable","path":"` + filepath.Join(dir, "nope.json") + `","error":"no such file or directory"}`,
			},
		},
		{
			name:  "malformed named file, the rest starts",
			files: []File{{Path: userFile, Trusted: true}, {Path: writeTemp(t, `{"mcpServers": `), Trusted: true, Required: true}},
			want:  "a=user-a,b=user-b",
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := &recorder{}
			servers := Load(tc.files, rec.emit)
			var got []string
			for _, s := range servers {
				got = append(got, s.Name+"="+s.Command+s.URL)
			}
			if strings.Join(got, ",") != tc.want {
				t.Errorf("servers = %v, want %s", got, tc.want)
			}
			evts := rec.all()
			if tc.wantEvts == nil {
				if len(evts) != 1 || !strings.HasPrefix(evts[0], `{"event":"mcp_config_invalid"`) {
					t.Errorf("events = %v", evts)
				}
				return
			}
			if !reflect.DeepEqual(evts, tc.wantEvts) {
				t.Errorf("events:\n%s\nwant:\n%s", strings.Join(evts, "\n"), strings.Join(tc.wantEvts, "\n"))
			}
		})
	}
	// The events parse back as the protocol's MCP events.
	if _, ok := protocol.ParseEvent([]byte(`{"event":"mcp_config_invalid","path":"p","error":"e"}`)); !ok {
		t.Error("mcp_config_invalid does not parse")
	}
}

func writeTemp(t *testing.T, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "cfg.json")
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// FuzzParse checks that any file either loads servers that are valid
// (exactly one transport, a name) or fails with a ConfigError, and never
// panics.
func FuzzParse(f *testing.F) {
	for _, seed := range []string{
		`{"mcpServers": {"fs": {"command": "npx", "args": ["a"], "env": {"K": "V"}}}}`,
		`{"mcpServers": {"w": {"type": "http", "url": "https://h/mcp", "headers": {"A": "b"}}}}`,
		`{"mcpServers": {"b": {}}}`,
		`{"mcpServers": null}`,
		`[]`, ``, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		servers, err := parse("f.json", data)
		var ce *ConfigError
		if err != nil && !errors.As(err, &ce) {
			t.Fatalf("error %v is not a ConfigError", err)
		}
		for _, s := range servers {
			if (s.Command == "") == (s.URL == "") || !hasNameRune(s.Name) || s.Source != "f.json" {
				t.Fatalf("invalid server loaded: %+v", s)
			}
		}
	})
}
