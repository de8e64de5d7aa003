package llm

import (
	"regexp"
	"slices"
	"strings"

	"charm.land/catwalk/pkg/catwalk"
	"charm.land/catwalk/pkg/embedded"
)

// CatalogueModel is what the public model catalogue (charm.land/catwalk's
// embedded data) knows about one model of one provider.
type CatalogueModel struct {
	Provider  string // the catwalk provider id ("openai", "anthropic", "openrouter", …)
	Name      string // the model id as the provider's API names it
	Window    int    // context window in tokens
	MaxOutput int    // the catalogue's default completion cap
	Price     Price
	Reasoning bool // the model can reason (thinking / reasoning effort)
}

// Catalogue is a snapshot of the public model catalogue. It is read-only
// once built; build it once and share it.
type Catalogue struct {
	byProvider map[string]catalogueProvider
}

type catalogueProvider struct {
	models   []CatalogueModel
	defaults []string // the catalogue's suggested large and small models
}

// LoadCatalogue decodes the catalogue embedded in the binary (a few
// milliseconds: call it once, not per request).
func LoadCatalogue() *Catalogue {
	return newCatalogue(embedded.GetAll())
}

func newCatalogue(providers []catwalk.Provider) *Catalogue {
	c := &Catalogue{byProvider: make(map[string]catalogueProvider, len(providers))}
	for _, p := range providers {
		id := string(p.ID)
		if id == "" {
			continue
		}
		cp := catalogueProvider{}
		for _, m := range p.Models {
			cp.models = append(cp.models, CatalogueModel{
				Provider:  id,
				Name:      m.ID,
				Window:    int(m.ContextWindow),
				MaxOutput: int(m.DefaultMaxTokens),
				Price:     cataloguePrice(m),
				Reasoning: m.CanReason,
			})
		}
		for _, d := range []string{p.DefaultLargeModelID, p.DefaultSmallModelID} {
			if d != "" && !slices.Contains(cp.defaults, d) {
				cp.defaults = append(cp.defaults, d)
			}
		}
		c.byProvider[id] = cp
	}
	return c
}

// cataloguePrice maps catwalk's four prices to ours. catwalk is not
// consistent about which "cached" column holds the cache-read price
// (Anthropic entries put the cache-write price in CostPer1MInCached and the
// read price in CostPer1MOutCached; some OpenAI entries do the reverse), so
// the hit price is the cheapest positive cached price that does not exceed
// the miss price, else the miss price.
func cataloguePrice(m catwalk.Model) Price {
	hit := m.CostPer1MIn
	for _, c := range []float64{m.CostPer1MOutCached, m.CostPer1MInCached} {
		if c > 0 && c < hit {
			hit = c
		}
	}
	return Price{InputHit: hit, InputMiss: m.CostPer1MIn, Output: m.CostPer1MOut}
}

// datedSuffix matches a release-date suffix (claude-sonnet-4-5-20250929)
// so that the vendor's undated alias finds its dated entry.
var datedSuffix = regexp.MustCompile(`-(\d{8}|\d{4}-\d{2}-\d{2})$`)

// Lookup finds a model of a catwalk provider: the exact id first, then an
// entry whose id is name plus a release-date suffix (the vendors accept the
// undated alias), then, for OpenRouter-style "vendor/model" ids, the same
// with dots and dashes treated alike (claude-sonnet-4-5 ↔ 4.5).
func (c *Catalogue) Lookup(provider, name string) (CatalogueModel, bool) {
	if c == nil {
		return CatalogueModel{}, false
	}
	models := c.byProvider[provider].models
	for _, m := range models {
		if m.Name == name {
			return m, true
		}
	}
	for _, m := range models {
		if datedSuffix.MatchString(m.Name) && datedSuffix.ReplaceAllString(m.Name, "") == name {
			return m, true
		}
	}
	norm := strings.ReplaceAll(name, ".", "-")
	for _, m := range models {
		if strings.ReplaceAll(m.Name, ".", "-") == norm {
			return m, true
		}
	}
	return CatalogueModel{}, false
}

// Defaults returns the catalogue's suggested models for a provider (its
// default large and small model), for listings.
func (c *Catalogue) Defaults(provider string) []string {
	if c == nil {
		return nil
	}
	return append([]string(nil), c.byProvider[provider].defaults...)
}

// Models returns every catalogue model of a provider.
func (c *Catalogue) Models(provider string) []CatalogueModel {
	if c == nil {
		return nil
	}
	return append([]CatalogueModel(nil), c.byProvider[provider].models...)
}
