package password

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/pwscore"
)

var (
	zxcvbnProject = &project.Project{PasswordStrengthPolicy: project.PolicyZXCVBN}
	ludsProject   = &project.Project{PasswordStrengthPolicy: project.PolicyLUDS, LUDSMinPasswordLength: 8, LUDSMinPasswordComplexity: 3}
)

// TestZxcvbnKnownScores compares with the scores trustelem/zxcvbn documents
// for upstream zxcvbn 4.4.2 (its testdata/output.json, generated from the
// CoffeeScript library), and with the validity rule score >= 3.
func TestZxcvbnKnownScores(t *testing.T) {
	t.Parallel()
	known := map[string]int{
		"password1": 0, "123456": 0, "p@ssword": 0, "iloveyou": 0, "Rosebud": 0, "zxcvbnm,./": 1, "love88": 1,
		"abcdefghijk987654321": 1, "D0g..................": 1, "Tr0ub4dour&3": 2, "qwER43@!": 2, "zhang198822": 2,
		"neverforget13/3/1997": 3, "do you know": 3, "ryanhunter2000": 3, "asdfghju7654rewq": 3,
		"correcthorsebatterystaple": 4, "briansmith4mayor": 4, "correct-horse-battery-staple": 4,
	}
	for pw, score := range known {
		v := evaluate(zxcvbnProject, pw, nil, false)
		if v.Score != score || v.ValidPassword != (score >= 3) || v.StrengthPolicy != "zxcvbn" {
			t.Errorf("%q: score %d valid %v policy %s; want score %d", pw, v.Score, v.ValidPassword, v.StrengthPolicy, score)
		}
	}
	// The same samples, read from the library's own documented results
	// when the module source is at hand (it is whenever tests build).
	if dir := zxcvbnModuleDir(); dir != "" {
		raw, err := os.ReadFile(filepath.Join(dir, "testdata", "output.json"))
		if err != nil {
			t.Fatalf("read documented scores: %v", err)
		}
		var doc []struct {
			Password string `json:"password"`
			Score    int    `json:"score"`
		}
		if err := json.Unmarshal(raw, &doc); err != nil || len(doc) < 50 {
			t.Fatalf("documented scores: %d entries, %v", len(doc), err)
		}
		for _, d := range doc {
			if v := evaluate(zxcvbnProject, d.Password, nil, false); v.Score != d.Score {
				t.Errorf("%q: score %d, documented %d", d.Password, v.Score, d.Score)
			}
		}
	}
}

func TestZxcvbnFeedback(t *testing.T) {
	t.Parallel()
	const extra = "Add another word or two. Uncommon words are better."
	cases := map[string]ZxcvbnFeedback{
		"password": {"This is a top-10 common password", []string{extra}},
		"Password": {"This is a top-10 common password", []string{extra, "Capitalization doesn't help very much"}},
		"p@ssword": {"This is similar to a commonly used password",
			[]string{extra, "Predictable substitutions like '@' instead of 'a' don't help very much"}},
		"drowssap":                     {"This is similar to a commonly used password", []string{extra, "Reversed words aren't much harder to guess"}},
		"zxcvbnm,./":                   {"Straight rows of keys are easy to guess", []string{extra, "Use a longer keyboard pattern with more turns"}},
		"qwER43@!":                     {"Short keyboard patterns are easy to guess", []string{extra, "Use a longer keyboard pattern with more turns"}},
		"aaaaaaaaaaaaaa":               {`Repeats like "aaa" are easy to guess`, []string{extra, "Avoid repeated words and characters"}},
		"abcabcabcabc":                 {`Repeats like "abcabcabc" are only slightly harder to guess than "abc"`, []string{extra, "Avoid repeated words and characters"}},
		"abcdefghijk987654321":         {"Sequences like abc or 6543 are easy to guess", []string{extra, "Avoid sequences"}},
		"13/3/1997":                    {"Dates are often easy to guess", []string{extra, "Avoid dates and years that are associated with you"}},
		"2019":                         {"Recent years are easy to guess", []string{extra, "Avoid recent years", "Avoid years that are associated with you"}},
		"smith":                        {"Names and surnames by themselves are easy to guess", []string{extra}},
		"smithjones":                   {"Common names and surnames are easy to guess", []string{extra}},
		"correct horse battery staple": {"", []string{}},
	}
	for pw, want := range cases {
		got := evaluate(zxcvbnProject, pw, nil, false).ZxcvbnFeedback
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%q feedback (-want +got):\n%s", pw, diff)
		}
	}
}

func TestZxcvbnUserInputsAndBreach(t *testing.T) {
	t.Parallel()
	for _, pw := range []string{"bartholomew.quillfeather", "zyxcorpquillfeather"} {
		plain := evaluate(zxcvbnProject, pw, nil, false)
		withEmail := evaluate(zxcvbnProject, pw, userInputs("Bartholomew.Quillfeather@zyxcorp.test"), false)
		if plain.Score != 4 || withEmail.Score > 1 || withEmail.ValidPassword {
			t.Errorf("%q made of the email scores %d (without the email %d)", pw, withEmail.Score, plain.Score)
		}
	}
	v := evaluate(zxcvbnProject, "correct horse battery staple", nil, true)
	if v.ValidPassword || !v.BreachedPassword || v.Score != 4 || v.ZxcvbnFeedback.Warning != breachedWarning ||
		!slices.Equal(v.ZxcvbnFeedback.Suggestions, []string{breachedSuggestion}) {
		t.Errorf("a breached strong password: %+v", v)
	}
	// A weak breached one keeps zxcvbn's warning; the breach leads the suggestions.
	v = evaluate(zxcvbnProject, "password", nil, true)
	if v.ZxcvbnFeedback.Warning != "This is a top-10 common password" || v.ZxcvbnFeedback.Suggestions[0] != breachedSuggestion {
		t.Errorf("a breached weak password: %+v", v.ZxcvbnFeedback)
	}
}

