package idp

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/signslot"
	"github.com/latchkey/latchkey/internal/store"
)

// Token kinds in idp_tokens.
const (
	kindAccess  = "access"
	kindRefresh = "refresh"
)

// grantState is what a token family carries from the authorization: who,
// for which client, which scopes.
type grantState struct {
	ProjectID      string
	ClientID       string
	MemberID       string
	OrganizationID string
	Scopes         []string
	AuthTime       time.Time // zero when unknown (authTimeOf), stored as 0
	FamilyID       string
	CodeHash       string
	// Email is, on a code exchange, the member's address when the code
	// was granted (codeData.Email); "" elsewhere.
	Email string
	// SID is the sid of the session the family was authorized in
	// (sessionSID), "" without one: the ID tokens of the family, its
	// refreshes' included, carry it.
	SID string
}

func (g *grantState) has(scope string) bool {
	for _, s := range g.Scopes {
		if s == scope {
			return true
		}
	}
	return false
}

// tokenRow is a stored token.
type tokenRow struct {
	grantState
	Kind      string
	ExpiresAt time.Time
	Used      bool
	Revoked   bool
}

func (p *Provider) insertToken(ctx context.Context, q store.Querier, hash, kind string, g *grantState, exp time.Time) error {
	scopes, _ := json.Marshal(g.Scopes)
	_, err := q.ExecContext(ctx, `INSERT INTO idp_tokens (token_hash, kind, family_id, project_id, client_id, member_id,
		organization_id, scopes, code_hash, auth_time, sid, created_at, expires_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$13)`,
		hash, kind, g.FamilyID, g.ProjectID, g.ClientID, g.MemberID, g.OrganizationID, string(scopes), g.CodeHash,
		authTimeMillis(g.AuthTime), g.SID, store.Millis(p.clock.Now()), store.Millis(exp))
	if err != nil {
		return fmt.Errorf("idp: store %s token: %w", kind, err)
	}
	return nil
}

func (p *Provider) loadToken(ctx context.Context, q store.Querier, hash string) (*tokenRow, error) {
	var t tokenRow
	var scopes string
	var authTime, exp int64
	var used, revoked *int64
	err := q.QueryRowContext(ctx, `SELECT kind, family_id, project_id, client_id, member_id, organization_id, scopes,
		code_hash, auth_time, sid, expires_at, used_at, revoked_at FROM idp_tokens WHERE token_hash = $1`, hash).
		Scan(&t.Kind, &t.FamilyID, &t.ProjectID, &t.ClientID, &t.MemberID, &t.OrganizationID, &scopes, &t.CodeHash,
			&authTime, &t.SID, &exp, &used, &revoked)
	if err != nil {
		return nil, fmt.Errorf("idp: load token: %w", store.MapError(err))
	}
	if err := json.Unmarshal([]byte(scopes), &t.Scopes); err != nil {
		return nil, fmt.Errorf("idp: token scopes: %w", err)
	}
	t.ExpiresAt, t.Used, t.Revoked = store.Time(exp), used != nil, revoked != nil
	if authTime != 0 {
		t.AuthTime = store.Time(authTime)
	}
	return &t, nil
}

// authTimeMillis is a grant's auth_time as stored: 0 when unknown.
func authTimeMillis(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return store.Millis(t)
}

// unixAuthTime is an auth_time as a code keeps it: seconds, 0 when unknown.
func unixAuthTime(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.Unix()
}

// authTimeOfUnix reads a code's auth_time (unixAuthTime) back.
func authTimeOfUnix(s int64) time.Time {
	if s == 0 {
		return time.Time{}
	}
	return unixTime(s)
}

// active reports whether a stored token may still be used.
func (t *tokenRow) active(now time.Time) bool { return !t.Revoked && now.Before(t.ExpiresAt) }

