// Package stepup decides whether a session may make a takeover-sensitive
// change: a new email address, a password set from the session, an MFA
// factor enrolled or removed, recovery codes shown or rotated. A stolen
// session token (or a computer left unlocked) must not be enough to take
// the account over for good, so such changes need an authentication
// factor completed in the last Window, as session/reset always did.
package stepup

import (
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
)

// Window is how recent a session's newest factor must be.
const Window = 5 * time.Minute

// Fresh reports whether any of the factors' times lies within Window
// before now.
func Fresh(now time.Time, factorTimes ...time.Time) bool {
	for _, t := range factorTimes {
		if now.Sub(t) <= Window {
			return true
		}
	}
	return false
}

// Require refuses with session_too_old unless Fresh.
func Require(now time.Time, factorTimes ...time.Time) error {
	if Fresh(now, factorTimes...) {
		return nil
	}
	return apierr.New(apierr.SessionTooOld)
}
