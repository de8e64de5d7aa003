package config_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/config"
)

// samples set each key of the table in a file; probe is what the loaded
// config shows when the key counted. A key added to the table without a
// sample fails TestRepositoryKeys, so every key's class is tested.
var samples = map[string]struct{ toml, probe string }{
	"model":                       {"model = \"openai/m4242\"", "m4242"},
	"providers.*.api":             {"[providers.openai]\napi = \"responses\"", "responses"},
	"providers.*.base_url":        {"[providers.openai]\nbase_url = \"http://h4242/v1\"", "h4242"},
	"providers.*.api_key":         {"[providers.openai]\napi_key = \"sk-4242\"", "sk-4242"},
	"providers.*.api_key_command": {"[providers.openai]\napi_key_command = \"echo k4242\"", "k4242"},
	"providers.*.api_key_env":     {"[providers.openai]\napi_key_env = \"V4242\"", "V4242"},
	"providers.*.headers":         {"[providers.openai]\nheaders = { X-A = \"h4242\" }", "h4242"},
	"providers.*.extra_body":      {"[providers.openai]\nextra_body = { route = \"r4242\" }", "r4242"},
	"providers.*.no_key":          {"[providers.n4242]\nno_key = true", "n4242"},
	"models.*.window":             {"[models.\"openai/m\"]\nwindow = 4242", "4242"},
	"models.*.max_output":         {"[models.\"openai/m\"]\nmax_output = 4242", "4242"},
	"models.*.reasoning":          {"[models.\"openai/m4242\"]\nreasoning = true", "m4242"},
	"models.*.price":              {"[models.\"openai/m\"]\nprice = { output = 4242 }", "4242"},
	"profiles.*.candidates":       {"[profiles.p4242]\ncandidates = [\"openai/m\"]", "p4242"},
	"budget.max_cost":             {"[budget]\nmax_cost = 4242", "4242"},
	"fleet.nats":                  {"[fleet]\nnats = \"nats://h4242:4222\"", "h4242"},
	"rules.pattern":               {"[[rules]]\npattern = [\"w4242\"]\ndecision = \"deny\"", "w4242"},
	"rules.decision":              {"[[rules]]\npattern = [\"x\"]\ndecision = \"deny\"", "deny"},
	"sandbox.enabled":             {"[sandbox]\nenabled = false", "enabled:"},
	"sandbox.network":             {"[sandbox]\nnetwork = [\"h4242:22\"]", "h4242"},
	"sandbox.writable_roots":      {"[sandbox]\nwritable_roots = [\"/w4242\"]", "w4242"},
	"sandbox.allow_env":           {"[sandbox]\nallow_env = [\"V4242\"]", "V4242"},
	"files.allow_secrets":         {"[files]\nallow_secrets = [\"dev4242.env\"]", "dev4242.env"},
	"telemetry.otlp_endpoint":     {"[telemetry]\notlp_endpoint = \"http://h4242:4318\"", "h4242"},
	"telemetry.log_prompts":       {"[telemetry]\nlog_prompts = true", "log_prompts:"},
	"tools.add":                   {"[tools]\nadd = [\"t4242\"]", "t4242"},
	"tools.remove":                {"[tools]\nremove = [\"t4242\"]", "t4242"},
	"tools.search_budget":         {"[tools]\nsearch_budget = 4242", "4242"},
	"tui.bell":                    {"[tui]\nbell = false", "bell:"},
	"tui.inline":                  {"[tui]\ninline = true", "inline:"},
	"verify.command":              {"[verify]\ncommand = \"c4242\"", "c4242"},
	"verify.enabled":              {"[verify]\nenabled = false", "enabled:"},
	"verify.max_repairs":          {"[verify]\nmax_repairs = 4242", "4242"},
	"verify.timeout":              {"[verify]\ntimeout = \"4242s\"", "4242"},
}

func dump(c *config.Config) string {
	return fmt.Sprintf("%q %+v %+v %+v %v", c.Model, c.Providers, c.Models, c.Profiles, c.Raw)
}

func held(c *config.Config, class config.Class) []string {
	var out []string
	for _, h := range c.Held {
		if h.Class == class {
			out = append(out, h.Keys...)
		}
	}
	return out
}

