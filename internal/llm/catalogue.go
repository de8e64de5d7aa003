package llm

import (
	"regexp"
	"slices"
	"strings"
)

//go:generate go run ./cataloguegen

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

// Catalogue is the public model catalogue. It is compiled into the binary
// as a table (catalogue_data.go, generated from charm.land/catwalk by
// cataloguegen), so it costs nothing until a lookup reads it: no JSON to
// decode at start-up, no catwalk linked. It is read-only.
type Catalogue struct {
	providers []catalogueProvider // sorted by id
}

type catalogueProvider struct {
	id       string
	models   []CatalogueModel
	defaults []string // the catalogue's suggested large and small models
}

// LoadCatalogue returns the catalogue compiled into the binary. It is
// cheap: no decoding, no allocation beyond the handle.
func LoadCatalogue() *Catalogue {
	return &Catalogue{providers: catalogueProviders}
}

// provider finds a provider's entry (the zero entry when it is unknown).
func (c *Catalogue) provider(id string) catalogueProvider {
	i, ok := slices.BinarySearchFunc(c.providers, id, func(p catalogueProvider, id string) int {
		return strings.Compare(p.id, id)
	})
	if !ok {
		return catalogueProvider{}
	}
	return c.providers[i]
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
	models := c.provider(provider).models
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
	return append([]string(nil), c.provider(provider).defaults...)
}

// Models returns every catalogue model of a provider.
func (c *Catalogue) Models(provider string) []CatalogueModel {
	if c == nil {
		return nil
	}
	return append([]CatalogueModel(nil), c.provider(provider).models...)
}
