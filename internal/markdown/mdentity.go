package markdown

import (
	"strconv"
	"unicode/utf8"
)

// entityAt resolves the entity reference at the start of s ("&amp;",
// "&#65;", "&#x41;"): its text and length, or n = 0 when there is none
// or the name is not one we know (it then stays literal text). The named
// ones are those a model writes, not HTML's full table of 2,000: a big
// table would cost every start of the binary its initialisation.
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

// namedEntity is the text of a named entity, "" if unknown. A switch
// costs nothing at start-up, unlike a map.
func namedEntity(name string) string {
	switch name {
	case "amp", "AMP":
		return "&"
	case "lt", "LT":
		return "<"
	case "gt", "GT":
		return ">"
	case "quot", "QUOT":
		return `"`
	case "apos":
		return "'"
	case "nbsp":
		return "\u00a0"
	case "ensp":
		return "\u2002"
	case "emsp":
		return "\u2003"
	case "thinsp":
		return "\u2009"
	case "zwnj":
		return "\u200c"
	case "zwj":
		return "\u200d"
	case "shy":
		return "\u00ad"
	case "copy", "COPY":
		return "©"
	case "reg", "REG":
		return "®"
	case "trade", "TRADE":
		return "™"
	case "hellip", "mldr":
		return "…"
	case "mdash":
		return "—"
	case "ndash":
		return "–"
	case "lsquo":
		return "‘"
	case "rsquo":
		return "’"
	case "ldquo":
		return "“"
	case "rdquo":
		return "”"
	case "sbquo":
		return "‚"
	case "bdquo":
		return "„"
	case "laquo":
		return "«"
	case "raquo":
		return "»"
	case "lsaquo":
		return "‹"
	case "rsaquo":
		return "›"
	case "bull", "bullet":
		return "•"
	case "middot":
		return "·"
	case "deg":
		return "°"
	case "plusmn", "pm":
		return "±"
	case "times":
		return "×"
	case "divide", "div":
		return "÷"
	case "micro":
		return "µ"
	case "para":
		return "¶"
	case "sect":
		return "§"
	case "dagger":
		return "†"
	case "Dagger":
		return "‡"
	case "permil":
		return "‰"
	case "prime":
		return "′"
	case "Prime":
		return "″"
	case "euro":
		return "€"
	case "pound":
		return "£"
	case "yen":
		return "¥"
	case "cent":
		return "¢"
	case "curren":
		return "¤"
	case "iexcl":
		return "¡"
	case "iquest":
		return "¿"
	case "larr", "leftarrow":
		return "←"
	case "rarr", "rightarrow":
		return "→"
	case "uarr", "uparrow":
		return "↑"
	case "darr", "downarrow":
		return "↓"
	case "harr":
		return "↔"
	case "lArr", "Leftarrow":
		return "⇐"
	case "rArr", "Rightarrow":
		return "⇒"
	case "hArr", "iff":
		return "⇔"
	case "le", "leq":
		return "≤"
	case "ge", "geq":
		return "≥"
	case "ne":
		return "≠"
	case "asymp", "approx":
		return "≈"
	case "equiv":
		return "≡"
	case "infin":
		return "∞"
	case "minus":
		return "−"
	case "sum":
		return "∑"
	case "prod":
		return "∏"
	case "radic":
		return "√"
	case "part":
		return "∂"
	case "nabla":
		return "∇"
	case "isin", "in":
		return "∈"
	case "notin":
		return "∉"
	case "forall":
		return "∀"
	case "exist":
		return "∃"
	case "empty":
		return "∅"
	case "and":
		return "∧"
	case "or":
		return "∨"
	case "cap":
		return "∩"
	case "cup":
		return "∪"
	case "sub":
		return "⊂"
	case "sup":
		return "⊃"
	case "lceil":
		return "⌈"
	case "rceil":
		return "⌉"
	case "lfloor":
		return "⌊"
	case "rfloor":
		return "⌋"
	case "check", "checkmark":
		return "✓"
	case "cross":
		return "✗"
	case "star":
		return "☆"
	case "starf", "bigstar":
		return "★"
	case "hearts":
		return "♥"
	case "frac12", "half":
		return "½"
	case "frac14":
		return "¼"
	case "frac34":
		return "¾"
	case "sup1":
		return "¹"
	case "sup2":
		return "²"
	case "sup3":
		return "³"
	case "ordf":
		return "ª"
	case "ordm":
		return "º"
	case "not":
		return "¬"
	case "macr":
		return "¯"
	case "acute":
		return "´"
	case "uml":
		return "¨"
	case "cedil":
		return "¸"
	case "szlig":
		return "ß"
	case "auml":
		return "ä"
	case "ouml":
		return "ö"
	case "uuml":
		return "ü"
	case "Auml":
		return "Ä"
	case "Ouml":
		return "Ö"
	case "Uuml":
		return "Ü"
	case "aacute":
		return "á"
	case "eacute":
		return "é"
	case "iacute":
		return "í"
	case "oacute":
		return "ó"
	case "uacute":
		return "ú"
	case "Eacute":
		return "É"
	case "agrave":
		return "à"
	case "egrave":
		return "è"
	case "ugrave":
		return "ù"
	case "acirc":
		return "â"
	case "ecirc":
		return "ê"
	case "ocirc":
		return "ô"
	case "ccedil":
		return "ç"
	case "Ccedil":
		return "Ç"
	case "ntilde":
		return "ñ"
	case "Ntilde":
		return "Ñ"
	case "oslash":
		return "ø"
	case "aring":
		return "å"
	case "aelig":
		return "æ"
	case "alpha":
		return "α"
	case "beta":
		return "β"
	case "gamma":
		return "γ"
	case "delta":
		return "δ"
	case "epsilon", "epsi":
		return "ε"
	case "theta":
		return "θ"
	case "lambda":
		return "λ"
	case "mu":
		return "μ"
	case "pi":
		return "π"
	case "rho":
		return "ρ"
	case "sigma":
		return "σ"
	case "tau":
		return "τ"
	case "phi":
		return "φ"
	case "omega":
		return "ω"
	case "Gamma":
		return "Γ"
	case "Delta":
		return "Δ"
	case "Theta":
		return "Θ"
	case "Lambda":
		return "Λ"
	case "Pi":
		return "Π"
	case "Sigma":
		return "Σ"
	case "Phi":
		return "Φ"
	case "Omega":
		return "Ω"
	case "Tab":
		return "\t"
	case "NewLine":
		return "\n"
	case "excl":
		return "!"
	case "num":
		return "#"
	case "dollar":
		return "$"
	case "percnt":
		return "%"
	case "ast":
		return "*"
	case "plus":
		return "+"
	case "comma":
		return ","
	case "period":
		return "."
	case "sol":
		return "/"
	case "colon":
		return ":"
	case "semi":
		return ";"
	case "equals":
		return "="
	case "quest":
		return "?"
	case "commat":
		return "@"
	case "lsqb", "lbrack":
		return "["
	case "bsol":
		return `\`
	case "rsqb", "rbrack":
		return "]"
	case "Hat":
		return "^"
	case "lowbar":
		return "_"
	case "grave":
		return "`"
	case "lcub", "lbrace":
		return "{"
	case "verbar", "vert":
		return "|"
	case "rcub", "rbrace":
		return "}"
	case "tilde":
		return "˜"
	}
	return ""
}