func TestLUDS(t *testing.T) {
	t.Parallel()
	four := &project.Project{PasswordStrengthPolicy: project.PolicyLUDS, LUDSMinPasswordLength: 12, LUDSMinPasswordComplexity: 4}
	cases := []struct {
		p        *project.Project
		pw       string
		breached bool
		want     LUDSFeedback
		valid    bool
	}{
		{ludsProject, "abcdefgh", false, LUDSFeedback{HasLowerCase: true, MissingComplexity: 2}, false},
		{ludsProject, "Abcdefg1", false, LUDSFeedback{HasLowerCase: true, HasUpperCase: true, HasDigit: true}, true}, // exactly 8
		{ludsProject, "Abcdef1", false, LUDSFeedback{HasLowerCase: true, HasUpperCase: true, HasDigit: true, MissingCharacters: 1}, false},
		{ludsProject, "", false, LUDSFeedback{MissingComplexity: 3, MissingCharacters: 8}, false},
		{ludsProject, "12345678", false, LUDSFeedback{HasDigit: true, MissingComplexity: 2}, false},
		{ludsProject, "pass word 1", false, LUDSFeedback{HasLowerCase: true, HasDigit: true, HasSymbol: true}, true},     // a space is a symbol
		{ludsProject, "äöüßÄÖÜé", false, LUDSFeedback{HasSymbol: true, MissingComplexity: 2}, false},                     // non-ASCII letters are symbols
		{ludsProject, "🔑🔑🔑🔑🔑🔑🔑a", false, LUDSFeedback{HasLowerCase: true, HasSymbol: true, MissingComplexity: 1}, false}, // 8 characters, not 29 bytes
		{ludsProject, "Password1!", true, LUDSFeedback{HasLowerCase: true, HasUpperCase: true, HasDigit: true, HasSymbol: true}, false},
		{four, "Abcdefghijk1", false, LUDSFeedback{HasLowerCase: true, HasUpperCase: true, HasDigit: true, MissingComplexity: 1}, false},
		{four, "Abcdefghij1!", false, LUDSFeedback{HasLowerCase: true, HasUpperCase: true, HasDigit: true, HasSymbol: true}, true},
		{four, "Abcdefgh1!", false, LUDSFeedback{HasLowerCase: true, HasUpperCase: true, HasDigit: true, HasSymbol: true, MissingCharacters: 2}, false},
	}
	for _, c := range cases {
		v := evaluate(c.p, c.pw, nil, c.breached)
		if diff := cmp.Diff(c.want, v.LUDSFeedback); diff != "" || v.ValidPassword != c.valid || v.StrengthPolicy != "luds" ||
			v.BreachedPassword != c.breached {
			t.Errorf("%q: valid %v policy %s (-want +got):\n%s", c.pw, v.ValidPassword, v.StrengthPolicy, diff)
		}
		if len(v.ZxcvbnFeedback.Suggestions) != 0 || v.ZxcvbnFeedback.Warning != "" {
			t.Errorf("%q: zxcvbn feedback under LUDS: %+v", c.pw, v.ZxcvbnFeedback)
		}
	}
	// Under zxcvbn the LUDS classes are reported but nothing is "missing".
	if f := evaluate(zxcvbnProject, "abc", nil, false).LUDSFeedback; f.MissingCharacters != 0 || f.MissingComplexity != 0 || !f.HasLowerCase {
		t.Errorf("LUDS feedback under zxcvbn: %+v", f)
	}
}

func TestUserInputs(t *testing.T) {
	t.Parallel()
	got := userInputs(" Bob.Builder+work@Big-Corp.example.com ")
	for _, want := range []string{"bob.builder+work@big-corp.example.com", "bob.builder+work", "bob", "builder", "work",
		"big-corp", "example", "com"} {
		if !slices.Contains(got, want) {
			t.Errorf("user inputs %v lack %q", got, want)
		}
	}
	if userInputs("") != nil {
		t.Error("inputs for no email")
	}
}

// zxcvbn scores only a password's first pwscore.ScoredRunes runes (its
// matching grows quickly with length, and the strength check is public);
// the LUDS classes and the breach check read all of it. So a password that
// is weak in its first hundred characters is weak whatever follows, on
// the strength check and wherever a password is set (requireStrong).
func TestLongPasswordScoredByItsBeginning(t *testing.T) {
	t.Parallel()
	weakStart := strings.Repeat("a", pwscore.ScoredRunes) + "Xq7#vL9!mZ2@pR4$kW8%"
	if v := evaluate(zxcvbnProject, weakStart, nil, false); v.ValidPassword || v.Score >= ValidScore {
		t.Errorf("a hundred a's and a strong tail: score %d valid %v", v.Score, v.ValidPassword)
	}
	if v := evaluate(zxcvbnProject, "Xq7#vL9!mZ2@pR4$kW8%"+strings.Repeat("a", pwscore.ScoredRunes), nil, false); !v.ValidPassword {
		t.Errorf("a strong start and a long tail: score %d", v.Score)
	}
	if f := evaluate(ludsProject, weakStart, nil, false).LUDSFeedback; !f.HasUpperCase || !f.HasDigit || !f.HasSymbol {
		t.Errorf("LUDS missed the classes past the scored prefix: %+v", f)
	}
}
