package web

import (
	"html/template"
	"path"
	"strings"
)

// The diffs' syntax colour. chroma (the library for it) registers its
// hundreds of lexers at package initialisation: 4.2 ms and 2.7 MB on
// every start of the binary, whatever the command, for colour in a web
// page. This small line tokenizer marks what a reader's eye looks for —
// comments, strings, numbers, keywords, called functions — for the
// languages agents edit most, and chroma stays its test oracle
// (highlight_test.go).

// language is what the tokenizer knows of one language.
type language struct {
	line     string // line comment ("" = none)
	block    bool   // /* */ comments
	quotes   string // string quote characters
	keywords map[string]bool
}

func words(s string) map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(s) {
		m[w] = true
	}
	return m
}

var (
	goLang = &language{line: "//", block: true, quotes: "\"'`", keywords: words(`break case chan const continue default defer else fallthrough
		for func go goto if import interface map package range return select struct switch type var`)}
	jsLang = &language{line: "//", block: true, quotes: "\"'`", keywords: words(`async await break case catch class const continue debugger default delete do else
		export extends finally for from function if import in instanceof let new of return static super switch this throw try typeof var void while with yield
		interface type enum implements private protected public readonly`)}
	pyLang = &language{line: "#", quotes: "\"'", keywords: words(`as assert async await break class continue def del elif else except finally for from
		global if import lambda nonlocal pass raise return try while with yield`)}
	rsLang = &language{line: "//", block: true, quotes: "\"", keywords: words(`as async await break const continue crate dyn else enum extern fn for if impl in let loop
		match mod move mut pub ref return static struct super trait type unsafe use where while`)}
	shLang = &language{line: "#", quotes: "\"'", keywords: words(`if then else elif fi case esac for while until do done in function select return local export`)}
	cLang  = &language{line: "//", block: true, quotes: "\"'", keywords: words(`auto break case catch class const continue default delete do else enum extern final for goto
		if import inline namespace new package private protected public return sizeof static struct switch template this throw try typedef union using virtual void volatile while`)}
)

// languageOf is the language of a file by its extension, or nil.
func languageOf(name string) *language {
	switch strings.ToLower(path.Ext(name)) {
	case ".go":
		return goLang
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx":
		return jsLang
	case ".py":
		return pyLang
	case ".rs":
		return rsLang
	case ".sh", ".bash", ".zsh":
		return shLang
	case ".c", ".h", ".cc", ".cpp", ".hpp", ".java", ".cs", ".kt", ".swift":
		return cLang
	}
	return nil
}

// colored is one line of code, escaped, its tokens marked with the
// classes the style sheet colours (tk-k keyword, tk-s string, tk-c
// comment, tk-m number, tk-f called function). Without a language it is
// the escaped text. Each line stands alone: a string or comment that
// spans lines is coloured on its first line only.
func colored(lang *language, code string) template.HTML {
	if lang == nil || code == "" {
		return template.HTML(template.HTMLEscapeString(code))
	}
	var b strings.Builder
	mark := func(class, text string) {
		b.WriteString(`<span class="tk-` + class + `">` + template.HTMLEscapeString(text) + `</span>`)
	}
	plain := func(text string) { b.WriteString(template.HTMLEscapeString(text)) }
	for i := 0; i < len(code); {
		c := code[i]
		rest := code[i:]
		switch {
		case lang.line != "" && strings.HasPrefix(rest, lang.line) && (lang.line != "#" || i == 0 || code[i-1] == ' ' || code[i-1] == '\t'):
			mark("c", rest)
			i = len(code)
		case lang.block && strings.HasPrefix(rest, "/*"):
			end := strings.Index(rest[2:], "*/")
			n := len(rest)
			if end >= 0 {
				n = end + 4
			}
			mark("c", rest[:n])
			i += n
		case strings.IndexByte(lang.quotes, c) >= 0:
			n := 1
			for n < len(rest) && rest[n] != c {
				if rest[n] == '\\' && c != '`' {
					n++
				}
				n++
			}
			n = min(n+1, len(rest))
			mark("s", rest[:n])
			i += n
		case c >= '0' && c <= '9':
			n := 1
			for n < len(rest) && (isWordByte(rest[n]) || rest[n] == '.') {
				n++
			}
			mark("m", rest[:n])
			i += n
		case isWordByte(c):
			n := 1
			for n < len(rest) && isWordByte(rest[n]) {
				n++
			}
			w := rest[:n]
			switch {
			case lang.keywords[w]:
				mark("k", w)
			case n < len(rest) && rest[n] == '(':
				mark("f", w)
			default:
				plain(w)
			}
			i += n
		default:
			n := 1
			for n < len(rest) && !isWordByte(rest[n]) && strings.IndexByte(lang.quotes, rest[n]) < 0 && rest[n] != '/' && rest[n] != '#' {
				n++
			}
			plain(rest[:n])
			i += n
		}
	}
	return template.HTML(b.String())
}

func isWordByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c >= 0x80
}
