package markdown

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The inline parser turns a paragraph's or heading's text into inline
// nodes: one pass that records delimiter runs (* _ ~~) and brackets,
// then CommonMark's "process emphasis" and "look for link or image"
// procedures pair them up.

// delim is a run of * or _ (or a ~~) that may open or close emphasis.
type delim struct {
	node              *mdNode // the text node holding the run
	ch                byte
	n, orig           int
	canOpen, canClose bool
	prev, next        *delim
}

// bracket is a [ or ![ that may start a link or image.
type bracket struct {
	node          *mdNode
	prev          *bracket
	prevDelim     *delim
	pos           int // index in the text just after the bracket
	image, active bool
}

type inlineParser struct {
	refs     map[string]mdRef
	s        string
	pos      int
	block    *mdNode
	delims   *delim // the last one
	brackets *bracket
	noTicks  map[int]bool // backtick run lengths with no closer further on
}

// parse sets the inline children of block from s.
func (ip *inlineParser) parse(block *mdNode, s string) {
	ip.s, ip.pos, ip.block, ip.delims, ip.brackets = s, 0, block, nil, nil
	clear(ip.noTicks)
	for ip.pos < len(s) {
		ip.step()
	}
	ip.processEmphasis(nil)
}

// isSpecial marks the bytes the inline parser stops at.
func isSpecial(c byte) bool {
	switch c {
	case '\n', '\\', '`', '*', '_', '~', '[', ']', '!', '<', '&':
		return true
	}
	return false
}

func (ip *inlineParser) text(t string) *mdNode {
	n := &mdNode{kind: mdText, text: t}
	ip.block.appendChild(n)
	return n
}

