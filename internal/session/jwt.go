package session

import (
	"context"
	"crypto/rsa"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/compactjws"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/signslot"
)

// Keys supplies a project's signing keys, newest first.
type Keys interface {
	SigningKeys(ctx context.Context, projectID string) ([]project.SigningKey, error)
}

// keyCache keeps parsed keys per project: parsing PEM on every request
// would dominate the hot path. The change feed drops a project's keys when
// its signing_keys change (a `keys rotate` from the CLI or another replica
// reaches this process's JWKS within a second); the minute's expiry is only
// a backstop. An entry holds every published key, a rotated one still
// pending included, and the signing key is picked from it at each use
// (project.Signer): so it switches at the new key's activation with no
// event and without the entry expiring.
type keyCache struct {
	src  Keys
	feed *changefeed.Feed
	mu   sync.Mutex
	// gen moves (under mu) whenever entries are dropped. A load records it
	// before reading the database and stores its keys only if it has not
	// moved, so keys read before a retirement's event went by (the retired
	// key among them) are not kept for the minute after it.
	gen   uint64
	items map[string]keyEntry
	// certs are the keys' certificates the JWKS publishes (jwks_wire.go).
	certs certCache
}

func (c *keyCache) invalidate(ev changefeed.Event) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case ev.All():
		c.gen++
		clear(c.items)
	case ev.Scope == changefeed.Project:
		c.gen++
		delete(c.items, ev.Key)
	}
}

type keyEntry struct {
	keys []project.SigningKey
	exp  time.Time
}

func (c *keyCache) get(ctx context.Context, projectID string) ([]project.SigningKey, error) {
	now := time.Now()
	usable, err := c.feed.Usable(ctx)
	if err != nil {
		return nil, fmt.Errorf("session: signing keys: %w", err)
	}
	c.mu.Lock()
	e, ok := c.items[projectID]
	gen := c.gen
	c.mu.Unlock()
	if usable && ok && now.Before(e.exp) {
		return e.keys, nil
	}
	keys, err := c.src.SigningKeys(ctx, projectID)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	// An invalidation since gen was read may be a change this load did not
	// see: its keys still serve this caller (whose request raced the
	// change) but are not kept for the next.
	if c.gen == gen {
		c.items[projectID] = keyEntry{keys: keys, exp: now.Add(time.Minute)}
	}
	c.mu.Unlock()
	return keys, nil
}

// Issuer returns the JWT issuer for a project. The SDKs accept
// "stytch.com/{project_id}" regardless of the base URL they were pointed
// at, so it is the one value that verifies everywhere.
func Issuer(projectID string) string { return "stytch.com/" + projectID }

type sessionClaim struct {
	ID                    string         `json:"id"`
	StartedAt             time.Time      `json:"started_at"`
	LastAccessedAt        time.Time      `json:"last_accessed_at"`
	ExpiresAt             time.Time      `json:"expires_at"`
	Attributes            map[string]any `json:"attributes"`
	AuthenticationFactors []Factor       `json:"authentication_factors"`
	Roles                 []string       `json:"roles"`
}

type orgClaim struct {
	OrganizationID string `json:"organization_id"`
	Slug           string `json:"slug"`
}

type claims struct {
	jwt.Claims
	Session      sessionClaim `json:"https://stytch.com/session"`
	Organization orgClaim     `json:"https://stytch.com/organization"`
}

// withCustom is a session JWT's claims with the session's custom claims
// as further top-level claims. MergeClaims keeps the registered names and
// https://stytch.com/ out of them, so no key is written twice. custom is
// the session's stored claims text (MemberSession.claimsText, a JSON
// object encoded once when the claims were set), so signing does not
// encode them again.
type withCustom struct {
	claims claims
	custom string
}

// MarshalJSON writes the claims object with the custom claims appended.
func (w withCustom) MarshalJSON() ([]byte, error) {
	base, err := json.Marshal(w.claims)
	if err != nil {
		return nil, err
	}
	out := make([]byte, 0, len(base)+len(w.custom))
	out = append(out, base[:len(base)-1]...)
	out = append(out, ',')
	return append(out, w.custom[1:]...), nil
}

func (s *Service) sign(ctx context.Context, projectID string, ms *MemberSession, now time.Time) (string, error) {
	k, err := s.signingKey(ctx, projectID, now)
	if err != nil {
		return "", err
	}
	return signWith(k, projectID, ms, now)
}

// signingKey is the project's signing key at now: a rotated key is
// published (and verified by every replica) before it signs.
func (s *Service) signingKey(ctx context.Context, projectID string, now time.Time) (project.SigningKey, error) {
	keys, err := s.keys.get(ctx, projectID)
	if err != nil {
		return project.SigningKey{}, fmt.Errorf("session: keys: %w", err)
	}
	return project.Signer(keys, now), nil
}