// revokeFamily revokes every token of a family (reuse detection, refresh
// token revocation).
func (p *Provider) revokeFamily(ctx context.Context, q store.Querier, familyID string) error {
	_, err := q.ExecContext(ctx, `UPDATE idp_tokens SET revoked_at = $1 WHERE family_id = $2 AND revoked_at IS NULL`,
		store.Millis(p.clock.Now()), familyID)
	if err != nil {
		return fmt.Errorf("idp: revoke family: %w", err)
	}
	return nil
}

// revokeCode revokes the tokens an authorization code produced, when the
// code is presented again (RFC 6749 4.1.2), within the code's project and
// only when the client presenting it is the one it was issued to (the
// tokens' client). Any public client of the project can be named without
// a credential: a spent code presented under another client's name proves
// nothing about the code's own client, and must not end its member's
// tokens.
func (p *Provider) revokeCode(ctx context.Context, projectID, clientID, code string) error {
	_, err := p.db.ExecContext(ctx, `UPDATE idp_tokens SET revoked_at = $1
		WHERE code_hash = $2 AND project_id = $3 AND client_id = $4 AND revoked_at IS NULL`,
		store.Millis(p.clock.Now()), ids.Hash(code), projectID, clientID)
	if err != nil {
		return fmt.Errorf("idp: revoke code tokens: %w", err)
	}
	return nil
}

// RevokeMemberApp ends every token of a member's grant of an app (the
// connected-app revoke routes call it with the consent's deletion).
func (p *Provider) RevokeMemberApp(ctx context.Context, q store.Querier, memberID, clientID string) error {
	_, err := q.ExecContext(ctx, `UPDATE idp_tokens SET revoked_at = $1 WHERE member_id = $2 AND client_id = $3 AND revoked_at IS NULL`,
		store.Millis(p.clock.Now()), memberID, clientID)
	if err != nil {
		return fmt.Errorf("idp: revoke member tokens: %w", err)
	}
	return nil
}

// errAddressChanged reports that a member's address is no longer the one
// an authorization was granted under.
var errAddressChanged = errors.New("idp: the member's email address changed")

// holdMember holds the member's row inside q until q ends
// (organization.LockMember), and reports errAddressChanged when email is
// given and is no longer the member's address. Grants and tokens are
// written under it: an address change, which deletes the member's grants
// and revokes their tokens (ReleaseAddress), either waits for them and
// ends them too, or is waited for and seen here. Without it, a grant or
// token written while the change is in flight survives it.
func (p *Provider) holdMember(ctx context.Context, q store.Querier, projectID, memberID, email string) error {
	now, _, err := p.orgs.LockMember(ctx, q, projectID, memberID)
	if err != nil {
		return err
	}
	if email != "" && now != email {
		return errAddressChanged
	}
	return nil
}

// errConsentRevoked refuses a code or a refresh token whose consent is no
// longer on record, or no longer covers the family's scopes: the member
// (or an admin) revoked the app since it was issued, perhaps authorizing
// it again for less. One value, so that refresh can tell it apart and end
// the family as the revoke would have.
var errConsentRevoked = invalidGrant("The member revoked this connected app's access since the authorization.")

// holdConsent reads the member's consent for the client in q, and
// reports errConsentRevoked when none is on record. Whether it covers the
// family's scopes is asked after they were narrowed (scopesNow):
// first-party apps, which never ask, record consent at submit too, so the
// rule is the same for them.
//
// It must run after holdMember in the same transaction, and before the
// tokens are written: that is what makes a concurrent revoke end them.
// The revoke locks the member's row for update before it deletes the
// consent and revokes the tokens (connectedapps revoke), and holdMember's
// share lock conflicts with that lock. On PostgreSQL READ COMMITTED,
// either the revoke holds the row first, and the consent read here, a
// statement started after the revoke committed, finds no consent; or the
// issue holds it first, and the revoke waits for its commit, and its
// UPDATE, a later statement, sees the new tokens and revokes them.
// Without the ordering the revoke's UPDATE would not see the rows an
// open transaction inserted, and they would outlive it with no consent
// left to revoke them by. SQLite has one writer: the two never overlap.
func (p *Provider) holdConsent(ctx context.Context, q store.Querier, g *grantState) (*connectedapps.Grant, error) {
	c, err := p.apps.GrantIn(ctx, q, g.MemberID, g.ClientID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errConsentRevoked
	}
	if err != nil {
		return nil, fmt.Errorf("idp: consent: %w", err)
	}
	return c, nil
}

