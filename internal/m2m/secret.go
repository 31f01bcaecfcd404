package m2m

import (
	"strings"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/pwscore"
)

// The rule for a client_secret the customer chooses. The Node client's
// M2MClientsCreateRequest asks "at least 8 characters long and pass
// entropy requirements"; ours are stricter, because a chosen secret is
// stored as a generated one is (clientsecret): an unsalted SHA-256 hash,
// fast by design so the token endpoint can check a secret per request.
// That suits a generated secret (256 random bits), but an offline guesser
// with a leaked table runs some 1e10 SHA-256 a second per GPU, against
// every client's hash at once. zxcvbn's top score (1e10 guesses), which
// this rule asked before, is a second of that. So a chosen secret must
// look like a generated one, and then a fast hash suits every stored
// secret: no slower hash is needed for some of them.
const (
	// minChosenSecret: a generated secret is 43 characters; 32 is what
	// `openssl rand -hex 16` (128 bits) or a UUID-and-more gives, and no
	// secret typed or remembered by a person is that long and random.
	minChosenSecret = 32
	maxChosenSecret = 256
	// minSecretGuesses is the least zxcvbn estimate taken, of the secret
	// and of the secret without its last four characters (hiddenPart):
	// about 2^66, far below what a random secret of 32 characters scores
	// (random hex's hidden part scores above 1e24), and far above a
	// pattern that length alone lets through (Summer2024! repeated to 32
	// characters scores zxcvbn's top score, 1e14).
	minSecretGuesses = 1e20
	// shownRunes is how much of a secret's end the API answers to anyone
	// with the project secret (client_secret_last_four, by create, get
	// and search): four characters (clientsecret).
	shownRunes = 4
)

// checkChosenSecret refuses a chosen secret that is too short or too easy
// to guess (insecure_m2m_client_secret) or too long
// (m2m_client_invalid_client_secret). The client's id and name are
// counted as known to an attacker: they are not secret. Nor is the
// secret's end, so the part before it must score too.
func checkChosenSecret(secret string, c *Client) error {
	n := utf8.RuneCountInString(secret)
	switch {
	case n > maxChosenSecret:
		return apierr.New(apierr.M2MClientInvalidClientSecret)
	case n < minChosenSecret:
		return apierr.New(apierr.InsecureM2MClientSecret)
	}
	// pwscore reads only the secret's beginning, as for passwords: a
	// longer secret that is weak there is refused.
	known := append([]string{c.ClientID, c.ClientName}, strings.FieldsFunc(c.ClientID+" "+c.ClientName, notAlphanumeric)...)
	// The part before the shown end is what a guesser must find, but
	// zxcvbn scores a pattern cut short (a name repeated, less its last
	// four characters) above the whole: both must pass.
	for _, s := range []string{secret, hiddenPart(secret)} {
		if pwscore.Score(s, known).Guesses < minSecretGuesses {
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
