package search

import (
	"bytes"
	"regexp"
	"regexp/syntax"
	"unicode"
	"unicode/utf8"
)

// matcher finds the lines of a buffer that an RE2 pattern matches. Go's
// regexp is slow over whole files, so a literal that every match must
// contain is located first (bytes.Index, vectorised; for a
// case-insensitive literal, IndexByte on its rarest byte in both cases),
// and the regexp runs only on the lines that hold it.
type matcher struct {
	line *regexp.Regexp // runs on one line
	buf  *regexp.Regexp // multi-line form, for patterns without a literal
	find func(b []byte) int
	pure bool // the pattern is exactly the literal find looks for
}

func newMatcher(pattern string, ignoreCase bool) (*matcher, error) {
	if ignoreCase {
		pattern = "(?i)" + pattern
	}
	line, err := regexp.Compile(pattern)
	if err != nil {
		return nil, err
	}
	buf, err := regexp.Compile("(?m)" + pattern)
	if err != nil {
		return nil, err
	}
	m := &matcher{line: line, buf: buf}
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return m, nil
	}
	re = re.Simplify()
	l := requiredLiteral(re)
	switch {
	case len(l.text) == 0:
	case !l.fold:
		text := l.text
		m.find = func(b []byte) int { return bytes.Index(b, text) }
		m.pure = re.Op == syntax.OpLiteral && re.Flags&syntax.FoldCase == 0 && !bytes.ContainsAny(text, "\n")
	default:
		if f := newFoldFinder(l.text); f != nil {
			m.find = f.index
		}
	}
	if m.find == nil {
		if seq := requiredSequence(re); len(seq) >= 2 {
			m.find = newSeqFinder(seq).index
		} else if set, ok := requiredBytes(re); ok && weight(set) < 40 {
			m.find = set.index
		}
	}
	return m, nil
}

// A byte sequence filter: a pattern without a literal often still
// demands a fixed run of single-byte classes (`[A-Z]{3}[0-9]{2}` is five
// bytes, each from its class). Scanning for that run with a table per
// position rejects almost every line before the regexp sees it, which is
// what ripgrep's DFA does for such patterns.

// seqElem is one step of a pattern as a byte sequence: a byte from set,
// or a break where the pattern's bytes cannot be told apart (a variable
// repeat, an alternation, a multi-byte class).
type seqElem struct {
	set byteSet
	brk bool
}

// requiredSequence is the most selective run of single-byte classes that
// every match of re contains contiguously, or nil.
func requiredSequence(re *syntax.Regexp) []byteSet {
	var elems []seqElem
	sequence(re, &elems)
	var best, run []byteSet
	bestScore := 0.0
	flush := func() {
		if len(run) >= 2 {
			score := 1.0
			for i := range run {
				score *= min(weight(run[i]), 100) / 100
			}
			if best == nil || score < bestScore {
				best, bestScore = run, score
			}
		}
		run = nil
	}
	for _, e := range elems {
		if e.brk {
			flush()
			continue
		}
		run = append(run, e.set)
	}
	flush()
	return best
}

// sequence appends re's steps to out.
func sequence(re *syntax.Regexp, out *[]seqElem) {
	brk := func() { *out = append(*out, seqElem{brk: true}) }
	switch re.Op {
	case syntax.OpConcat:
		for _, sub := range re.Sub {
			sequence(sub, out)
		}
	case syntax.OpCapture:
		sequence(re.Sub[0], out)
	case syntax.OpLiteral:
		fold := re.Flags&syntax.FoldCase != 0
		for _, r := range re.Rune {
			if fold && (r >= 0x80 || r == 'k' || r == 'K' || r == 's' || r == 'S') {
				brk() // folds to a non-ASCII rune too
				continue
			}
			if r >= 0x80 {
				var buf [4]byte
				for _, b := range buf[:utf8.EncodeRune(buf[:], r)] {
					var set byteSet
					set[b] = true
					*out = append(*out, seqElem{set: set})
				}
				continue
			}
			var set byteSet
			addRune(&set, r, fold)
			*out = append(*out, seqElem{set: set})
		}
	case syntax.OpCharClass:
		var set byteSet
		for i := 0; i+1 < len(re.Rune); i += 2 {
			if re.Rune[i+1] >= 0x80 {
				brk()
				return
			}
			for r := re.Rune[i]; r <= re.Rune[i+1]; r++ {
				set[r] = true
			}
		}
		*out = append(*out, seqElem{set: set})
	case syntax.OpRepeat:
		for range re.Min {
			sequence(re.Sub[0], out)
		}
		if re.Max != re.Min {
			brk()
		}
	case syntax.OpPlus:
		sequence(re.Sub[0], out)
		brk()
	case syntax.OpBeginLine, syntax.OpEndLine, syntax.OpBeginText, syntax.OpEndText,
		syntax.OpWordBoundary, syntax.OpNoWordBoundary, syntax.OpEmptyMatch:
		// Zero width: the bytes around it stay adjacent.
	default:
		brk()
	}
}

