// Package clientsecret issues, stores and checks the secrets of OAuth
// clients (connected apps and machine-to-machine clients), including the
// three-step rotation both client kinds share: start (a second secret
// becomes valid beside the first), complete (the second replaces the
// first), cancel (the second is dropped).
//
// Secrets are 256-bit random strings shown once; only their SHA-256 and
// last four characters are kept, and checks compare hashes in constant time.
package clientsecret

import (
	"errors"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/ids"
)

// Pair is a client's stored secret state: the current secret and, during a
// rotation, the next one. Empty hashes mean "none" (public clients have no
// secret at all).
type Pair struct {
	Hash         string
	LastFour     string
	NextHash     string
	NextLastFour string
}

// ErrNoRotation is returned when completing or cancelling a rotation that
// was never started.
var ErrNoRotation = errors.New("clientsecret: no rotation in progress")

// ErrRotationStarted is returned when starting a rotation twice.
var ErrRotationStarted = errors.New("clientsecret: rotation already started")

// New returns a fresh secret and the pair that stores it.
func New() (string, Pair) {
	s := ids.Token()
	return s, Pair{Hash: ids.Hash(s), LastFour: lastFour(s)}
}

// FromPlain stores a caller-chosen secret (M2M clients may bring their own).
func FromPlain(s string) Pair { return Pair{Hash: ids.Hash(s), LastFour: lastFour(s)} }

// lastFour is the secret's last four characters, which every answer about
// the client shows (client_secret_last_four). Characters, not bytes: a
// chosen secret may end in a multi-byte character, and four bytes cut
// through it would be invalid UTF-8 in the answer.
func lastFour(s string) string {
	end := len(s)
	for range 4 {
		if end == 0 {
			break
		}
		_, size := utf8.DecodeLastRuneInString(s[:end])
		end -= size
	}
	return s[end:]
}

// Matches reports whether secret is the current or, during a rotation, the
// next secret. Both hashes are always compared so timing reveals nothing.
func (p Pair) Matches(secret string) bool {
	if secret == "" || p.Hash == "" {
		return false
	}
	h := ids.Hash(secret)
	cur := ids.Equal(h, p.Hash)
	next := p.NextHash != "" && ids.Equal(h, p.NextHash)
	return cur || next
}

// Start begins a rotation and returns the next secret (shown once).
func (p *Pair) Start() (string, error) {
	if p.NextHash != "" {
		return "", ErrRotationStarted
	}
	s := ids.Token()
	p.NextHash, p.NextLastFour = ids.Hash(s), lastFour(s)
	return s, nil
}

// Complete makes the next secret the only one.
func (p *Pair) Complete() error {
	if p.NextHash == "" {
		return ErrNoRotation
	}
	p.Hash, p.LastFour, p.NextHash, p.NextLastFour = p.NextHash, p.NextLastFour, "", ""
	return nil
}

// Cancel drops the next secret.
func (p *Pair) Cancel() error {
	if p.NextHash == "" {
		return ErrNoRotation
	}
	p.NextHash, p.NextLastFour = "", ""
	return nil
}

// Rotation steps, as the API's three routes name them.
const (
	StepStart    = "start"
	StepComplete = "complete"
	StepCancel   = "cancel"
)

// Refusals are the public errors a client kind answers misordered
// rotation steps with: each kind has its own pair of types in the API
// family (m2m_client_already_rotating_secret,
// connected_app_not_rotating_secret ...).
type Refusals struct {
	AlreadyRotating apierr.Type
	NotRotating     apierr.Type
}

// Rotate runs one rotation step and returns the next secret on start.
// Misordered steps are refused with the caller's types (refuse).
func (p *Pair) Rotate(step string, refuse Refusals) (string, error) {
	var next string
	var err error
	switch step {
	case StepStart:
		next, err = p.Start()
	case StepComplete:
		err = p.Complete()
	default:
		err = p.Cancel()
	}
	switch {
	case errors.Is(err, ErrRotationStarted):
		return "", apierr.Wrap(refuse.AlreadyRotating, err)
	case errors.Is(err, ErrNoRotation):
		return "", apierr.Wrap(refuse.NotRotating, err)
	}
	return next, err
}
