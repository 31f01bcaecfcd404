package pwscore

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func TestScoredIsTheFirstHundredRunes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		in   string
		want string
	}{
		{"", ""},
		{"correct horse battery staple", "correct horse battery staple"},
		{strings.Repeat("a", 100), strings.Repeat("a", 100)},
		{strings.Repeat("a", 100) + "b", strings.Repeat("a", 100)},
		{strings.Repeat("密", 256), strings.Repeat("密", 100)},
		{strings.Repeat("🔑", 99) + "é🔑", strings.Repeat("🔑", 99) + "é"},
	} {
		if got := Scored(c.in); got != c.want {
			t.Errorf("Scored(%d runes) = %d runes %q, want %d runes", utf8.RuneCountInString(c.in),
				utf8.RuneCountInString(got), got, utf8.RuneCountInString(c.want))
		}
	}
}

// zxcvbn's match sequence covers every character it read (bruteforce
// fills the gaps between patterns), so its length is the work's input.
func TestScoreReadsOnlyThePrefix(t *testing.T) {
	t.Parallel()
	long := strings.Repeat("🔑密", 128) // 256 runes, the longest password allowed
	res := Score(long, []string{"ada@acme.test"})
	read := 0
	for _, m := range res.Sequence {
		read += utf8.RuneCountInString(m.Token)
	}
	if read != ScoredRunes {
		t.Fatalf("zxcvbn read %d runes of a 256-rune password, want %d", read, ScoredRunes)
	}
}
