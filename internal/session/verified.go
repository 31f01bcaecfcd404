package session

import (
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/latchkey/latchkey/internal/changefeed"
)

// verifiedJWTs remembers session JWTs whose signature this process has
// checked: a backend presents the same JWT on every request, and an RSA
// verification per request costs several times the rest of the check.
// Only the signature is remembered: nbf and iat are checked on every use,
// the session behind the JWT is still looked up (its own expiry and
// revocation apply), and any change to a project's keys forgets the
// project's entries (a retired key stops verifying within a second).
//
// The JWT's exp does not end an entry: as the API family documents, a JWT
// past its exp still authenticates while its session is live, and the
// answer carries a new one. An entry is used until the session expiry the
// JWT names (its https://stytch.com/session expires_at), after which the
// session has ended, unless it was extended since, and then each answer
// hands the client a JWT naming the new expiry; and for at most cacheTTL
// after it was verified, as every other cached entry: the backstop for a
// key change the feed could not see, after which the signature is checked
// with the keys as they are. Both are judged by the request's clock
// reading (the app's clock, as nbf and iat are), so the hot path reads no
// other. Past verifiedLimit the ended and stale entries are dropped first
// (see put).
//
// Entries are keyed by the whole token, so a hit is an exact match of
// every byte the signature covered; the map's own hashing of a kilobyte or
// two costs about a seventh of a SHA-256 over it.
type verifiedJWTs struct {
	mu    sync.Mutex
	items map[string]*verifiedJWT // entries are never changed once put
	// gen counts invalidations (bumped under mu), so that an entry found
	// while the request was read (intern) is known to be still in force
	// without looking the token up a second time.
	gen atomic.Uint64
}

// knownJWT is what intern found for a presented token (nil: nothing), and
// when. It is two words, since the request that carries it is allocated
// for every check, by token too.
type knownJWT struct {
	entry *verifiedJWT
	gen   uint64
}

type verifiedJWT struct {
	token                string // the key, so intern can hand it out
	projectID, sessionID string
	issued, notBefore    time.Time
	sessionEnds          time.Time // the session's expires_at as the JWT states it
	verified             time.Time // when the signature was checked (the app's clock)
}

// verifiedLimit bounds the tokens kept (about 2 KB each with their entry,
// so at most ~40 MB). Reaching it drops the entries get would refuse (an
// ended session, or verified over cacheTTL ago); if that frees less than
// a quarter the map starts over, and each token presented again costs one
// RSA verification (~50 µs) to come back.
const verifiedLimit = 20000

// usable reports whether the entry may stand for a verification at now:
// the session it names has not ended by its own account, and the
// signature was checked less than cacheTTL ago.
func (e *verifiedJWT) usable(now time.Time) bool {
	return now.Before(e.sessionEnds) && now.Sub(e.verified) < cacheTTL
}

// get returns the session id of token when its signature was verified
// within cacheTTL, its nbf and iat hold at now and the session it names
// has not ended by its own account (exp is not checked: see
// verifiedJWTs). known
// is what intern found for the same token while its request was read:
// when no invalidation came since, it stands for the lookup (the map's
// hashing and comparing of the kilobyte-long key a second time).
func (v *verifiedJWTs) get(projectID, token string, now time.Time, known knownJWT) (string, bool) {
	e := known.entry
	// The token compared is the request's own string, interned, so an
	// equal one is the same pointer and the comparison costs nothing; a
	// token decoded another way (a body the fast reader declined after
	// interning a value) is looked up as usual.
	if e == nil || e.token != token || v.gen.Load() != known.gen {
		v.mu.Lock()
		e = v.items[token]
		v.mu.Unlock()
	}
	const leeway = 5 * time.Second
	if e == nil || e.projectID != projectID || now.Add(leeway).Before(e.notBefore) || now.Add(leeway).Before(e.issued) ||
		!e.usable(now) {
		return "", false
	}
	return e.sessionID, true
}

// intern returns what is remembered for the token equal to b, without
// copying b; its entry's token is the remembered copy.
func (v *verifiedJWTs) intern(b []byte) knownJWT {
	v.mu.Lock()
	e := v.items[string(b)]
	gen := v.gen.Load()
	v.mu.Unlock()
	return knownJWT{entry: e, gen: gen}
}

// generation is the count of invalidations so far: read it before the
// keys a verification uses, and pass it to put.
func (v *verifiedJWTs) generation() uint64 { return v.gen.Load() }

// put remembers a token verified with keys read after gen was read
// (generation). An invalidation since then may have retired one of those
// keys, and the project's entries it dropped would come back with this
// one; so then it is not remembered (the hot cache's loaders follow the
// same rule). Nor is a token whose session has ended by now: get would
// never return it. now is when the signature was checked. The key is a
// copy: the caller's string may share memory with the request it came in.
func (v *verifiedJWTs) put(gen uint64, token string, e verifiedJWT, now time.Time) {
	if !compactJWT(token) || !now.Before(e.sessionEnds) {
		return
	}
	token = strings.Clone(token)
	e.token, e.verified = token, now
	v.mu.Lock()
	defer v.mu.Unlock()
	if v.gen.Load() != gen {
		return
	}
	if len(v.items) >= verifiedLimit {
		// Rare (once per fill), so a scan under the lock is cheaper than
		// keeping the entries in expiry order on every put.
		for k, old := range v.items {
			if !old.usable(now) {
				delete(v.items, k)
			}
		}
		if len(v.items) >= verifiedLimit*3/4 {
			v.items = nil
		}
	}
	if v.items == nil {
		v.items = map[string]*verifiedJWT{}
	}
	v.items[token] = &e
}

func (v *verifiedJWTs) invalidate(ev changefeed.Event) {
	if !ev.All() && ev.Scope != changefeed.Project {
		return
	}
	v.mu.Lock()
	defer v.mu.Unlock()
	v.gen.Add(1)
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

// compactJWT reports whether token is made of base64url characters and
// dots only, as every JWT this server signs is. Only such a token is
// remembered: the request reader takes a remembered token's bytes as
// checked (httpapi.Interner), and a verifier may accept others (Go's
// base64 skips line breaks).
func compactJWT(token string) bool {
	for i := 0; i < len(token); i++ {
		c := token[i]
		if !('a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '_' || c == '.') {
			return false
		}
	}
	return true
}
