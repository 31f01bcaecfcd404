package session

import (
	"crypto/sha256"
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
type verifiedJWTs struct {
	mu    sync.Mutex
	items map[[32]byte]verifiedJWT
}

type verifiedJWT struct {
	projectID, sessionID string
	issued, notBefore    time.Time
	expires              time.Time
}

const verifiedLimit = 50000

// keyOf hashes a token through a pooled buffer: a JWT is a kilobyte or
// two, and the check runs on every request.
func keyOf(token string) [32]byte {
	b := keyBufs.Get().(*[]byte)
	*b = append((*b)[:0], token...)
	k := sha256.Sum256(*b)
	if cap(*b) <= 16<<10 {
		keyBufs.Put(b)
	}
	return k
}

var keyBufs = sync.Pool{New: func() any { return new([]byte) }}

func (v *verifiedJWTs) get(projectID, token string, now time.Time) (string, bool) {
	k := keyOf(token)
	v.mu.Lock()
	e, ok := v.items[k]
	v.mu.Unlock()
	const leeway = 5 * time.Second
	if !ok || e.projectID != projectID || now.Add(leeway).Before(e.notBefore) || now.Add(leeway).Before(e.issued) ||
		!now.Add(-leeway).Before(e.expires) {
		return "", false
	}
	return e.sessionID, true
}

func (v *verifiedJWTs) put(token string, e verifiedJWT) {
	k := keyOf(token)
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.items == nil || len(v.items) >= verifiedLimit {
		v.items = map[[32]byte]verifiedJWT{}
	}
	v.items[k] = e
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
