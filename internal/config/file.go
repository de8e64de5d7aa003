package config

import (
	"errors"
	"fmt"
	"net/url"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/openseek/openseek/internal/llm"
)

// FileError is a problem at a place in a config file.
type FileError struct {
	Path      string
	Line, Col int
	Message   string
}

func (e *FileError) Error() string {
	return fmt.Sprintf("%s:%d:%d: %s", e.Path, e.Line, e.Col, e.Message)
}

// maxFileErrors bounds how many problems one file reports at once.
const maxFileErrors = 10

// file is one parsed config file. Provider fields record which keys were
// set, so that a file can change one field of a built-in provider.
type file struct {
	model     string
	providers map[string]fileProvider
	models    map[string]Model
	modelSet  map[string]map[string]bool
	profiles  map[string]Profile
	raw       map[string]any
	keys      []toml.Key // every key of the file, for the trust filter
	table     keyTable
}

type fileProvider struct {
	p   Provider
	set map[string]bool
}

func (fp fileProvider) apply(p *Provider) {
	for key := range fp.set {
		switch key {
		case "api":
			p.API = fp.p.API
		case "base_url":
			p.BaseURL = fp.p.BaseURL
		case "api_key":
			p.APIKey = fp.p.APIKey
		case "api_key_env":
			p.APIKeyEnv = fp.p.APIKeyEnv
		case "api_key_command":
			p.APIKeyCommand = fp.p.APIKeyCommand
		case "headers":
			p.Headers = fp.p.Headers
		case "extra_body":
			p.ExtraBody = fp.p.ExtraBody
		case "no_key":
			p.NoKey = fp.p.NoKey
		}
	}
}

// decoder walks a decoded document, collecting positioned errors. Every
// value is reached as a toml.Primitive so that its key's line and column
// stay known: an error is reported by decoding that primitive into a
// rejecter, which makes the TOML library attach the position.
type decoder struct {
	md   *toml.MetaData
	path string
	errs []*FileError
	keys keyTable
}

type rejecter struct{ msg string }

func (r rejecter) UnmarshalTOML(any) error { return errors.New(r.msg) }

func (d *decoder) fail(p toml.Primitive, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	err := d.md.PrimitiveDecode(p, rejecter{msg})
	d.add(err, msg)
}

// add records err, positioned when the library gave a position.
func (d *decoder) add(err error, msg string) {
	var pe toml.ParseError
	if errors.As(err, &pe) {
		d.errs = append(d.errs, &FileError{Path: d.path, Line: pe.Position.Line, Col: pe.Position.Col, Message: msg})
		return
	}
	d.errs = append(d.errs, &FileError{Path: d.path, Line: 1, Col: 1, Message: msg})
}

// value decodes p into dst; a type mismatch becomes "key must be want".
func (d *decoder) value(p toml.Primitive, key, want string, dst any) bool {
	if err := d.md.PrimitiveDecode(p, dst); err != nil {
		d.fail(p, "%s must be %s", key, want)
		return false
	}
	return true
}

// table decodes p as a table and calls fields[k] for each key k; a key
// without a handler is reported as unknown, with the known ones.
func (d *decoder) table(p toml.Primitive, key string, fields map[string]func(toml.Primitive, string)) {
	var t map[string]toml.Primitive
	if !d.isTable(p, key) || !d.value(p, key, "a table", &t) {
		return
	}
	for _, k := range sortedKeys(t) {
		full := key + "." + quoteKey(k)
		if h, ok := fields[k]; ok {
			h(t[k], full)
			continue
		}
		d.fail(t[k], "unknown key %s%s; known keys: %s", full, didYouMean(k, sortedKeys(fields)), joinList(sortedKeys(fields)))
	}
}

// each decodes p as a table of tables and calls f for each entry.
func (d *decoder) each(p toml.Primitive, key string, f func(name string, p toml.Primitive, full string)) {
	var t map[string]toml.Primitive
	if !d.isTable(p, key) || !d.value(p, key, "a table", &t) {
		return
	}
	for _, k := range sortedKeys(t) {
		f(k, t[k], key+"."+quoteKey(k))
	}
}

// isTable checks that p is a table: the TOML library decodes a non-table
// into a map as nothing, without an error.
func (d *decoder) isTable(p toml.Primitive, key string) bool {
	var v any
	if err := d.md.PrimitiveDecode(p, &v); err != nil {
		d.add(err, err.Error())
		return false
	}
	if _, ok := v.(map[string]any); !ok {
		d.fail(p, "%s must be a table", key)
		return false
	}
	return true
}

func (d *decoder) err() error {
	if len(d.errs) == 0 {
		return nil
	}
	sort.SliceStable(d.errs, func(i, j int) bool {
		a, b := d.errs[i], d.errs[j]
		return a.Line < b.Line || a.Line == b.Line && a.Col < b.Col
	})
	errs := make([]error, 0, maxFileErrors)
	for i, e := range d.errs {
		if i == maxFileErrors {
			errs = append(errs, fmt.Errorf("%s: %d more problems", d.path, len(d.errs)-i))
			break
		}
		errs = append(errs, e)
	}
	return errors.Join(errs...)
}