// signWith signs ms's JWT with k: CPU work only, which cannot fail for a
// key the project holds.
func signWith(k project.SigningKey, projectID string, ms *MemberSession, now time.Time) (string, error) {
	signer, err := signslot.RS256(k)
	if err != nil {
		return "", fmt.Errorf("session: signer: %w", err)
	}
	exp := now.Add(JWTLifetime)
	if ms.ExpiresAt.Before(exp) {
		exp = ms.ExpiresAt
	}
	c := claims{
		Claims: jwt.Claims{Subject: ms.MemberID, Issuer: Issuer(projectID), Audience: jwt.Audience{projectID},
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(exp)},
		Session: sessionClaim{ID: ms.MemberSessionID, StartedAt: ms.StartedAt, LastAccessedAt: ms.LastAccessedAt,
			ExpiresAt: ms.ExpiresAt, Attributes: map[string]any{"ip_address": ms.IPAddress, "user_agent": ms.UserAgent},
			AuthenticationFactors: ms.AuthenticationFactors, Roles: ms.Roles},
		Organization: orgClaim{OrganizationID: ms.OrganizationID, Slug: ms.OrganizationSlug},
	}
	var payload any = c
	if ms.claimsText != "" && ms.claimsText != noClaims {
		payload = withCustom{claims: c, custom: ms.claimsText}
	}
	out, err := signslot.Sign(signer, payload)
	if err != nil {
		return "", fmt.Errorf("session: sign: %w", err)
	}
	return out, nil
}

// errBadJWT covers every way a presented JWT can fail verification.
var errBadJWT = errors.New("session: invalid jwt")

// verify checks a session JWT's signature against the project's keys and
// its registered claims, and returns the session id it names. Its exp is
// not checked: as the API family documents (the SDKs' sessions.authenticate),
// a JWT past its exp still names its session, and the check answers with
// a new JWT while the session is live. The session lookup every caller
// makes applies the session's own expiry and revocation, which is what a
// JWT's exp only approximates. nbf and iat are checked with a few seconds
// of clock skew.
func (s *Service) verify(ctx context.Context, projectID, token string, now time.Time) (string, error) {
	return s.verifyKnown(ctx, projectID, token, now, knownJWT{})
}

// verifyKnown is verify with what the verified cache held for token when
// its request was read (see verifiedJWTs.get).
func (s *Service) verifyKnown(ctx context.Context, projectID, token string, now time.Time, known knownJWT) (string, error) {
	if usable, err := s.feed.Usable(ctx); err != nil {
		return "", fmt.Errorf("session: verify jwt: %w", err)
	} else if usable {
		if id, ok := s.verified.get(projectID, token, now, known); ok {
			return id, nil
		}
	}
	// The verified cache is keyed by the token's text: only its canonical
	// spelling is taken (see compactjws), so one JWT is one entry, not one
	// per respelling a caller cares to send. Checked on a miss only: an
	// entry was checked before it was put.
	if compactjws.Check(token) != nil {
		return "", fmt.Errorf("%w: parse", errBadJWT)
	}
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil || len(parsed.Headers) != 1 {
		return "", fmt.Errorf("%w: parse", errBadJWT)
	}
	// Read before the keys, so a verification with keys a retirement's
	// event has since dropped is not remembered (see verifiedJWTs.put).
	gen := s.verified.generation()
	keys, err := s.keys.get(ctx, projectID)
	if err != nil {
		return "", fmt.Errorf("session: keys: %w", err)
	}
	var pub *rsa.PublicKey
	for _, k := range keys {
		if k.KID == parsed.Headers[0].KeyID {
			pub = &k.Private.PublicKey
		}
	}
	if pub == nil {
		return "", fmt.Errorf("%w: unknown kid", errBadJWT)
	}
	var c claims
	if err := parsed.Claims(pub, &c); err != nil {
		return "", fmt.Errorf("%w: signature", errBadJWT)
	}
	// Everything but exp (see verify).
	registered := c.Claims
	registered.Expiry = nil
	if err := registered.ValidateWithLeeway(jwt.Expected{Issuer: Issuer(projectID), AnyAudience: jwt.Audience{projectID}, Time: now}, 5*time.Second); err != nil {
		return "", fmt.Errorf("%w: %v", errBadJWT, err)
	}
	if c.Session.ID != "" {
		e := verifiedJWT{projectID: projectID, sessionID: c.Session.ID, sessionEnds: c.Session.ExpiresAt}
		if c.NotBefore != nil {
			e.notBefore = c.NotBefore.Time()
		}
		if c.IssuedAt != nil {
			e.issued = c.IssuedAt.Time()
		}
		s.verified.put(gen, token, e, now)
	}
	return c.Session.ID, nil
}