// seqFinder finds a run of bytes, one from each set: it scans for the
// rarest set's bytes and checks the others around each hit.
type seqFinder struct {
	seq    []byteSet
	anchor int
}

func newSeqFinder(seq []byteSet) *seqFinder {
	f := &seqFinder{seq: seq}
	for i := range seq {
		if weight(seq[i]) < weight(seq[f.anchor]) {
			f.anchor = i
		}
	}
	return f
}

// index is the offset of the first run in b, or -1.
func (f *seqFinder) index(b []byte) int {
	n, k := len(f.seq), f.anchor
	set := &f.seq[k]
	for i := k; i+n-k <= len(b); i++ {
		if !set[b[i]] {
			continue
		}
		s, ok := i-k, true
		for j := range n {
			if !f.seq[j][b[s+j]] {
				ok = false
				break
			}
		}
		if ok {
			return s
		}
	}
	return -1
}

// byteSet is a set of bytes of which every match contains at least one.
type byteSet [256]bool

// requiredBytes is the rarest set of bytes (by weight) every match of re
// must contain one of, when one can be told: it lets grep skip the lines
// a pattern without any literal cannot match, the way ripgrep's DFA does
// not need to.
func requiredBytes(re *syntax.Regexp) (byteSet, bool) {
	var set byteSet
	switch re.Op {
	case syntax.OpLiteral:
		// Any byte of the literal will do; take the first rune's.
		r := re.Rune[0]
		addRune(&set, r, re.Flags&syntax.FoldCase != 0)
		return set, true
	case syntax.OpCharClass:
		for i := 0; i+1 < len(re.Rune); i += 2 {
			lo, hi := re.Rune[i], re.Rune[i+1]
			for r := lo; r <= hi && r < 0x80; r++ {
				set[r] = true
			}
			if hi >= 0x80 {
				for b := 0xC2; b <= 0xF4; b++ {
					set[b] = true // the lead byte of any non-ASCII rune
				}
			}
		}
		return set, true
	case syntax.OpCapture, syntax.OpPlus:
		return requiredBytes(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return requiredBytes(re.Sub[0])
		}
	case syntax.OpConcat:
		found := false
		for _, sub := range re.Sub {
			if s, ok := requiredBytes(sub); ok && (!found || weight(s) < weight(set)) {
				set, found = s, true
			}
		}
		return set, found
	case syntax.OpAlternate:
		for _, sub := range re.Sub {
			s, ok := requiredBytes(sub)
			if !ok {
				return set, false
			}
			for i, in := range s {
				set[i] = set[i] || in
			}
		}
		return set, true
	}
	return set, false
}

func addRune(set *byteSet, r rune, fold bool) {
	if r >= 0x80 {
		var buf [4]byte
		set[buf[:utf8.EncodeRune(buf[:], r)][0]] = true
		if fold {
			for b := 0xC2; b <= 0xF4; b++ {
				set[b] = true
			}
		}
		return
	}
	set[r] = true
	if fold && unicode.IsLetter(r) {
		set[unicode.ToUpper(r)] = true
		set[unicode.ToLower(r)] = true
		if r == 'k' || r == 'K' || r == 's' || r == 'S' {
			set[0xE2], set[0xC5] = true, true // the Kelvin sign, the long s
		}
	}
}

// weight estimates how often a byte of set occurs in source code, in
// percent of lines, roughly: lower is rarer.
func weight(set byteSet) float64 {
	w := 0.0
	for c, in := range set {
		if !in {
			continue
		}
		switch {
		case c == ' ' || c == '\t':
			w += 50
		case c >= 'a' && c <= 'z':
			w += 8
		case c >= 'A' && c <= 'Z':
			w += 2
		case c >= '0' && c <= '9':
			w += 1.5
		case c < 0x80:
			w += 1
		default:
			w += 0.1
		}
	}
	return w
}

// index is the offset of the first byte of b in the set, or -1.
func (s *byteSet) index(b []byte) int {
	for i, c := range b {
		if s[c] {
			return i
		}
	}
	return -1
}

// literal is text every match contains, case-insensitively when fold.
type literal struct {
	text []byte
	fold bool
}

// requiredLiteral is the longest literal every match of re contains (a
// case-sensitive one preferred), or none.
func requiredLiteral(re *syntax.Regexp) literal {
	switch re.Op {
	case syntax.OpLiteral:
		return literal{[]byte(string(re.Rune)), re.Flags&syntax.FoldCase != 0}
	case syntax.OpCapture, syntax.OpPlus:
		return requiredLiteral(re.Sub[0])
	case syntax.OpRepeat:
		if re.Min > 0 {
			return requiredLiteral(re.Sub[0])
		}
	case syntax.OpConcat:
		var best literal
		for _, sub := range re.Sub {
			if l := requiredLiteral(sub); better(l, best) {
				best = l
			}
		}
		return best
	}
	return literal{}
}

