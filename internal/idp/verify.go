package idp

import (
	"context"
	"crypto/rsa"
	"errors"
	"fmt"
	"time"

	"github.com/go-jose/go-jose/v4"
	"github.com/go-jose/go-jose/v4/jwt"

	"github.com/latchkey/latchkey/internal/compactjws"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/store"
)

// verifyAccess checks an access token (checkSigned), that its member is
// still active (memberActive), and that its organization still allows its
// app (appAllowed): what userinfo and the exchange for a session ask. A
// token refused by the policy alone is errAppNotAllowed, which is
// errNoToken.
func (p *Provider) verifyAccess(ctx context.Context, projectID, token string) (*accessClaims, *tokenRow, error) {
	c, row, err := p.checkSigned(ctx, projectID, token)
	if err != nil {
		return nil, nil, err
	}
	ok, err := p.memberActive(ctx, projectID, row.MemberID)
	if err != nil {
		return nil, nil, err
	}
	if !ok {
		return nil, nil, errNoToken
	}
	if _, err := p.appAllowed(ctx, projectID, row); err != nil {
		return nil, nil, err
	}
	return c, row, nil
}

// checkSigned checks an access token's signature and claims, and that it
// was not revoked (its family, its grant) and has not expired. It returns
// the claims and the stored row. Revocation asks only this: a client must
// be able to revoke a token this server issued whatever the organization's
// policy or the member's status says now, or the token would come back
// when the organization allowed the app again, or the member was active
// again. Every use asks more (verifyAccess, usableNow).
func (p *Provider) checkSigned(ctx context.Context, projectID, token string) (*accessClaims, *tokenRow, error) {
	// The row is named by the signed jti, not the text; the canonical
	// spelling is still the only one taken (see compactjws), as for every
	// JWT this server reads.
	if compactjws.Check(token) != nil {
		return nil, nil, errNoToken
	}
	parsed, err := jwt.ParseSigned(token, []jose.SignatureAlgorithm{jose.RS256})
	if err != nil || len(parsed.Headers) != 1 {
		return nil, nil, errNoToken
	}
	pub, err := p.publicKey(ctx, projectID, parsed.Headers[0].KeyID)
	if err != nil {
		return nil, nil, err
	}
	if pub == nil {
		return nil, nil, errNoToken
	}
	var c accessClaims
	if err := parsed.Claims(pub, &c); err != nil {
		return nil, nil, errNoToken
	}
	now := p.clock.Now()
	if err := c.Claims.ValidateWithLeeway(jwt.Expected{Issuer: AccessTokenIssuer(projectID),
		AnyAudience: jwt.Audience{projectID}, Time: now}, 5*time.Second); err != nil || c.ID == "" {
		return nil, nil, errNoToken
	}
	row, err := p.loadToken(ctx, p.db.Read(), ids.Hash(c.ID))
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, errNoToken
	}
	if err != nil {
		return nil, nil, err
	}
	if row.Kind != kindAccess || !row.active(now) {
		return nil, nil, errNoToken
	}
	return &c, row, nil
}

// errAppNotAllowed is a token whose organization no longer allows its
// app. It matches errNoToken, so every endpoint answers it as it answers
// a revoked token; the exchange tells it apart to say why.
var errAppNotAllowed = fmt.Errorf("%w: the organization no longer allows the connected app", errNoToken)

// appAllowed applies the organization's connected-app policy
// (connectedapps.AllowedIn) to a stored token at each use, as issue
// applies it at each issue: an organization that stops allowing an app
// stops the tokens it already holds, not only their refreshes, and
// allowing the app again brings back the tokens nothing else ended (the
// policy revokes nothing; a setting switched back and forth by mistake
// does not log every member out of the app). It returns the organization,
// or errAppNotAllowed, or errNoToken when the organization is gone.
//
// The organization is read through the session service's cache (the one
// every session check reads, which sees this process's writes at once and
// other replicas' within a second): introspection and userinfo gain no
// database read for it. The app is loaded only when the organization
// restricts some kind of app (connectedapps.AllowsEveryApp), which the
// default policy does not.
func (p *Provider) appAllowed(ctx context.Context, projectID string, row *tokenRow) (*organization.Organization, error) {
	get := p.orgs.Get
	if p.cachedOrgs != nil {
		get = p.cachedOrgs.Organization
	}
	org, err := get(ctx, projectID, row.OrganizationID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNoToken
	}
	if err != nil {
		return nil, fmt.Errorf("idp: token organization: %w", err)
	}
	if connectedapps.AllowsEveryApp(org) {
		return org, nil
	}
	app, err := p.apps.Get(ctx, projectID, row.ClientID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, errNoToken
	}
	if err != nil {
		return nil, fmt.Errorf("idp: token app: %w", err)
	}
	if connectedapps.AllowedIn(org, app) != nil {
		return nil, errAppNotAllowed
	}
	return org, nil
}

// usableNow is what introspection asks of a stored token once its own
// state was checked (checkSigned, or a refresh token's row): whether it
// could be used now, and with which scope. Its organization must still
// allow its app (appAllowed) and its member be active, and its scope is
// the one its family would be issued now (scopesNow, the rule of issue),
// so a resource server is not told of a scope the member lost (a role,
// the app's full_access, a scope the policy dropped) until the next
// refresh narrows the family; a token whose consent is gone or no longer
// covers that scope, whose family the refresh would end, is not usable.
// It returns the organization and the scope, or errNoToken (maybe
// errAppNotAllowed).
func (p *Provider) usableNow(ctx context.Context, projectID string, row *tokenRow) (*organization.Organization, []string, error) {
	org, err := p.appAllowed(ctx, projectID, row)
	if err != nil {
		return nil, nil, err
	}
	q := p.db.Read()
	m, err := p.orgs.Member(ctx, q, projectID, row.MemberID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, errNoToken
	}
	if err != nil {
		return nil, nil, fmt.Errorf("idp: token member: %w", err)
	}
	if m.Status != organization.StatusActive {
		return nil, nil, errNoToken
	}
	app, err := p.apps.Get(ctx, projectID, row.ClientID)
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, errNoToken
	}
	if err != nil {
		return nil, nil, fmt.Errorf("idp: token app: %w", err)
	}
	scopes, err := p.scopesNow(ctx, q, &row.grantState, m, org, app)
	if errors.Is(err, errConsentRevoked) {
		return nil, nil, errNoToken
	}
	if err != nil {
		return nil, nil, err
	}
	return org, scopes, nil
}

// memberActive reports whether a token's member may still use it. A
// deleted (or otherwise inactive) member's tokens are refused at once,
// not only once their revocation or the sweeper reaches them.
func (p *Provider) memberActive(ctx context.Context, projectID, memberID string) (bool, error) {
	var status string
	err := p.db.Read().QueryRowContext(ctx, `SELECT status FROM members WHERE project_id = $1 AND member_id = $2`,
		projectID, memberID).Scan(&status)
	if err = store.MapError(err); errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("idp: token member: %w", err)
	}
	return status == organization.StatusActive, nil
}

// publicKey returns the project's active key kid (nil when there is none).
func (p *Provider) publicKey(ctx context.Context, projectID, kid string) (*rsa.PublicKey, error) {
	keys, err := p.projects.SigningKeys(ctx, projectID)
	if err != nil {
		return nil, err
	}
	for _, k := range keys {
		if k.KID == kid {
			return &k.Private.PublicKey, nil
		}
	}
	return nil, nil
}
