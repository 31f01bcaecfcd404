package m2m

import (
	"strings"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/pwscore"
)

// The rule for a client_secret the customer chooses (the Node client's
// M2MClientsCreateRequest: "at least 8 characters long and pass entropy
// requirements").
const (
	minChosenSecret = 8
	maxChosenSecret = 256
	// minSecretScore is zxcvbn's top score (an estimated 10^10 guesses or
	// more), one above what passwords need (password.ValidScore): a
	// machine's secret is pasted, never typed or remembered, so the
	// strongest bucket costs its owner nothing, and it is stored as a fast
	// SHA-256 hash (clientsecret), which an offline guesser runs far
	// faster than a password hash. It is asked of the secret and of the
	// secret without its last four characters (hiddenPart). In practice
	// it takes about fifteen random characters, or a passphrase of
	// several uncommon words.
	minSecretScore = 4
	// shownRunes is how much of a secret's end the API answers to anyone
	// with the project secret (client_secret_last_four, by create, get
	// and search): four characters (clientsecret).
	shownRunes = 4
)

// checkChosenSecret refuses a chosen secret that is too short or too easy
// to guess (insecure_m2m_client_secret) or too long
// (m2m_client_invalid_client_secret). The client's id and name are
// counted as known to an attacker: they are not secret. Nor is the
// secret's end, so the part before it must score too: summer2024!Zq8
// scores 1.4e10 guesses whole, but its shown !Zq8 leaves summer2024, 1.1e6.
func checkChosenSecret(secret string, c *Client) error {
	n := utf8.RuneCountInString(secret)
	switch {
	case n > maxChosenSecret:
		return apierr.New(apierr.M2MClientInvalidClientSecret)
	case n < minChosenSecret:
		return apierr.New(apierr.InsecureM2MClientSecret).WithMessage("A chosen client_secret must be at least 8 characters long.")
	}
	// pwscore reads only the secret's beginning, as for passwords: a
	// longer secret that is weak there is refused.
	known := append([]string{c.ClientID, c.ClientName}, strings.FieldsFunc(c.ClientID+" "+c.ClientName, notAlphanumeric)...)
	// The part before the shown end is what a guesser must find, but
	// zxcvbn scores a pattern cut short (a name repeated, less its last
	// four characters) above the whole: both must pass.
	for _, s := range []string{secret, hiddenPart(secret)} {
		if pwscore.Score(s, known).Score < minSecretScore {
			return apierr.New(apierr.InsecureM2MClientSecret)
		}
	}
	return nil
}

// hiddenPart is secret without its last shownRunes characters, the ones
// client_secret_last_four shows. Dropping whole characters keeps a UTF-8 string
// for zxcvbn, and drops at least what is shown.
func hiddenPart(secret string) string {
	end := len(secret)
	for range shownRunes {
		_, size := utf8.DecodeLastRuneInString(secret[:end])
		end -= size
	}
	return secret[:end]
}

func notAlphanumeric(r rune) bool {
	return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
}
