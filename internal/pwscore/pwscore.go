// Package pwscore is the one place Latchkey asks zxcvbn how guessable a
// chosen secret is: members' passwords (internal/password) and the client
// secrets customers choose for machine clients (internal/m2m).
//
// zxcvbn reads only a bounded prefix. Its matching grows quickly with
// length: a 256-character password of emoji or CJK took 0.7 to 0.9 s of
// CPU, and the strength check answers anyone holding the public token.
// Checks that do not need the estimate (length, character classes, the
// breach list) keep reading the whole secret.
package pwscore

import "github.com/trustelem/zxcvbn"

// ScoredRunes is how much of a secret zxcvbn reads. Scoring the beginning
// is conservative: a secret is at least as hard to guess as its first
// hundred characters, so a longer one that is weak there is refused, and
// no one remembers or types a stronger hundred-character prefix than a
// random one, which scores at the top anyway.
const ScoredRunes = 100

// Scored returns the part of secret that Score reads: its first
// ScoredRunes runes.
func Scored(secret string) string {
	n := 0
	for i := range secret {
		if n == ScoredRunes {
			return secret[:i]
		}
		n++
	}
	return secret
}

// Score is zxcvbn's estimate for Scored(secret). known are strings an
// attacker is assumed to know (the address, the client's name), which
// zxcvbn treats as a dictionary.
func Score(secret string, known []string) zxcvbn.Result {
	return zxcvbn.PasswordStrength(Scored(secret), known)
}