// A repository's file sets each key; the key counts there at once (yes),
// once the file is trusted (once trusted) or never, and every key left
// out is named in Held. The user's own file sets every key.
func TestRepositoryKeys(t *testing.T) {
	for _, k := range config.Keys() {
		t.Run(k.Path, func(t *testing.T) {
			s, ok := samples[k.Path]
			if !ok {
				t.Fatalf("no sample for %s: add one to samples so its class (%s) is tested", k.Path, k.Class)
			}
			name := concrete(k.Path, s.toml)
			home, ws := dirs(t, "", s.toml+"\n")
			untrusted, err := config.Load(home, ws, env{}.get)
			if err != nil {
				t.Fatal(err)
			}
			trusted, err := config.LoadTrusting(home, ws, env{}.get, config.TrustAll)
			if err != nil {
				t.Fatal(err)
			}
			counts := func(c *config.Config) bool { return strings.Contains(dump(c), s.probe) }
			isHeld := func(c *config.Config) bool {
				return slices.Contains(held(c, config.OnceTrusted), name) || slices.Contains(held(c, config.UserOnly), name)
			}
			want := map[config.Class][2]bool{ // untrusted, trusted
				config.Anywhere:    {true, true},
				config.OnceTrusted: {false, true},
				config.UserOnly:    {false, false},
			}[k.Class]
			for i, c := range []*config.Config{untrusted, trusted} {
				if counts(c) != want[i] || isHeld(c) == want[i] {
					t.Errorf("trusted=%v: counts %v, held %v (Held %+v); a %q key should count: %v", i == 1, counts(c), isHeld(c), c.Held, k.Class, want[i])
				}
			}
			home, ws = dirs(t, s.toml+"\n", "")
			user, err := config.Load(home, ws, env{}.get)
			if err != nil || !counts(user) || len(user.Held) != 0 {
				t.Errorf("the user's file: err %v, counts %v, held %+v", err, counts(user), user.Held)
			}
		})
	}
}

// concrete is the key path of a table row with * replaced by the name
// the sample uses.
func concrete(pattern, sample string) string {
	if !strings.Contains(pattern, "*") {
		return pattern
	}
	header := sample[strings.Index(sample, "[")+1 : strings.Index(sample, "]")]
	_, name, _ := strings.Cut(header, ".")
	return strings.Replace(pattern, "*", name, 1)
}

// The table is the schema: a key without a row is an unknown key, so a
// setting cannot be read without being given a class.
func TestUnclassifiedKeyIsUnknown(t *testing.T) {
	for body, want := range map[string]string{
		"[fleet]\nurl = \"nats://a\"\n":   ":2:8: unknown key fleet.url; known keys: nats",
		"[sandbox]\nnetwrok = true\n":     "unknown key sandbox.netwrok (did you mean network?); known keys: allow_env, enabled, network, writable_roots",
		"[[rules]]\nallow = \"ls\"\n":     "unknown key rules.allow; known keys: decision, pattern",
		"[telemetry]\nendpoint = \"x\"\n": "unknown key telemetry.endpoint (did you mean otlp_endpoint?); known keys: log_prompts, otlp_endpoint",
		"[tracing]\nendpoint = \"x\"\n":   "unknown key tracing; known keys: budget, files, fleet, model, models, profiles, providers, rules, sandbox, telemetry, tools, tui, verify",
	} {
		home, ws := dirs(t, body, "")
		if _, err := config.Load(home, ws, env{}.get); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: error %v, want %q", body, err, want)
		}
	}
}

// The warning names the keys, the file and what to do.
func TestHeldWarning(t *testing.T) {
	home, ws := dirs(t, "", "[fleet]\nnats = \"nats://x:4222\"\n[providers.openai]\nbase_url = \"http://x/v1\"\napi_key = \"sk\"\nno_key = true\n")
	c, err := config.Load(home, ws, env{}.get)
	if err != nil {
		t.Fatal(err)
	}
	_, file := config.Paths(home, ws)
	var got []string
	for _, h := range c.Held {
		got = append(got, h.String())
	}
	want := []string{
		"[config] ignored until you trust this workspace: fleet.nats, providers.openai.base_url in " + file + " (these keys send data elsewhere or run programs); run `openseek trust` in the workspace, or pass --trust-workspace",
		"[config] ignored: providers.openai.api_key in " + file + "; a repository may never set these keys, only ~/.openseek/config.toml may",
	}
	if !slices.Equal(got, want) {
		t.Errorf("warnings:\n%q\nwant\n%q", got, want)
	}
	if !c.Providers["openai"].NoKey || c.Providers["openai"].BaseURL != "https://api.openai.com/v1" {
		t.Errorf("openai = %+v: no_key counts, base_url does not", c.Providers["openai"])
	}
}

// Trust is for the content trusted: the predicate sees the bytes read.
func TestTrustSeesContent(t *testing.T) {
	body := "[fleet]\nnats = \"nats://x:4222\"\n"
	home, ws := dirs(t, "", body)
	var saw string
	c, err := config.LoadTrusting(home, ws, env{}.get, func(path string, data []byte) bool {
		saw = string(data)
		return false
	})
	if err != nil || saw != body || len(c.Held) != 1 {
		t.Fatalf("err %v, saw %q, held %+v", err, saw, c.Held)
	}
}
