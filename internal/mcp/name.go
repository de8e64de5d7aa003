package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// maxNameLen is the longest tool name the providers accept.
const maxNameLen = 64

// sanitize maps every character outside [A-Za-z0-9_-] to '_', a run of
// them to one '_'; a name that is already valid comes back unchanged.
func sanitize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	replacing := false
	for _, r := range s {
		if validNameRune(r) {
			b.WriteRune(r)
			replacing = false
			continue
		}
		if !replacing {
			b.WriteByte('_')
		}
		replacing = true
	}
	return b.String()
}

func validNameRune(r rune) bool {
	return r == '-' || r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9')
}

// hasNameRune reports whether s has a character a name can keep.
func hasNameRune(s string) bool { return strings.IndexFunc(s, validNameRune) >= 0 }

// rawName is the name a tool would have without any rewriting.
func rawName(server, tool string) string { return "mcp__" + server + "__" + tool }

// toolName is the model-facing name of server's tool: mcp__<server>__<tool>
// with both parts sanitised, and — when that is longer than 64 — cut and
// given a hash of the raw name, so it stays unique and stable across runs.
func toolName(server, tool string) string {
	t := sanitize(tool)
	if !hasNameRune(tool) {
		t = "tool"
	}
	name := rawName(sanitize(server), t)
	if len(name) <= maxNameLen {
		return name
	}
	sum := sha256.Sum256([]byte(rawName(server, tool)))
	suffix := "_" + hex.EncodeToString(sum[:4])
	return strings.TrimRight(name[:maxNameLen-len(suffix)], "_") + suffix
}

// uniqueName returns name, or name with the smallest "_<n>" suffix (n ≥ 2)
// that taken does not hold, still within 64 characters.
func uniqueName(name string, taken map[string]bool) string {
	if !taken[name] {
		return name
	}
	for n := 2; ; n++ {
		suffix := "_" + strconv.Itoa(n)
		base := name
		if len(base)+len(suffix) > maxNameLen {
			base = base[:maxNameLen-len(suffix)]
		}
		if c := base + suffix; !taken[c] {
			return c
		}
	}
}
