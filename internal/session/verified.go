package session

import (
	"strings"
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/changefeed"
)

// verifiedJWTs remembers session JWTs whose signature this process has
// checked: a backend presents the same JWT on every request for its five
// minutes, and an RSA verification per request costs several times the
// rest of the check. Only the signature is remembered: the time claims
// are checked on every use, the session behind the JWT is still looked up
// (revocation applies), and any change to a project's keys forgets the
// project's entries (a retired key stops verifying within a second).
//
// Entries are keyed by the whole token, so a hit is an exact match of
// every byte the signature covered; the map's own hashing of a kilobyte or
// two costs about a seventh of a SHA-256 over it.
type verifiedJWTs struct {
	mu    sync.Mutex
	items map[string]verifiedJWT
}

type verifiedJWT struct {
	token                string // the key, so intern can hand it out
	projectID, sessionID string
	issued, notBefore    time.Time
	expires              time.Time
}

// verifiedLimit bounds the tokens kept (about 2 KB each with their entry,
// so at most ~40 MB); past it the map starts over, and each token
// presented again costs one RSA verification (~50 µs) to come back.
const verifiedLimit = 20000

func (v *verifiedJWTs) get(projectID, token string, now time.Time) (string, bool) {
	v.mu.Lock()
	e, ok := v.items[token]
	v.mu.Unlock()
	const leeway = 5 * time.Second
	if !ok || e.projectID != projectID || now.Add(leeway).Before(e.notBefore) || now.Add(leeway).Before(e.issued) ||
		!now.Add(-leeway).Before(e.expires) {
		return "", false
	}
	return e.sessionID, true
}

// intern returns the remembered token equal to b, without copying b.
func (v *verifiedJWTs) intern(b []byte) (string, bool) {
	v.mu.Lock()
	e, ok := v.items[string(b)]
	v.mu.Unlock()
	return e.token, ok
}

// put remembers a verified token. The key is a copy: the caller's string
// may share memory with the request it came in.
func (v *verifiedJWTs) put(token string, e verifiedJWT) {
	token = strings.Clone(token)
	e.token = token
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.items == nil || len(v.items) >= verifiedLimit {
		v.items = map[string]verifiedJWT{}
	}
	v.items[token] = e
}

func (v *verifiedJWTs) invalidate(ev changefeed.Event) {
	if !ev.All() && ev.Scope != changefeed.Project {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	if ev.All() {
		v.items = nil
		return
	}
	for k, e := range v.items {
		if e.projectID == ev.Key {
			delete(v.items, k)
		}
	}
}
