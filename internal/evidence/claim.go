package evidence

import (
	"regexp"
	"strings"
	"sync"
)

// Kind is what a claim or a run is about.
type Kind int

const (
	Build Kind = iota + 1 // the code builds (a passing test run shows it too)
	Tests                 // the tests pass
)

// String is the kind as the protocol writes it: "build" or "tests".
func (k Kind) String() string {
	switch k {
	case Build:
		return "build"
	case Tests:
		return "tests"
	}
	return ""
}

// claimPatterns find claims in a lower-cased answer, tests first. They,
// and the other patterns here, are compiled on first use: most answers
// name no test or build, and compiling them at package init cost every
// start of the binary 150 KB and a quarter of a millisecond.
var claimPatterns = sync.OnceValue(func() []claimPattern {
	return []claimPattern{
		{Tests, regexp.MustCompile(`\b(?:all|every|the)?\s*(?:\d+\s+|(?:unit|integration|go|cargo|npm|python|e2e|existing|new|remaining|relevant|other)\s+)*(?:tests?|test suites?|specs?)\s+(?:now\s+|still\s+|all\s+)*(?:pass(?:es|ed)?|succeed(?:s|ed)?|(?:are|is)\s+(?:all\s+)?(?:now\s+)?(?:passing|green))\b`)},
		{Tests, regexp.MustCompile(`\bwith\s+(?:all\s+)?(?:the\s+)?tests\s+passing\b`)},
		{Build, regexp.MustCompile(`\b(?:the\s+)?(?:build|compilation)\s+(?:now\s+|still\s+)*(?:succeed(?:s|ed)?|pass(?:es|ed)?|is\s+(?:now\s+)?(?:green|clean|successful|passing))\b`)},
		{Build, regexp.MustCompile(`\b(?:it|the\s+(?:code|project|program|crate|package|module|binary))\s+(?:now\s+|still\s+)*(?:builds|compiles)\b`)},
		{Build, regexp.MustCompile(`\b(?:builds|compiles)\s+(?:cleanly|successfully|without\s+(?:errors|warnings))\b`)},
	}
})

type claimPattern struct {
	kind Kind
	re   *regexp.Regexp
}

// hedges, found earlier in the claim's sentence, make it no claim: a plan,
// a condition, a negation or an instruction.
var hedge = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:not|no|never|none|if|whether|once|until|unless|should|would|could|will|might|may|must|to|ensure|make sure|verify|check|confirm|expect|hope|assume|can't|cannot|don't|doesn't|didn't|won't|isn't|aren't|wasn't|weren't|haven't|hasn't|so that)\b|n't\b`)
})

// Claim is a sentence of an answer that says the tests pass or the build
// succeeds.
type Claim struct {
	Kind Kind
	// Quote is the claiming words as the answer wrote them.
	Quote string
}

// FindClaim returns the answer's strongest claim: tests over build.
func FindClaim(answer string) (Claim, bool) {
	lower := strings.ToLower(answer)
	if !strings.Contains(lower, "test") && !strings.Contains(lower, "spec") && !strings.Contains(lower, "build") && !strings.Contains(lower, "compil") {
		return Claim{}, false // every pattern names one of these
	}
	var found Claim
	for _, p := range claimPatterns() {
		if found.Kind >= p.kind {
			continue
		}
		for _, loc := range p.re.FindAllStringIndex(lower, -1) {
			start := loc[0] + len(lower[loc[0]:loc[1]]) - len(strings.TrimLeft(lower[loc[0]:loc[1]], " \t\n"))
			if hedge().MatchString(sentenceBefore(lower, start)) || negatedAfter(lower[loc[1]:]) {
				continue
			}
			// Lower-casing keeps byte offsets for the ASCII words matched.
			found = Claim{Kind: p.kind, Quote: strings.TrimSpace(answer[start:loc[1]])}
			break
		}
	}
	return found, found.Kind != 0
}

// sentenceBefore is the text of s's sentence before offset i.
func sentenceBefore(s string, i int) string {
	start := strings.LastIndexAny(s[:i], ".!?\n;:")
	return s[start+1 : i]
}

// negatedAfter reports a claim undone by what follows it ("pass except
// two", "pass locally but fail in CI").
func negatedAfter(rest string) bool {
	end := strings.IndexAny(rest, ".!?\n;")
	if end < 0 {
		end = len(rest)
	}
	return undone().MatchString(rest[:end])
}

var undone = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\b(?:except|but|apart from|other than|fail)`)
})