func (ip *inlineParser) step() {
	s := ip.s
	c := s[ip.pos]
	switch c {
	case '\n':
		ip.newline(false)
		ip.pos++
		ip.skipSpaces()
	case '\\':
		ip.pos++
		switch {
		case ip.pos < len(s) && s[ip.pos] == '\n':
			ip.newline(true)
			ip.pos++
			ip.skipSpaces()
		case ip.pos < len(s) && isASCIIPunct(s[ip.pos]):
			ip.text(s[ip.pos : ip.pos+1])
			ip.pos++
		default:
			ip.text(`\`)
		}
	case '`':
		ip.codeSpan()
	case '*', '_', '~':
		ip.delimRun(c)
	case '[':
		ip.pos++
		ip.pushBracket(ip.text("["), false)
	case '!':
		ip.pos++
		if ip.pos < len(s) && s[ip.pos] == '[' {
			ip.pos++
			ip.pushBracket(ip.text("!["), true)
		} else {
			ip.text("!")
		}
	case ']':
		ip.pos++
		ip.closeBracket()
	case '<':
		ip.angle()
	case '&':
		if r, n := entityAt(s[ip.pos:]); n > 0 {
			ip.text(r)
			ip.pos += n
		} else {
			ip.text("&")
			ip.pos++
		}
	default:
		end := ip.pos + 1
		for end < len(s) && !isSpecial(s[end]) {
			end++
		}
		ip.text(s[ip.pos:end])
		ip.pos = end
	}
}

func (ip *inlineParser) skipSpaces() {
	for ip.pos < len(ip.s) && isSpaceOrTab(ip.s[ip.pos]) {
		ip.pos++
	}
}

// newline ends a line: a hard break after a backslash or two spaces,
// else a soft one. Spaces before the break are dropped.
func (ip *inlineParser) newline(hard bool) {
	// (A delimiter run is a text node too, but never ends in a space.)
	if l := ip.block.last; !hard && l != nil && l.kind == mdText && !l.soft && !l.hard {
		t := strings.TrimRight(l.text, " ")
		hard = len(l.text)-len(t) >= 2
		l.text = t
	}
	ip.block.appendChild(&mdNode{kind: mdText, soft: !hard, hard: hard})
}

// codeSpan parses a backtick run: a code span up to the next run of
// the same length, else literal backticks.
func (ip *inlineParser) codeSpan() {
	s := ip.s
	start := ip.pos
	n := 0
	for start+n < len(s) && s[start+n] == '`' {
		n++
	}
	ip.pos += n
	if !ip.noTicks[n] {
		for i := ip.pos; i < len(s); {
			j := strings.IndexByte(s[i:], '`')
			if j < 0 {
				break
			}
			j += i
			k := j
			for k < len(s) && s[k] == '`' {
				k++
			}
			if k-j == n {
				code := strings.ReplaceAll(s[ip.pos:j], "\n", " ")
				if len(code) >= 2 && code[0] == ' ' && code[len(code)-1] == ' ' && strings.Trim(code, " ") != "" {
					code = code[1 : len(code)-1]
				}
				ip.block.appendChild(&mdNode{kind: mdCodeSpan, text: code})
				ip.pos = k
				return
			}
			i = k
		}
		if ip.noTicks == nil {
			ip.noTicks = map[int]bool{}
		}
		ip.noTicks[n] = true
	}
	ip.text(s[start:ip.pos])
}

// delimRun scans a run of * or _ (any length) or ~ (exactly two).
func (ip *inlineParser) delimRun(c byte) {
	s := ip.s
	start := ip.pos
	end := start
	for end < len(s) && s[end] == c {
		end++
	}
	ip.pos = end
	if c == '~' && end-start != 2 {
		ip.text(s[start:end])
		return
	}
	before, after := '\n', '\n'
	if start > 0 {
		before, _ = utf8.DecodeLastRuneInString(s[:start])
	}
	if end < len(s) {
		after, _ = utf8.DecodeRuneInString(s[end:])
	}
	bp, bs := isPunctRune(before), unicode.IsSpace(before)
	ap, as := isPunctRune(after), unicode.IsSpace(after)
	left := !as && (!ap || bs || bp)
	right := !bs && (!bp || as || ap)
	d := &delim{node: ip.text(s[start:end]), ch: c, n: end - start, orig: end - start, prev: ip.delims}
	if c == '_' {
		d.canOpen = left && (!right || bp)
		d.canClose = right && (!left || ap)
	} else {
		d.canOpen, d.canClose = left, right
	}
	if ip.delims != nil {
		ip.delims.next = d
	}
	ip.delims = d
}

func isPunctRune(r rune) bool {
	if r < utf8.RuneSelf {
		return isASCIIPunct(byte(r))
	}
	return unicode.IsPunct(r) || unicode.IsSymbol(r)
}

func isASCIIPunct(c byte) bool {
	return c >= '!' && c <= '/' || c >= ':' && c <= '@' || c >= '[' && c <= '`' || c >= '{' && c <= '~'
}

func (ip *inlineParser) removeDelim(d *delim) {
	if d.prev != nil {
		d.prev.next = d.next
	}
	if d.next != nil {
		d.next.prev = d.prev
	} else {
		ip.delims = d.prev
	}
	d.prev, d.next = nil, nil
}

// processEmphasis pairs the delimiters above bottom into emphasis and
// strikethrough nodes.
func (ip *inlineParser) processEmphasis(bottom *delim) {
	var closer *delim
	for d := ip.delims; d != nil && d != bottom; d = d.prev {
		closer = d
	}
	for closer != nil {
		if !closer.canClose {
			closer = closer.next
			continue
		}
		var opener *delim
		consume, found, maybe := 0, false, false
		for opener = closer.prev; opener != nil && opener != bottom; opener = opener.prev {
			if opener.canOpen && opener.ch == closer.ch {
				maybe = true
				// The rule of 3: a run that can both open and close
				// pairs only if the lengths' sum is not a multiple of 3.
				if (opener.canClose || closer.canOpen) && (opener.orig+closer.orig)%3 == 0 && closer.orig%3 != 0 {
					continue
				}
				consume, found = 1, true
				if opener.n >= 2 && closer.n >= 2 {
					consume = 2
				}
				break
			}
		}
		if !found {
			next := closer.next
			if !maybe && !closer.canOpen {
				ip.removeDelim(closer)
			}
			closer = next
			continue
		}
		opener.n -= consume
		opener.node.text = opener.node.text[:opener.n]
		closer.n -= consume
		closer.node.text = closer.node.text[:closer.n]
		node := &mdNode{kind: mdEmphasis, level: consume}
		if closer.ch == '~' {
			node.kind = mdStrike
		}
		for c := opener.node.next; c != nil && c != closer.node; {
			next := c.next
			c.unlink()
			node.appendChild(c)
			c = next
		}
		opener.node.insertAfter(node)
		for d := opener.next; d != nil && d != closer; {
			next := d.next
			ip.removeDelim(d)
			d = next
		}
		if opener.n == 0 {
			opener.node.unlink()
			ip.removeDelim(opener)
		}
		if closer.n == 0 {
			next := closer.next
			closer.node.unlink()
			ip.removeDelim(closer)
			closer = next
		}
	}
	for ip.delims != nil && ip.delims != bottom {
		ip.removeDelim(ip.delims)
	}
}

func (ip *inlineParser) pushBracket(n *mdNode, image bool) {
	ip.brackets = &bracket{node: n, prev: ip.brackets, prevDelim: ip.delims, pos: ip.pos, image: image, active: true}
}

// closeBracket handles a ]: a link or image if the bracket before it
// is followed by a destination or names a reference, else text.
func (ip *inlineParser) closeBracket() {
	op := ip.brackets
	if op == nil {
		ip.text("]")
		return
	}
	ip.brackets = op.prev
	if !op.active {
		ip.text("]")
		return
	}
	s := ip.s
	labelEnd := ip.pos - 1
	dest, ok := "", false
	if ip.pos < len(s) && s[ip.pos] == '(' {
		if d, end, good := parseInlineLink(s, ip.pos+1); good {
			dest, ok, ip.pos = d, true, end
		}
	}
	if !ok {
		ref, end := "", ip.pos
		if l, n := scanLinkLabel(s[ip.pos:]); n > 2 {
			ref, end = l, ip.pos+n
		} else if n == 2 { // [] : collapsed
			ref, end = s[op.pos:labelEnd], ip.pos+2
		} else { // no label after it: a shortcut reference
			ref = s[op.pos:labelEnd]
		}
		if ref != "" && len(ref) <= 999 {
			if r, found := ip.refs[normalizeLabel(ref)]; found {
				dest, ok, ip.pos = r.dest, true, end
			}
		}
	}
	if !ok {
		ip.text("]")
		return
	}
	kind := mdLink
	if op.image {
		kind = mdImage
	}
	node := &mdNode{kind: kind, dest: dest}
	for c := op.node.next; c != nil; {
		next := c.next
		c.unlink()
		node.appendChild(c)
		c = next
	}
	ip.block.appendChild(node)
	ip.processEmphasis(op.prevDelim)
	op.node.unlink()
	if !op.image {
		for b := ip.brackets; b != nil; b = b.prev {
			if !b.image {
				b.active = false
			}
		}
	}
}

// skipSpnl skips spaces and tabs with at most one line ending.
func skipSpnl(s string, i int) int { return htmlSpace(s, i, true) }

// parseInlineLink parses "dest 'title')" from i (just after the "(");
// it returns the destination as written and the index after the ")".
func parseInlineLink(s string, i int) (dest string, end int, ok bool) {
	i = skipSpnl(s, i)
	if i < len(s) && s[i] == ')' {
		return "", i + 1, true
	}
	dest, i, ok = scanDestination(s, i)
	if !ok {
		return "", 0, false
	}
	j := skipSpnl(s, i)
	if j < len(s) && s[j] != ')' && j > i {
		_, j, ok = scanTitle(s, j)
		if !ok {
			return "", 0, false
		}
		j = skipSpnl(s, j)
	}
	if j < len(s) && s[j] == ')' {
		return dest, j + 1, true
	}
	return "", 0, false
}

// scanDestination scans a link destination at i: <...> or a run with
// balanced parentheses and no spaces.
func scanDestination(s string, i int) (dest string, end int, ok bool) {
	if i < len(s) && s[i] == '<' {
		for j := i + 1; j < len(s); j++ {
			switch s[j] {
			case '\\':
				if j+1 < len(s) && isASCIIPunct(s[j+1]) {
					j++
				}
			case '>':
				return s[i+1 : j], j + 1, true
			case '<', '\n':
				return "", 0, false
			}
		}
		return "", 0, false
	}
	depth := 0
	j := i
loop:
	for ; j < len(s); j++ {
		c := s[j]
		switch {
		case c == '\\' && j+1 < len(s) && isASCIIPunct(s[j+1]):
			j++
		case c == '(':
			depth++
			if depth > 32 {
				return "", 0, false
			}
		case c == ')':
			if depth == 0 {
				break loop
			}
			depth--
		case c <= ' ':
			break loop
		}
	}
	if j == i || depth != 0 {
		return "", 0, false
	}
	return s[i:j], j, true
}

// scanTitle scans a link title at i: "...", '...' or (...).
func scanTitle(s string, i int) (title string, end int, ok bool) {
	if i >= len(s) {
		return "", 0, false
	}
	open := s[i]
	closeC := open
	switch open {
	case '"', '\'':
	case '(':
		closeC = ')'
	default:
		return "", 0, false
	}
	for j := i + 1; j < len(s); j++ {
		switch c := s[j]; {
		case c == '\\' && j+1 < len(s) && isASCIIPunct(s[j+1]):
			j++
		case c == closeC:
			return s[i+1 : j], j + 1, true
		case c == '(' && open == '(':
			return "", 0, false
		case c == '\n' && j+1 < len(s) && s[j+1] == '\n':
			return "", 0, false
		}
	}
	return "", 0, false
}

// scanLinkLabel scans "[label]" at the start of s: the label and the
// length (2 for "[]"), or n <= 0 when there is none.
func scanLinkLabel(s string) (label string, n int) {
	if s == "" || s[0] != '[' {
		return "", 0
	}
	for j := 1; j < len(s) && j <= 1000; j++ {
		switch s[j] {
		case '\\':
			if j+1 < len(s) && isASCIIPunct(s[j+1]) {
				j++
			}
		case '[':
			return "", -1
		case ']':
			if j > 1 && strings.TrimSpace(s[1:j]) == "" {
				return "", -1
			}
			return s[1:j], j + 1
		}
	}
	return "", -1
}

// normalizeLabel is a reference label as matched: case-folded (ß as
// ss, as Unicode's full folding has it), with runs of white space as
// one space.
func normalizeLabel(s string) string {
	s = strings.ToLower(strings.ToUpper(strings.Join(strings.Fields(s), " ")))
	if strings.Contains(s, "ß") {
		s = strings.ReplaceAll(s, "ß", "ss")
	}
	return s
}

// parseRefDef parses a link reference definition at the start of s:
// the bytes it takes (0 if none), its normalised label and its target.
func parseRefDef(s string) (n int, label string, ref mdRef) {
	i := 0
	for i < len(s) && i < 3 && s[i] == ' ' {
		i++
	}
	l, k := scanLinkLabel(s[i:])
	if k <= 2 {
		return 0, "", ref
	}
	i += k
	if i >= len(s) || s[i] != ':' {
		return 0, "", ref
	}
	i = skipSpnl(s, i+1)
	dest, j, ok := scanDestination(s, i)
	if !ok || dest == "" && (i >= len(s) || s[i] != '<') {
		return 0, "", ref
	}
	ref.dest = dest
	// The definition ends at the end of its line, with or without a title.
	lineEnd := func(at int) int {
		for at < len(s) && isSpaceOrTab(s[at]) {
			at++
		}
		if at == len(s) {
			return at
		}
		if s[at] == '\n' {
			return at + 1
		}
		return -1
	}
	t := skipSpnl(s, j)
	if t > j {
		if title, e, ok := scanTitle(s, t); ok {
			if end := lineEnd(e); end >= 0 {
				ref.title = title
				return end, normalizeLabel(l), ref
			}
		}
	}
	if end := lineEnd(j); end >= 0 {
		return end, normalizeLabel(l), ref
	}
	return 0, "", mdRef{}
}

// angle handles a <: an autolink, raw HTML, else text.
func (ip *inlineParser) angle() {
	s := ip.s[ip.pos:]
	if n := autolinkLen(s); n > 0 {
		ip.block.appendChild(&mdNode{kind: mdAutoLink, text: s[1 : n-1]})
		ip.pos += n
		return
	}
	if n := htmlTagLen(s, true); n > 0 {
		ip.block.appendChild(&mdNode{kind: mdRawHTML, text: s[:n]})
		ip.pos += n
		return
	}
	ip.text("<")
	ip.pos++
}

// autolinkLen is the length of <scheme:address> or <email> at the
// start of s, else 0.
func autolinkLen(s string) int {
	if n := uriAutolink(s); n > 0 {
		return n
	}
	return emailAutolink(s)
}

func isAlpha(c byte) bool { return c|0x20 >= 'a' && c|0x20 <= 'z' }
func isDigit(c byte) bool { return c >= '0' && c <= '9' }
func isAlnum(c byte) bool { return isAlpha(c) || isDigit(c) }

func uriAutolink(s string) int {
	i := 1
	if i >= len(s) || !isAlpha(s[i]) {
		return 0
	}
	for i++; i < len(s) && (isAlnum(s[i]) || s[i] == '+' || s[i] == '.' || s[i] == '-'); i++ {
	}
	if n := i - 1; n < 2 || n > 32 || i >= len(s) || s[i] != ':' {
		return 0
	}
	for i++; i < len(s); i++ {
		switch c := s[i]; {
		case c == '>':
			return i + 1
		case c <= ' ' || c == '<' || c == 0x7f:
			return 0
		}
	}
	return 0
}

func emailAutolink(s string) int {
	i := 1
	for i < len(s) && (isAlnum(s[i]) || strings.IndexByte(".!#$%&'*+/=?^_`{|}~-", s[i]) >= 0) {
		i++
	}
	if i == 1 || i >= len(s) || s[i] != '@' {
		return 0
	}
	i++
	for {
		// A label: alphanumerics and hyphens, not at either end.
		j := i
		for j < len(s) && j-i < 63 && (isAlnum(s[j]) || s[j] == '-') {
			j++
		}
		if j == i || s[i] == '-' || s[j-1] == '-' {
			return 0
		}
		if j < len(s) && s[j] == '.' {
			i = j + 1
			continue
		}
		if j < len(s) && s[j] == '>' {
			return j + 1
		}
		return 0
	}
}
