package web

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/alecthomas/chroma/v2"
	"github.com/alecthomas/chroma/v2/lexers"
)

// classesOf is, byte by byte, the class colored() gave: 'c' comment, 's'
// string, 'k' keyword, '.' anything else.
func classesOf(out string) []byte {
	span := regexp.MustCompile(`<span class="tk-(.)">([^<]*)</span>|([^<]+)`)
	var b []byte
	for _, m := range span.FindAllStringSubmatch(out, -1) {
		class, text := byte('.'), html.UnescapeString(m[3])
		if m[1] != "" {
			class, text = m[1][0], html.UnescapeString(m[2])
		}
		if class != 'c' && class != 's' && class != 'k' {
			class = '.'
		}
		b = append(b, []byte(strings.Repeat(string(class), len(text)))...)
	}
	return b
}

// chromaClasses is the same for chroma's lexer of the file name.
func chromaClasses(t *testing.T, name, line string) []byte {
	it, err := lexers.Match(name).Tokenise(nil, line)
	if err != nil {
		t.Fatal(err)
	}
	var b []byte
	for tok := it(); tok != chroma.EOF; tok = it() {
		class := byte('.')
		switch {
		case tok.Type.InCategory(chroma.Comment):
			class = 'c'
		case tok.Type.InSubCategory(chroma.LiteralString):
			class = 's'
		case tok.Type == chroma.Keyword || tok.Type == chroma.KeywordDeclaration || tok.Type == chroma.KeywordNamespace || tok.Type == chroma.KeywordReserved:
			class = 'k'
		}
		b = append(b, []byte(strings.Repeat(string(class), len(tok.Value)))...)
	}
	return b[:len(line)] // chroma ends the text with a newline
}

// chroma is the oracle of the diffs' colour: on lines of the languages
// it knows, comments, strings and keywords are where chroma finds them.
func TestColoredAgreesWithChroma(t *testing.T) {
	for name, lines := range map[string][]string{
		"a.go": {`func (s *Server) Add(prefix string, other *Server) { // serves more`, `	if rest, ok := strings.CutPrefix(r.URL.Path, "/w/"); ok {`,
			"	return fmt.Errorf(`raw %s`, 'x') /* done */", `	for i := range 10 { go run(i) }`, `package web`, `import "strings"`},
		"a.py": {`def main(argv):  # entry`, `    return "it's" if x else 'no'`, `class A(B): pass`, `    for k in d: yield k`},
		"a.js": {`const x = await fetch("/v1/" + id); // get`, `export function f(a) { return a ? 'y' : ` + "`n`" + `; }`, `if (a instanceof B) throw new Error("no")`},
		"a.rs": {`pub fn main() -> Result<(), Error> { let mut x = "s"; // c`, `impl Trait for S { fn f(&self) {} }`},
	} {
		for _, line := range lines {
			ours, theirs := classesOf(string(colored(languageOf(name), line))), chromaClasses(t, name, line)
			if string(ours) != string(theirs) {
				t.Errorf("%s: %s\n ours   %s\n chroma %s", name, line, ours, theirs)
			}
		}
	}
}