// jwtCache remembers the last JWT issued per session so the hot path does
// not re-sign on every call while the current JWT is still fresh.
//
// A cached JWT is also only as good as its signing key: when a project's
// signing_keys change (`keys rotate`, `keys retire` after a leak), its
// entries are dropped, so the next check signs with the current key. That
// costs the hot path nothing; comparing each entry's kid with the current
// key instead would add the key cache's lock and lookup to every check.
type jwtCache struct {
	mu sync.Mutex
	// gen moves (under mu) when entries are dropped for a key change. A
	// check records it (get) before reading the keys it signs with and
	// stores its JWT only if it has not moved, so a JWT signed with a key
	// retired meanwhile is not kept for the next minute.
	gen   uint64
	items map[string]cachedJWT
}

type cachedJWT struct {
	token     string
	projectID string // whose keys signed it
	issuedAt  time.Time
	claims    jwtClaims // of the session it was signed for
}

// signingKeysTable is the watched table of project.SigningKey rows (see
// app.coreWatches, which names it the same way). Other project-scope
// changes (settings, origins, a member's password) leave every JWT as it
// would be signed now, and dropping a whole project's JWTs for them would
// cost an RSA signature per session.
var signingKeysTable = project.SigningKeyColumn.Table

// jwtClaims summarises the session fields a JWT carries that can change
// while the session lives (roles, the organization's slug, times), so a
// cached JWT is reused only while it still says what a new one would.
type jwtClaims struct {
	roles              []string
	slug               string
	lastAccess, expiry int64
	factors            int
	custom             string // the custom claims as stored
}

func claimsOf(ms *MemberSession) jwtClaims {
	return jwtClaims{roles: ms.Roles, slug: ms.OrganizationSlug, lastAccess: ms.LastAccessedAt.UnixMilli(),
		expiry: ms.ExpiresAt.UnixMilli(), factors: len(ms.AuthenticationFactors), custom: ms.claimsText}
}

func (a jwtClaims) equal(b jwtClaims) bool {
	return a.slug == b.slug && a.lastAccess == b.lastAccess && a.expiry == b.expiry && a.factors == b.factors &&
		a.custom == b.custom && slices.Equal(a.roles, b.roles)
}

func (c *jwtCache) invalidate(ev changefeed.Event) {
	switch {
	case ev.All():
		c.mu.Lock()
		c.gen++
		clear(c.items)
		c.mu.Unlock()
	case ev.Scope == changefeed.Session:
		c.drop(ev.Key)
	case ev.Scope == changefeed.Project && ev.Table == signingKeysTable:
		// Key changes are rare (an operator's command), so a scan of the
		// map is cheaper than keeping a per-project index on every put.
		c.mu.Lock()
		c.gen++
		for id, e := range c.items {
			if e.projectID == ev.Key {
				delete(c.items, id)
			}
		}
		c.mu.Unlock()
	}
}

// freshFor is how long a cached JWT is reused: callers always receive a JWT
// with at least JWTLifetime-freshFor of life left.
const freshFor = time.Minute

// get returns ms's cached JWT, and on a miss the generation to pass to
// put (read under the same lock, so a hit costs nothing more).
func (c *jwtCache) get(ms *MemberSession, now time.Time) (string, uint64, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.items[ms.MemberSessionID]
	if !ok || now.Sub(e.issuedAt) >= freshFor || now.Before(e.issuedAt) || !e.claims.equal(claimsOf(ms)) {
		return "", c.gen, false
	}
	return e.token, c.gen, true
}

// generation is what get returns on a miss, for a JWT signed elsewhere
// (a login); read it before reading the signing key.
func (c *jwtCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// put remembers token, signed for ms of project projectID with keys read
// after gen was: a key change since then leaves it unremembered.
func (c *jwtCache) put(gen uint64, projectID string, ms *MemberSession, token string, now time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.items) >= 100000 {
		for k, v := range c.items {
			if now.Sub(v.issuedAt) >= freshFor {
				delete(c.items, k)
			}
		}
		if len(c.items) >= 100000 {
			clear(c.items)
		}
	}
	// The roles are copied: the slice is the caller's.
	cl := claimsOf(ms)
	cl.roles = slices.Clone(cl.roles)
	c.items[ms.MemberSessionID] = cachedJWT{token: token, projectID: projectID, issuedAt: now, claims: cl}
}

func (c *jwtCache) drop(sessionID string) {
	c.mu.Lock()
	delete(c.items, sessionID)
	c.mu.Unlock()
}