// better prefers a case-sensitive literal of 3 bytes or more, then length.
func better(a, b literal) bool {
	ga, gb := !a.fold && len(a.text) >= 3, !b.fold && len(b.text) >= 3
	if ga != gb {
		return ga
	}
	return len(a.text) > len(b.text)
}

// foldFinder finds an ASCII literal case-insensitively: IndexByte scans
// for its rarest byte in both cases, and each hit is compared in full.
type foldFinder struct {
	lit    []byte // lower case
	off    int    // index in lit of the rare byte
	lo, up byte
}

// newFoldFinder builds a finder for the longest stretch of text that
// folds only to ASCII (non-ASCII runes and k and s, whose folds include
// the Kelvin sign and the long s, are left out), or nil when that
// stretch is too short to help.
func newFoldFinder(text []byte) *foldFinder {
	lower := bytes.ToLower(text)
	var best []byte
	start := 0
	for i := 0; i <= len(lower); i++ {
		if i == len(lower) || lower[i] >= 0x80 || lower[i] == 'k' || lower[i] == 's' {
			if i-start > len(best) {
				best = lower[start:i]
			}
			start = i + 1
		}
	}
	if len(best) < 2 {
		return nil
	}
	f := &foldFinder{lit: best}
	for i, c := range best {
		if rank(c) < rank(best[f.off]) {
			f.off = i
		}
	}
	f.lo, f.up = best[f.off], best[f.off]
	if f.lo >= 'a' && f.lo <= 'z' {
		f.up = f.lo - 'a' + 'A'
	}
	return f
}

// rank orders bytes from rare to common in source code: punctuation and
// digits are rarer than letters, and letters go by their usual frequency.
func rank(c byte) int {
	const common = "etaoinsrhldcumfpgwybvkxjqz"
	if i := bytes.IndexByte([]byte(common), c); i >= 0 {
		return 100 - i
	}
	if c == ' ' || c == '\t' || c == '.' || c == ',' || c == '(' || c == ')' {
		return 90
	}
	return 0
}

// index is the offset of the first case-insensitive occurrence of the
// literal in b, or -1.
func (f *foldFinder) index(b []byte) int {
	nextLo, nextUp := -2, -2 // -2: not searched yet
	pos := 0
	for {
		if nextLo != -1 && nextLo < pos {
			nextLo = indexFrom(b, pos, f.lo)
		}
		if f.up != f.lo && nextUp != -1 && nextUp < pos {
			nextUp = indexFrom(b, pos, f.up)
		}
		at := nextLo
		if f.up != f.lo && nextUp >= 0 && (at < 0 || nextUp < at) {
			at = nextUp
		}
		if at < 0 {
			return -1
		}
		if s := at - f.off; s >= 0 && s+len(f.lit) <= len(b) && foldEqual(b[s:s+len(f.lit)], f.lit) {
			return s
		}
		pos = at + 1
	}
}

func indexFrom(b []byte, from int, c byte) int {
	if i := bytes.IndexByte(b[from:], c); i >= 0 {
		return from + i
	}
	return -1
}

// foldEqual compares b with the lower-case ASCII lit, ignoring ASCII case.
func foldEqual(b, lit []byte) bool {
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != lit[i] {
			return false
		}
	}
	return true
}

// each calls fn with the byte range [start, end) of every line of b that
// matches (end excludes the newline), in order, until fn returns false.
func (m *matcher) each(b []byte, fn func(start, end int) bool) {
	if m.find == nil {
		m.eachLine(b, fn)
		return
	}
	pos := 0
	for pos < len(b) {
		var at int
		if m.find != nil {
			i := m.find(b[pos:])
			if i < 0 {
				return
			}
			at = pos + i
		} else {
			loc := m.buf.FindIndex(b[pos:])
			if loc == nil {
				return
			}
			at = pos + loc[0]
		}
		start := bytes.LastIndexByte(b[:at], '\n') + 1
		end := bytes.IndexByte(b[at:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += at
		}
		if m.pure || m.line.Match(b[start:end]) {
			if !fn(start, end) {
				return
			}
		}
		pos = end + 1
	}
}

// eachLine runs the regexp on every line: without a literal to look for,
// Go's backtracker on short lines beats its NFA over the whole file.
func (m *matcher) eachLine(b []byte, fn func(start, end int) bool) {
	for start := 0; start < len(b); {
		end := bytes.IndexByte(b[start:], '\n')
		if end < 0 {
			end = len(b)
		} else {
			end += start
		}
		if m.line.Match(b[start:end]) && !fn(start, end) {
			return
		}
		start = end + 1
	}
}
