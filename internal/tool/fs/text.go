package fs

import (
	"bytes"
	"errors"
	iofs "io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/openseek/openseek/internal/tool"
)

// sniffLen is how much of a file decides whether it is text.
const sniffLen = 8000

// isBinary reports whether b (the start of a file, or all of it) looks
// like binary data: a NUL byte or invalid UTF-8. A rune cut at the end of
// a sniffed prefix does not count.
func isBinary(b []byte, whole bool) bool {
	if bytes.IndexByte(b, 0) >= 0 {
		return true
	}
	if utf8.Valid(b) {
		return false
	}
	if whole {
		return true
	}
	for cut := 1; cut <= 3 && cut < len(b); cut++ {
		if utf8.Valid(b[:len(b)-cut]) {
			return false
		}
	}
	return true
}

// lineStarts returns the byte offset at which each line of s begins. A
// text ending in "\n" has a final empty line, as read shows it.
func lineStarts(s string) []int {
	starts := make([]int, 1, 1+strings.Count(s, "\n"))
	for i := 0; ; {
		j := strings.IndexByte(s[i:], '\n')
		if j < 0 {
			return starts
		}
		i += j + 1
		starts = append(starts, i)
	}
}

// lineAt is the 1-based line holding byte offset off.
func lineAt(starts []int, off int) int {
	return sort.Search(len(starts), func(i int) bool { return starts[i] > off })
}

// lineOf is the 1-based line holding byte offset off of s.
func lineOf(s string, off int) int {
	return 1 + strings.Count(s[:off], "\n")
}

// joinLines renders line numbers as "3, 9, 12", eliding after max.
func joinLines(lines []int, max int) string {
	var b strings.Builder
	for i, l := range lines {
		if i == max {
			b.WriteString(", …")
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.Itoa(l))
	}
	return b.String()
}

// Hint thresholds: a line is offered as "closest" only when it is at least
// this similar; only this many runes of each line are compared, and the
// edit distance is computed only for the best bigram-scored candidates.
const (
	minSimilarity  = 0.6
	hintRunes      = 160
	hintCandidates = 16
)

// closestLine finds the line of content most like the first non-blank
// line of old. It returns 0 when nothing is close enough. A cheap bigram
// score over every line picks a few candidates; edit distance ranks them.
func closestLine(content, old string) (int, string) {
	var want string
	for _, l := range strings.Split(old, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			want = t
			break
		}
	}
	if want == "" {
		return 0, ""
	}
	wantR := clip([]rune(want))
	var grams bigrams
	grams.addAll(wantR)

	type cand struct {
		line  int
		text  string
		score float64
	}
	var top []cand
	lineNo := 0
	for rest := content; rest != ""; {
		lineNo++
		l := rest
		if j := strings.IndexByte(rest, '\n'); j >= 0 {
			l, rest = rest[:j], rest[j+1:]
		} else {
			rest = ""
		}
		t := strings.TrimSpace(l)
		if t == "" {
			continue
		}
		if t == want {
			return lineNo, strings.TrimRight(l, "\r")
		}
		score := grams.dice(clip([]rune(t)), len(wantR))
		if len(top) == hintCandidates && score <= top[len(top)-1].score {
			continue
		}
		c := cand{lineNo, l, score}
		i := sort.Search(len(top), func(i int) bool { return top[i].score < score })
		top = append(top, cand{})
		copy(top[i+1:], top[i:])
		top[i] = c
		if len(top) > hintCandidates {
			top = top[:hintCandidates]
		}
	}
	bestLine, bestText, best := 0, "", 0.0
	for _, c := range top {
		tr := clip([]rune(strings.TrimSpace(c.text)))
		sim := 1 - float64(editDistance(tr, wantR))/float64(max(len(tr), len(wantR)))
		if sim > best || (sim == best && c.line < bestLine) {
			bestLine, bestText, best = c.line, strings.TrimRight(c.text, "\r"), sim
		}
	}
	if best < minSimilarity {
		return 0, ""
	}
	return bestLine, bestText
}

// bigrams is a 4096-bit set of hashed rune pairs.
type bigrams [64]uint64

func bigramHash(a, b rune) uint32 { return (uint32(a)*31 + uint32(b)) & 4095 }

func (g *bigrams) addAll(r []rune) {
	for i := 1; i < len(r); i++ {
		h := bigramHash(r[i-1], r[i])
		g[h/64] |= 1 << (h % 64)
	}
}

// dice approximates the Dice coefficient of r's bigrams against the set
// (built from a text of wantLen runes).
func (g *bigrams) dice(r []rune, wantLen int) float64 {
	if len(r) < 2 || wantLen < 2 {
		return 0
	}
	hits := 0
	for i := 1; i < len(r); i++ {
		h := bigramHash(r[i-1], r[i])
		if g[h/64]&(1<<(h%64)) != 0 {
			hits++
		}
	}
	return 2 * float64(hits) / float64(len(r)-1+wantLen-1)
}

func clip(r []rune) []rune {
	if len(r) > hintRunes {
		return r[:hintRunes]
	}
	return r
}

// editDistance is the optimal-string-alignment distance between a and b:
// insertions, deletions, substitutions and adjacent transpositions (the
// usual typo, "mian" for "main") each cost 1.
func editDistance(a, b []rune) int {
	rows := [3][]int{make([]int, len(b)+1), make([]int, len(b)+1), make([]int, len(b)+1)}
	for j := range rows[1] {
		rows[1][j] = j
	}
	for i := 1; i <= len(a); i++ {
		// Row r lives in rows[(r+1)%3].
		pp, prev, cur := rows[(i+2)%3], rows[i%3], rows[(i+1)%3]
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				cur[j] = min(cur[j], pp[j-2]+1)
			}
		}
	}
	return rows[(len(a)+1)%3][len(b)]
}

// suggest proposes an existing path close to the missing absolute path
// real: the first missing component is replaced by the most similar entry
// of its directory. It returns "" when no such path exists.
func suggest(env *tool.Env, real string) string {
	dir, rest := real, []string(nil)
	for {
		if _, err := os.Stat(dir); err == nil {
			break
		} else if !errors.Is(err, iofs.ErrNotExist) {
			return ""
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		rest = append([]string{filepath.Base(dir)}, rest...)
		dir = parent
	}
	if len(rest) == 0 {
		return ""
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return ""
	}
	missing := []rune(strings.ToLower(rest[0]))
	limit := max(2, len(missing)/3+1)
	type cand struct {
		name string
		dist int
	}
	var cands []cand
	for _, e := range entries {
		if d := editDistance([]rune(strings.ToLower(e.Name())), missing); d <= limit {
			cands = append(cands, cand{e.Name(), d})
		}
	}
	sort.SliceStable(cands, func(i, j int) bool { return cands[i].dist < cands[j].dist })
	for _, c := range cands {
		p := filepath.Join(append([]string{dir, c.name}, rest[1:]...)...)
		if _, err := os.Stat(p); err != nil {
			continue
		}
		if _, err := env.Resolve(p); err != nil {
			continue
		}
		return env.Rel(p)
	}
	return ""
}