// scopesNow is the scope a family's grant g carries when it is used now:
// g's scopes narrowed to what the member m and the app may still hold
// (heldScopes), which the consent on record, read in q (holdConsent),
// must still cover, or errConsentRevoked. issue applies it at every issue
// (a refresh narrows the family to it, or ends the family); introspection
// reports it (usableNow), so what a token is said to carry is what using
// it would get, not what it was issued before a role, the app's
// full_access or a policy scope went.
//
// The consent is read before the policy: a policy change removing a
// scope also removes it from every consent (connectedapps.DropScopes, in
// the same transaction), so a consent read without it comes with a
// policy read, later, without it too, and the scope is narrowed away
// rather than taken for a revoke that would end the family.
func (p *Provider) scopesNow(ctx context.Context, q store.Querier, g *grantState, m *organization.Member,
	org *organization.Organization, app *connectedapps.App) ([]string, error) {
	consent, err := p.holdConsent(ctx, q, g)
	if err != nil {
		return nil, err
	}
	pol, err := p.policy(ctx, g.ProjectID)
	if err != nil {
		return nil, err
	}
	held := heldScopes(pol, m.RoleIDs(), org, app, g.Scopes)
	if !consent.Covers(held) {
		return nil, errConsentRevoked
	}
	return held, nil
}

// spend marks the stored token hash used inside q, holding its member's
// row first (holdMember). false: the token was used, revoked or expired
// meanwhile; revoked_at and expires_at are read again here, after t was
// read, so a token an address change revoked while the caller checked
// it, or one that expired while the member's row was waited for, spends
// nothing.
//
// The order matters on PostgreSQL: an address change updates the member's
// row and then revokes the member's tokens (ReleaseAddress). A spend that
// locked the token's row first and the member's after (in issue, or
// session.Complete) would deadlock with a change landing between the two;
// PostgreSQL would break it after deadlock_timeout and store.Tx run one
// side again. Held first, the member's row makes one of them wait for the
// other instead. A missing member is left to the caller's member read.
func (p *Provider) spend(ctx context.Context, q store.Querier, t *tokenRow, hash string) (bool, error) {
	if err := p.holdMember(ctx, q, t.ProjectID, t.MemberID, ""); err != nil && !errors.Is(err, store.ErrNotFound) {
		return false, err
	}
	res, err := q.ExecContext(ctx, `UPDATE idp_tokens SET used_at = $1 WHERE token_hash = $2 AND used_at IS NULL
		AND revoked_at IS NULL AND expires_at > $1`, store.Millis(p.clock.Now()), hash)
	if err != nil {
		return false, fmt.Errorf("idp: spend %s token: %w", t.Kind, err)
	}
	n, err := res.RowsAffected()
	if err != nil {
		return false, fmt.Errorf("idp: spend %s token: %w", t.Kind, err)
	}
	return n == 1, nil
}

// revokeMember revokes every token of a member and deletes their consent,
// in one transaction.
func (p *Provider) revokeMember(ctx context.Context, projectID, memberID string) error {
	return p.db.Tx(ctx, func(q store.Querier) error { return p.revokeMemberIn(ctx, q, projectID, memberID) })
}

