package markdown

import (
	"html"
	"strconv"
	"unicode/utf8"
)

// entityAt resolves the entity reference at the start of s ("&amp;",
// "&#65;", "&#x41;"): its text and length, or n = 0 when there is none
// or the name is not HTML's (it then stays literal text).
func entityAt(s string) (text string, n int) {
	if len(s) < 3 || s[0] != '&' {
		return "", 0
	}
	if s[1] == '#' {
		i, base := 2, 10
		if i < len(s) && (s[i] == 'x' || s[i] == 'X') {
			i, base = 3, 16
		}
		j := i
		for j < len(s) && j-i <= 7 && (isDigit(s[j]) || base == 16 && isAlnum(s[j]) && (s[j]|0x20) <= 'f') {
			j++
		}
		if j == i || j >= len(s) || s[j] != ';' || base == 10 && j-i > 7 || base == 16 && j-i > 6 {
			return "", 0
		}
		v, err := strconv.ParseUint(s[i:j], base, 32)
		r := rune(v)
		if err != nil || r == 0 || !utf8.ValidRune(r) {
			r = utf8.RuneError
		}
		return string(r), j + 1
	}
	j := 1
	for j < len(s) && j <= 32 && isAlnum(s[j]) {
		j++
	}
	if j == 1 || j >= len(s) || s[j] != ';' || !isAlpha(s[1]) {
		return "", 0
	}
	if t := namedEntity(s[1:j]); t != "" {
		return t, j + 1
	}
	return "", 0
}

// namedEntity is the text of a named entity, "" if unknown: HTML's
// table (html.UnescapeString, built on its first use, not at start-up).
// The reference must match a name whole: where it does not, the package
// decodes a prefix that HTML allows without ";" ("&notit;" is "¬it;"),
// which leaves more than the one or two characters an entity stands for.
func namedEntity(name string) string {
	ref := "&" + name + ";"
	if t := html.UnescapeString(ref); utf8.RuneCountInString(t) <= 2 {
		return t
	}
	return ""
}
