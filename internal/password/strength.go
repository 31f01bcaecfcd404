package password

import (
	"context"
	"strings"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/pwscore"
)

// MaxLength bounds a password, in characters: no person types more.
// Hashing has no limit, and zxcvbn reads only the first
// pwscore.ScoredRunes of any password (its matching grows quickly with
// length); the length, character class and breach checks read it all.
const MaxLength = 256

// ValidScore is the lowest zxcvbn score accepted.
const ValidScore = 3

// LUDSFeedback says which character classes a password has and what it
// lacks under the LUDS policy.
type LUDSFeedback struct {
	HasLowerCase      bool `json:"has_lower_case"`
	HasUpperCase      bool `json:"has_upper_case"`
	HasDigit          bool `json:"has_digit"`
	HasSymbol         bool `json:"has_symbol"`
	MissingComplexity int  `json:"missing_complexity"`
	MissingCharacters int  `json:"missing_characters"`
}

// Verdict is the strength check's answer: exactly the fields of
// api-reference section 3.3. Both feedback objects are always present.
type Verdict struct {
	ValidPassword           bool           `json:"valid_password"`
	Score                   int            `json:"score"`
	BreachedPassword        bool           `json:"breached_password"`
	StrengthPolicy          string         `json:"strength_policy"`
	BreachDetectionOnCreate bool           `json:"breach_detection_on_create"`
	ZxcvbnFeedback          ZxcvbnFeedback `json:"zxcvbn_feedback"`
	LUDSFeedback            LUDSFeedback   `json:"luds_feedback"`
}

// Texts added to zxcvbn feedback when the password is breached, because
// the meter alone might look green.
const (
	breachedWarning    = "This password has appeared in a data breach."
	breachedSuggestion = "Choose a password that has not appeared in a data breach."
)

// checkInput validates the raw password before any evaluation.
func checkInput(field, pw string) error {
	switch {
	case pw == "":
		return apierr.Invalid(field, field+" is required.")
	case !utf8.ValidString(pw):
		return apierr.Invalid(field, field+" must be valid UTF-8.")
	case utf8.RuneCountInString(pw) > MaxLength:
		return apierr.Invalid(field, "Passwords are at most 256 characters.")
	}
	return nil
}

// Check evaluates a password under the project's policy. email, when known,
// makes passwords built from the address itself score low. The breach
// check never fails (it falls back to the shipped list), so neither does
// Check once the input is valid.
func (s *Service) Check(ctx context.Context, p *project.Project, password, email string) (*Verdict, error) {
	if err := checkInput("password", password); err != nil {
		return nil, err
	}
	breached, _ := s.d.Breach.Breached(ctx, password)
	v := evaluate(p, password, userInputs(email), breached)
	return &v, nil
}

// evaluate is the pure part of Check, and of requireStrong where a
// password is set: both score through pwscore.
func evaluate(p *project.Project, password string, inputs []string, breached bool) Verdict {
	res := pwscore.Score(password, inputs)
	v := Verdict{Score: res.Score, BreachedPassword: breached, StrengthPolicy: p.PasswordStrengthPolicy,
		BreachDetectionOnCreate: true, ZxcvbnFeedback: ZxcvbnFeedback{Suggestions: []string{}}}
	v.LUDSFeedback = luds(password)
	if p.PasswordStrengthPolicy == project.PolicyLUDS {
		classes := b2i(v.LUDSFeedback.HasLowerCase) + b2i(v.LUDSFeedback.HasUpperCase) + b2i(v.LUDSFeedback.HasDigit) +
			b2i(v.LUDSFeedback.HasSymbol)
		v.LUDSFeedback.MissingComplexity = max(0, p.LUDSMinPasswordComplexity-classes)
		v.LUDSFeedback.MissingCharacters = max(0, p.LUDSMinPasswordLength-utf8.RuneCountInString(password))
		v.ValidPassword = v.LUDSFeedback.MissingComplexity == 0 && v.LUDSFeedback.MissingCharacters == 0 && !breached
		return v
	}
	v.StrengthPolicy = project.PolicyZXCVBN
	v.ZxcvbnFeedback = zxcvbnFeedback(res.Score, res.Sequence)
	if breached {
		// zxcvbn's own warning, when it has one, says more about why; the
		// breach is then the first suggestion.
		if v.ZxcvbnFeedback.Warning == "" {
			v.ZxcvbnFeedback.Warning = breachedWarning
		}
		v.ZxcvbnFeedback.Suggestions = append([]string{breachedSuggestion}, v.ZxcvbnFeedback.Suggestions...)
	}
	v.ValidPassword = res.Score >= ValidScore && !breached
	return v
}

// luds classifies characters: ASCII lower and upper case letters, ASCII
// digits, and everything else (punctuation, spaces, any non-ASCII letter or
// emoji) as a symbol.
func luds(pw string) LUDSFeedback {
	var f LUDSFeedback
	for _, r := range pw {
		switch {
		case r >= 'a' && r <= 'z':
			f.HasLowerCase = true
		case r >= 'A' && r <= 'Z':
			f.HasUpperCase = true
		case r >= '0' && r <= '9':
			f.HasDigit = true
		default:
			f.HasSymbol = true
		}
	}
	return f
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// userInputs are the strings zxcvbn treats as known to an attacker: the
// whole address, its local part, and its domain labels.
func userInputs(email string) []string {
	email = strings.ToLower(strings.TrimSpace(email))
	if email == "" {
		return nil
	}
	local, domain, _ := strings.Cut(email, "@")
	out := []string{email, local}
	for _, part := range strings.FieldsFunc(local, func(r rune) bool { return r == '.' || r == '_' || r == '-' || r == '+' }) {
		if len(part) >= 3 {
			out = append(out, part)
		}
	}
	for _, label := range strings.Split(domain, ".") {
		if len(label) >= 3 {
			out = append(out, label)
		}
	}
	return out
}

// requireStrong is the rule at every place a password is set: the same
// verdict as the strength check, with the public error a client can act on.
func (s *Service) requireStrong(ctx context.Context, p *project.Project, field, password, email string) error {
	if err := checkInput(field, password); err != nil {
		return err
	}
	breached, _ := s.d.Breach.Breached(ctx, password)
	v := evaluate(p, password, userInputs(email), breached)
	switch {
	case v.BreachedPassword:
		return apierr.New(apierr.BreachedPassword)
	case !v.ValidPassword:
		return apierr.New(apierr.WeakPassword).WithDetails(map[string]any{"strength_policy": v.StrengthPolicy,
			"score": v.Score, "zxcvbn_feedback": v.ZxcvbnFeedback, "luds_feedback": v.LUDSFeedback})
	}
	return nil
}