// revokeMemberIn is revokeMember inside the caller's transaction q.
func (p *Provider) revokeMemberIn(ctx context.Context, q store.Querier, projectID, memberID string) error {
	if _, err := q.ExecContext(ctx, `UPDATE idp_tokens SET revoked_at = $1 WHERE project_id = $2 AND member_id = $3
		AND revoked_at IS NULL`, store.Millis(p.clock.Now()), projectID, memberID); err != nil {
		return fmt.Errorf("idp: revoke member tokens: %w", err)
	}
	if _, err := q.ExecContext(ctx, `DELETE FROM idp_grants WHERE member_id = $1
		AND client_id IN (SELECT client_id FROM idp_connected_apps WHERE project_id = $2)`, memberID, projectID); err != nil {
		return fmt.Errorf("idp: delete member consent: %w", err)
	}
	return nil
}

// signer signs with the project's signing key (project.Signer): a
// rotated key only once relying parties have had the time to find it in
// the JWKS, which lists every published key.
func (p *Provider) signer(ctx context.Context, projectID string) (jose.Signer, error) {
	keys, err := p.projects.SigningKeys(ctx, projectID)
	if err != nil {
		return nil, fmt.Errorf("idp: keys: %w", err)
	}
	k := project.Signer(keys, p.clock.Now())
	s, err := signslot.RS256(k)
	if err != nil {
		return nil, fmt.Errorf("idp: signer: %w", err)
	}
	return s, nil
}

// orgClaim is the organization claim of access tokens (api-reference 5.4).
type orgClaim struct {
	OrganizationID string `json:"organization_id"`
	Slug           string `json:"slug"`
}

type accessClaims struct {
	jwt.Claims
	Scope        string    `json:"scope"`
	ClientID     string    `json:"client_id"`
	Organization *orgClaim `json:"https://stytch.com/organization,omitempty"`
}

// issued is a token response (RFC 6749 5.1).
type issued struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	Scope        string `json:"scope"`
	RefreshToken string `json:"refresh_token,omitempty"`
	IDToken      string `json:"id_token,omitempty"`
}

