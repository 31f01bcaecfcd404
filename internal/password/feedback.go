package password

import (
	"math"
	"regexp"
	"strings"

	"github.com/trustelem/zxcvbn/match"
)

// ZxcvbnFeedback is the warning and suggestions shown under a zxcvbn
// strength meter.
type ZxcvbnFeedback struct {
	Warning     string   `json:"warning"`
	Suggestions []string `json:"suggestions"`
}

// zxcvbnFeedback reproduces feedback.coffee of zxcvbn 4.4.2, which the Go
// port leaves out: the texts, and the rule of commenting on the longest
// match, are the library's, so the widget shows what users of zxcvbn
// everywhere else see.
func zxcvbnFeedback(score int, seq []*match.Match) ZxcvbnFeedback {
	if len(seq) == 0 {
		return ZxcvbnFeedback{Suggestions: []string{
			"Use a few words, avoid common phrases",
			"No need for symbols, digits, or uppercase letters",
		}}
	}
	if score > 2 {
		return ZxcvbnFeedback{Suggestions: []string{}}
	}
	longest := seq[0]
	for _, m := range seq[1:] {
		if len([]rune(m.Token)) > len([]rune(longest.Token)) {
			longest = m
		}
	}
	const extra = "Add another word or two. Uncommon words are better."
	fb, ok := matchFeedback(longest, len(seq) == 1)
	if !ok {
		return ZxcvbnFeedback{Suggestions: []string{extra}}
	}
	fb.Suggestions = append([]string{extra}, fb.Suggestions...)
	return fb
}

func matchFeedback(m *match.Match, sole bool) (ZxcvbnFeedback, bool) {
	switch m.Pattern {
	case "dictionary":
		return dictionaryFeedback(m, sole), true
	case "spatial":
		w := "Short keyboard patterns are easy to guess"
		if m.Turns == 1 {
			w = "Straight rows of keys are easy to guess"
		}
		return ZxcvbnFeedback{Warning: w, Suggestions: []string{"Use a longer keyboard pattern with more turns"}}, true
	case "repeat":
		w := `Repeats like "abcabcabc" are only slightly harder to guess than "abc"`
		if len([]rune(m.BaseToken)) == 1 {
			w = `Repeats like "aaa" are easy to guess`
		}
		return ZxcvbnFeedback{Warning: w, Suggestions: []string{"Avoid repeated words and characters"}}, true
	case "sequence":
		return ZxcvbnFeedback{Warning: "Sequences like abc or 6543 are easy to guess", Suggestions: []string{"Avoid sequences"}}, true
	case "regex":
		if m.RegexName == "recent_year" {
			return ZxcvbnFeedback{Warning: "Recent years are easy to guess",
				Suggestions: []string{"Avoid recent years", "Avoid years that are associated with you"}}, true
		}
	case "date":
		return ZxcvbnFeedback{Warning: "Dates are often easy to guess",
			Suggestions: []string{"Avoid dates and years that are associated with you"}}, true
	}
	return ZxcvbnFeedback{}, false
}

var (
	startUpper = regexp.MustCompile(`^[A-Z][^A-Z]+$`)
	allUpper   = regexp.MustCompile(`^[^a-z]+$`)
)

func dictionaryFeedback(m *match.Match, sole bool) ZxcvbnFeedback {
	var w string
	switch m.DictionaryName {
	case "passwords":
		switch {
		case sole && !m.L33t && !m.Reversed:
			switch {
			case m.Rank <= 10:
				w = "This is a top-10 common password"
			case m.Rank <= 100:
				w = "This is a top-100 common password"
			default:
				w = "This is a very common password"
			}
		case math.Log10(m.Guesses) <= 4:
			w = "This is similar to a commonly used password"
		}
	case "english_wikipedia":
		if sole {
			w = "A word by itself is easy to guess"
		}
	case "surnames", "male_names", "female_names":
		w = "Common names and surnames are easy to guess"
		if sole {
			w = "Names and surnames by themselves are easy to guess"
		}
	}
	s := []string{}
	switch {
	case startUpper.MatchString(m.Token):
		s = append(s, "Capitalization doesn't help very much")
	case allUpper.MatchString(m.Token) && strings.ToLower(m.Token) != m.Token:
		s = append(s, "All-uppercase is almost as easy to guess as all-lowercase")
	}
	if m.Reversed && len([]rune(m.Token)) >= 4 {
		s = append(s, "Reversed words aren't much harder to guess")
	}
	if m.L33t {
		s = append(s, "Predictable substitutions like '@' instead of 'a' don't help very much")
	}
	return ZxcvbnFeedback{Warning: w, Suggestions: s}
}