// parseFile reads one config file. Unknown keys inside [providers.*],
// [models.*] and [profiles.*] are errors (a misspelt key would otherwise be
// silently ignored); other top-level keys belong to other packages and are
// kept in raw.
func parseFile(path string, data []byte) (*file, error) {
	var top map[string]toml.Primitive
	md, err := toml.Decode(string(data), &top)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &FileError{Path: path, Line: pe.Position.Line, Col: pe.Position.Col, Message: pe.Message}
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	d := &decoder{md: &md, path: path, keys: newKeyTable()}
	f := &file{
		providers: map[string]fileProvider{},
		models:    map[string]Model{},
		modelSet:  map[string]map[string]bool{},
		profiles:  map[string]Profile{},
		raw:       map[string]any{},
	}
	for _, key := range sortedKeys(top) {
		p := top[key]
		switch key {
		case "model":
			if d.value(p, key, `a string such as "deepseek/deepseek-v4-flash"`, &f.model) && f.model == "" {
				d.fail(p, "model must not be empty")
			}
		case "providers":
			d.each(p, key, func(name string, p toml.Primitive, full string) {
				f.providers[name] = d.provider(p, full)
			})
		case "models":
			d.each(p, key, func(spec string, p toml.Primitive, full string) {
				prov, name, ok := cutSpec(spec)
				if !ok {
					d.fail(p, "%s: a model is named \"provider/model\", e.g. [models.\"ollama/qwen3-coder\"]", full)
					return
				}
				m, set := d.model(p, full)
				m.Provider, m.Name = prov, name
				f.models[spec], f.modelSet[spec] = m, set
			})
		case "profiles":
			d.each(p, key, func(name string, p toml.Primitive, full string) {
				f.profiles[name] = d.profile(name, p, full)
			})
		default:
			if !d.known(p, []string{key}) {
				continue
			}
			var v any
			if err := md.PrimitiveDecode(p, &v); err != nil {
				d.add(err, err.Error())
			}
			f.raw[key] = v
		}
	}
	if len(d.errs) == 0 {
		// Every key read must have a class: a key the parsers above accept
		// but Keys lacks would escape the trust filter, so it is refused
		// until it is given one.
		for _, k := range md.Keys() {
			if _, _, _, ok := d.keys.classOf(k); !ok {
				d.errs = append(d.errs, &FileError{Path: path, Line: 1, Col: 1, Message: fmt.Sprintf("key %s has no class in config.Keys: a repository could set it unchecked", dotted(k))})
			}
		}
	}
	if err := d.err(); err != nil {
		return nil, err
	}
	f.keys, f.table = md.Keys(), d.keys
	return f, nil
}

// known checks a key of a table another package reads against the key
// table (Keys), and the keys below it: an unknown one is an error with
// the known ones.
func (d *decoder) known(p toml.Primitive, path []string) bool {
	_, _, container, ok := d.keys.classOf(path)
	if !ok {
		parent := path[:len(path)-1]
		known := d.keys.knownBelow(parent)
		last := path[len(path)-1]
		d.fail(p, "unknown key %s%s; known keys: %s", dotted(path), didYouMean(last, known), joinList(known))
		return false
	}
	if !container {
		return true
	}
	var v any
	_ = d.md.PrimitiveDecode(p, &v)
	var tables []map[string]toml.Primitive
	switch v.(type) {
	case map[string]any:
		var t map[string]toml.Primitive
		_ = d.md.PrimitiveDecode(p, &t)
		tables = append(tables, t)
	case []map[string]any: // [[rules]]
		_ = d.md.PrimitiveDecode(p, &tables)
	}
	// Anything else is not a table: its reader says what it must be.
	ok = true
	for _, t := range tables {
		for _, k := range sortedKeys(t) {
			ok = d.known(t[k], append(slices.Clone(path), k)) && ok
		}
	}
	return ok
}

func dotted(path []string) string {
	q := make([]string, len(path))
	for i, k := range path {
		q[i] = quoteKey(k)
	}
	return strings.Join(q, ".")
}