// issue mints an access token, a refresh token under offline_access, and
// an ID token under openid (with nonce on the code exchange only), and
// stores the token rows in q. g.Scopes are the family's scopes, narrowed
// to what the member and the app may still hold (heldScopes), which the
// refresh token carries; narrow, when not nil, is a refresh's scope
// parameter (a subset of the family's), which narrows only the access
// token, the ID token and the answer's scope. Nothing is issued once the
// organization no longer allows the app, the member is no longer active or
// at the granted address, or their consent is gone or no longer covers
// the family (scopesNow).
func (p *Provider) issue(ctx context.Context, q store.Querier, app *connectedapps.App, g *grantState, nonce string, narrow []string) (*issued, error) {
	now := p.clock.Now()
	org, err := p.orgs.GetIn(ctx, q, g.ProjectID, g.OrganizationID)
	if err != nil {
		return nil, fmt.Errorf("idp: organization: %w", err)
	}
	// The organization's connected-app policy was met at authorization;
	// it is applied again at every issue so that an organization that
	// stops allowing the app also stops its refreshes.
	if err := connectedapps.AllowedIn(org, app); err != nil {
		return nil, invalidGrant("The organization no longer allows this connected app.")
	}
	if err := p.holdMember(ctx, q, g.ProjectID, g.MemberID, g.Email); errors.Is(err, errAddressChanged) {
		return nil, invalidGrant("The member's email address changed since the authorization.")
	} else if err != nil && !errors.Is(err, store.ErrNotFound) {
		return nil, err
	}
	m, err := p.orgs.Member(ctx, q, g.ProjectID, g.MemberID)
	if err != nil || m.Status != organization.StatusActive {
		return nil, invalidGrant("The member is no longer active.")
	}
	held, err := p.scopesNow(ctx, q, g, m, org, app)
	if err != nil {
		return nil, err
	}
	g.Scopes = held
	scoped := *g // the access token's grant
	if narrow != nil {
		scoped.Scopes = slices.DeleteFunc(slices.Clone(g.Scopes), func(s string) bool { return !slices.Contains(narrow, s) })
	}
	signer, err := p.signer(ctx, g.ProjectID)
	if err != nil {
		return nil, err
	}
	ttl := time.Duration(app.AccessTokenExpiryMinutes) * time.Minute
	jti := ids.Token()
	aud := jwt.Audience{g.ProjectID}
	if app.AccessTokenCustomAudience != "" {
		aud = append(aud, app.AccessTokenCustomAudience)
	}
	if err := p.insertToken(ctx, q, ids.Hash(jti), kindAccess, &scoped, now.Add(ttl)); err != nil {
		return nil, err
	}
	out := &issued{TokenType: "Bearer", ExpiresIn: int(ttl.Seconds()), Scope: strings.Join(scoped.Scopes, " ")}
	if g.has(ScopeOfflineAccess) {
		out.RefreshToken = ids.Token()
		if err := p.insertToken(ctx, q, ids.Hash(out.RefreshToken), kindRefresh, g, now.Add(refreshTokenTTL)); err != nil {
			return nil, err
		}
	}
	access := accessClaims{
		Claims: jwt.Claims{Issuer: AccessTokenIssuer(g.ProjectID), Subject: g.MemberID, Audience: aud, ID: jti,
			IssuedAt: jwt.NewNumericDate(now), NotBefore: jwt.NewNumericDate(now), Expiry: jwt.NewNumericDate(now.Add(ttl))},
		Scope: strings.Join(scoped.Scopes, " "), ClientID: app.ClientID,
		Organization: &orgClaim{OrganizationID: org.OrganizationID, Slug: org.OrganizationSlug},
	}
	var id map[string]any
	if scoped.has(ScopeOpenID) {
		id = memberClaims(m, org, scoped.Scopes)
		id["iss"], id["sub"], id["aud"], id["azp"] = p.Issuer(g.ProjectID), g.MemberID, app.ClientID, app.ClientID
		id["iat"], id["exp"] = now.Unix(), now.Add(idTokenTTL).Unix()
		if !g.AuthTime.IsZero() {
			id["auth_time"] = g.AuthTime.Unix()
		}
		if nonce != "" {
			id["nonce"] = nonce
		}
		if g.SID != "" {
			id["sid"] = g.SID
		}
	}
	// Everything signed is settled above, inside the transaction; the
	// signatures, the costliest step, are made once it has committed
	// (store.Finish), so they never hold SQLite's one writer.
	err = store.Finish(q, func() (err error) {
		if out.AccessToken, err = signslot.Sign(signer, access); err != nil {
			return fmt.Errorf("idp: sign access token: %w", err)
		}
		if id == nil {
			return nil
		}
		id["at_hash"] = atHash(out.AccessToken)
		if out.IDToken, err = signslot.Sign(signer, id); err != nil {
			return fmt.Errorf("idp: sign id token: %w", err)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sessionSID is the sid claim of the ID tokens authorized in a member
// session whose lineage is lineage ("" for none): the session's
// identifier at this provider (OIDC Front-Channel Logout 1.0 3), which
// logout/start compares with the current session's to tell whether an
// id_token_hint belongs to it (RP-Initiated Logout 1.0 2). It is derived
// from the lineage (session.MemberSession.Lineage), not the
// member_session_id, because a step-up (adding TOTP, an email code
// joining the held session) replaces the session's id while the member
// stays in the same provider session; a lineage is the id of the login
// it began with, so a session never stepped up keeps the sid it had
// before lineages were recorded. It is a hash of that id, not the id: it
// authenticates nothing either way, but the id is an argument of the
// session API, and relying parties, third-party ones included, have no
// use for it.
func sessionSID(lineage string) string {
	if lineage == "" {
		return ""
	}
	sum := sha256.Sum256([]byte("latchkey-idp-sid:" + lineage))
	return base64.RawURLEncoding.EncodeToString(sum[:])
}

// errNoToken is returned when a presented token is unknown.
var errNoToken = errors.New("idp: unknown token")
