package markdown

import (
	"fmt"
	"strings"
	"testing"

	"golang.org/x/net/html"
	"golang.org/x/net/html/atom"
)

// The HTML of the elements answers use.
func TestHTMLElements(t *testing.T) {
	for _, c := range []struct{ src, want string }{
		{"It printed `x`:\n```sh\necho x\n```\nand **bold**", `<p>It printed <code>x</code>:</p><pre class="code" data-lang="sh"><code>echo x</code></pre><p>and <strong>bold</strong></p>`},
		{"# Title\n\n*em* ~~gone~~", `<h1>Title</h1><p><em>em</em> <del>gone</del></p>`},
		{"- a\n- b\n\n3. c", `<ul><li>a</li><li>b</li></ul><ol start="3"><li>c</li></ol>`},
		{"> quoted", `<blockquote><p>quoted</p></blockquote>`},
		{"[docs](https://example.com/a?b=1&c=2)", `<p><a href="https://example.com/a?b=1&amp;c=2" rel="noopener noreferrer" target="_blank">docs</a></p>`},
		{"| a | b |\n|---|--:|\n| 1 | **2** |", `<table class="md"><thead><tr><th>a</th><th class="right">b</th></tr></thead><tbody><tr><td>1</td><td class="right"><strong>2</strong></td></tr></tbody></table>`},
		{"line one\nline two", "<p>line one\nline two</p>"},
	} {
		if got := HTML(c.src); got != c.want {
			t.Errorf("HTML(%q):\n got %s\nwant %s", c.src, got, c.want)
		}
	}
}

// A hostile answer stays text: script tags, event handlers, javascript:
// and data: links, attribute injection through a link or a code fence's
// language, an image that would load.
func TestHTMLHostile(t *testing.T) {
	for _, src := range []string{
		"<script>alert(1)</script>",
		"<img src=x onerror=alert(1)>",
		"text <b onmouseover=alert(1)>bold</b>",
		"[click](javascript:alert(1))",
		"[click](JavaScript:alert(1))",
		"[click](data:text/html,<script>alert(1)</script>)",
		"<javascript:alert(1)>",
		`[x](https://a.example/"onmouseover="alert(1))`,
		"[x](<https://a.example/\" onclick=\"alert(1)>)",
		"```\" onmouseover=\"alert(1)\n```",
		"![pic](https://tracker.example/p.png)",
		"<div>\n<script>alert(1)</script>\n</div>",
		"&lt;script&gt; &#60;script&#62;",
	} {
		if err := safeHTML(HTML(src)); err != nil {
			t.Errorf("HTML(%q) = %s: %v", src, HTML(src), err)
		}
	}
}

// FuzzHTML: any input gives HTML with no tag the renderer does not write.
func FuzzHTML(f *testing.F) {
	for _, s := range []string{"<script>x</script>", "[a](javascript:b)", "**a** `b`", "| a |\n|---|\n| <b> |"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		if err := safeHTML(HTML(src)); err != nil {
			t.Fatalf("HTML(%q) = %s: %v", src, HTML(src), err)
		}
	})
}

// safeHTML parses out as a browser would and refuses any element the
// renderer does not write, any attribute but its own, and a link to
// anything but http, https or mailto.
func safeHTML(out string) error {
	allowed := map[string]bool{"p": true, "br": true, "code": true, "pre": true, "strong": true, "em": true, "del": true, "a": true, "h1": true, "h2": true, "h3": true,
		"h4": true, "h5": true, "h6": true, "hr": true, "ul": true, "ol": true, "li": true, "blockquote": true, "span": true, "table": true, "thead": true, "tbody": true, "tr": true, "th": true, "td": true}
	attrs := map[string]bool{"href": true, "class": true, "data-lang": true, "rel": true, "target": true, "start": true}
	nodes, err := html.ParseFragment(strings.NewReader(out), &html.Node{Type: html.ElementNode, Data: "div", DataAtom: atom.Div})
	if err != nil {
		return err
	}
	var walk func(n *html.Node) error
	walk = func(n *html.Node) error {
		if n.Type == html.ElementNode {
			if !allowed[n.Data] {
				return fmt.Errorf("element <%s>", n.Data)
			}
			for _, a := range n.Attr {
				if !attrs[a.Key] {
					return fmt.Errorf("attribute %s on <%s>", a.Key, n.Data)
				}
				if v := strings.ToLower(strings.TrimSpace(a.Val)); a.Key == "href" && !strings.HasPrefix(v, "http:") && !strings.HasPrefix(v, "https:") && !strings.HasPrefix(v, "mailto:") {
					return fmt.Errorf("link to %s", a.Val)
				}
			}
		}
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			if err := walk(c); err != nil {
				return err
			}
		}
		return nil
	}
	for _, n := range nodes {
		if err := walk(n); err != nil {
			return err
		}
	}
	return nil
}