func (d *decoder) provider(p toml.Primitive, key string) fileProvider {
	fp := fileProvider{set: map[string]bool{}}
	str := func(name string, dst *string, check func(string) string) func(toml.Primitive, string) {
		return func(p toml.Primitive, full string) {
			if !d.value(p, full, "a string", dst) {
				return
			}
			if check != nil {
				if msg := check(*dst); msg != "" {
					d.fail(p, "%s %s", full, msg)
					return
				}
			}
			fp.set[name] = true
		}
	}
	d.table(p, key, map[string]func(toml.Primitive, string){
		"api": str("api", &fp.p.API, func(s string) string {
			switch s {
			case APIOpenAI, APIAnthropic, APIResponses:
				return ""
			}
			return fmt.Sprintf("is %q; use %q, %q or %q", s, APIOpenAI, APIAnthropic, APIResponses)
		}),
		"base_url":        str("base_url", &fp.p.BaseURL, checkURL),
		"api_key":         str("api_key", &fp.p.APIKey, nil),
		"api_key_command": str("api_key_command", &fp.p.APIKeyCommand, nil),
		"api_key_env": func(p toml.Primitive, full string) {
			var v any
			if !d.value(p, full, "a variable name or a list of them", &v) {
				return
			}
			switch v := v.(type) {
			case string:
				fp.p.APIKeyEnv = []string{v}
			case []any:
				for _, e := range v {
					s, ok := e.(string)
					if !ok || s == "" {
						d.fail(p, "%s must be a variable name or a list of them", full)
						return
					}
					fp.p.APIKeyEnv = append(fp.p.APIKeyEnv, s)
				}
			default:
				d.fail(p, "%s must be a variable name or a list of them", full)
				return
			}
			fp.set["api_key_env"] = true
		},
		"headers": func(p toml.Primitive, full string) {
			var v any
			_ = d.md.PrimitiveDecode(p, &v)
			t, ok := v.(map[string]any)
			for _, hv := range t {
				if _, isString := hv.(string); !isString {
					ok = false
				}
			}
			if !ok {
				d.fail(p, "%s must be a table of strings, e.g. { X-Title = \"OpenSeek\" }", full)
				return
			}
			if d.value(p, full, "a table of strings", &fp.p.Headers) {
				fp.set["headers"] = true
			}
		},
		"extra_body": func(p toml.Primitive, full string) {
			if d.isTable(p, full) && d.value(p, full, "a table", &fp.p.ExtraBody) {
				fp.set["extra_body"] = true
			}
		},
		"no_key": func(p toml.Primitive, full string) {
			if d.value(p, full, "true or false", &fp.p.NoKey) {
				fp.set["no_key"] = true
			}
		},
	})
	return fp
}

func checkURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Sprintf("is %q; it must be an http:// or https:// URL", s)
	}
	return ""
}

func (d *decoder) model(p toml.Primitive, key string) (Model, map[string]bool) {
	var m Model
	set := map[string]bool{}
	count := func(name string, dst *int) func(toml.Primitive, string) {
		return func(p toml.Primitive, full string) {
			if !d.value(p, full, "a whole number of tokens", dst) {
				return
			}
			if *dst < 0 {
				d.fail(p, "%s must not be negative", full)
				return
			}
			set[name] = true
		}
	}
	price := func(dst *float64) func(toml.Primitive, string) {
		return func(p toml.Primitive, full string) {
			if d.value(p, full, "a number (USD per million tokens)", dst) && *dst < 0 {
				d.fail(p, "%s must not be negative", full)
			}
		}
	}
	d.table(p, key, map[string]func(toml.Primitive, string){
		"window":     count("window", &m.Window),
		"max_output": count("max_output", &m.MaxOutput),
		"reasoning": func(p toml.Primitive, full string) {
			if d.value(p, full, "true or false", &m.Reasoning) {
				set["reasoning"] = true
			}
		},
		"price": func(p toml.Primitive, full string) {
			var pr llm.Price
			d.table(p, full, map[string]func(toml.Primitive, string){
				"input_hit":  price(&pr.InputHit),
				"input_miss": price(&pr.InputMiss),
				"output":     price(&pr.Output),
			})
			m.Price = pr
			set["price"] = true
		},
	})
	return m, set
}

func (d *decoder) profile(name string, p toml.Primitive, key string) Profile {
	pr := Profile{Name: name}
	d.table(p, key, map[string]func(toml.Primitive, string){
		"candidates": func(p toml.Primitive, full string) {
			if !d.value(p, full, `a list of "provider/model" names`, &pr.Candidates) {
				return
			}
			if len(pr.Candidates) == 0 {
				d.fail(p, "%s is empty; list at least one \"provider/model\"", full)
			}
			for _, c := range pr.Candidates {
				if _, _, ok := cutSpec(c); !ok {
					d.fail(p, "%s: %q is not \"provider/model\"", full, c)
				}
			}
		},
	})
	if pr.Candidates == nil {
		d.fail(p, "%s needs candidates = [\"provider/model\", …]", key)
	}
	return pr
}

// cutSpec splits "provider/model"; the model part may itself contain
// slashes (openrouter/anthropic/claude-sonnet-4.5).
func cutSpec(spec string) (provider, model string, ok bool) {
	provider, model, ok = strings.Cut(spec, "/")
	return provider, model, ok && provider != "" && model != ""
}

func quoteKey(k string) string {
	for _, r := range k {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-') {
			return fmt.Sprintf("%q", k)
		}
	}
	return k
}

func joinList(items []string) string { return strings.Join(items, ", ") }
