package runtime

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/openseek/openseek/internal/config"
)

// Every key the engine reads from a config table has a class in
// config.Keys, so a new field here cannot escape the trust filter: the
// loader would refuse the key, and this test names it.
func TestEngineConfigKeysHaveAClass(t *testing.T) {
	var known []string
	for _, k := range config.Keys() {
		known = append(known, k.Path)
	}
	for table, v := range map[string]any{"sandbox": sandboxConfig{}, "verify": verifyConfig{}, "files": filesConfig{}} {
		typ := reflect.TypeOf(v)
		for i := range typ.NumField() {
			tag, _, _ := strings.Cut(typ.Field(i).Tag.Get("toml"), ",")
			if !slices.Contains(known, table+"."+tag) {
				t.Errorf("%s.%s (%s.%s) has no class in config.Keys", table, tag, typ.Name(), typ.Field(i).Name)
			}
		}
	}
}
