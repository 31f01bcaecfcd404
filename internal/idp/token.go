package idp

import (
	"context"
	"errors"
	"net/http"
	"slices"

	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

// codeData is what an authorization code stands for (kept in its
// flowtoken ticket; the PKCE challenge is the ticket's own).
type codeData struct {
	ClientID       string   `json:"client_id"`
	RedirectURI    string   `json:"redirect_uri"`
	MemberID       string   `json:"member_id"`
	OrganizationID string   `json:"organization_id"`
	Scopes         []string `json:"scopes"`
	Nonce          string   `json:"nonce"`
	AuthTime       int64    `json:"auth_time"` // 0: unknown (authTimeOf)
	PKCE           bool     `json:"pkce"`
	// Email is the member's address when the code was granted: the code
	// is exchanged only while it still is, as an address change ends
	// what the old address's holder granted (ReleaseAddress). Codes
	// issued before it was recorded have none and live a minute.
	Email string `json:"email_address,omitempty"`
	// SID is the authorizing session's sid (sessionSID); "" without one.
	SID string `json:"sid,omitempty"`
}

// Token handles POST {issuer}/oauth2/token (RFC 6749 3.2).
func (p *Provider) Token(w http.ResponseWriter, r *http.Request) {
	out, err := p.token(r)
	writeOAuth(w, r, http.StatusOK, out, p.logged(r, err))
}

func (p *Provider) token(r *http.Request) (any, error) {
	pr, err := p.projectOf(r)
	if err != nil {
		return nil, err
	}
	if err := parseTokenBody(r); err != nil {
		return nil, err
	}
	grant := r.PostForm.Get("grant_type")
	if grant == "client_credentials" {
		return p.clientCredentials(r, pr)
	}
	if grant != "authorization_code" && grant != "refresh_token" {
		if grant == "" {
			return nil, invalidRequest("grant_type is required.")
		}
		return nil, unsupportedGrant()
	}
	app, err := p.authenticateClient(r, pr.ID, "token")
	if err != nil {
		return nil, err
	}
	if grant == "authorization_code" {
		return p.exchangeCode(r, pr.ID, app)
	}
	return p.refresh(r, pr.ID, app)
}

// exchangeCode redeems an authorization code once (RFC 6749 4.1.3, RFC
// 7636 4.6). A code presented again, by its client and with its verifier,
// revokes what it produced.
func (p *Provider) exchangeCode(r *http.Request, projectID string, app *connectedapps.App) (any, error) {
	ctx := r.Context()
	code, verifier := r.PostForm.Get("code"), r.PostForm.Get("code_verifier")
	if code == "" {
		return nil, invalidRequest("code is required.")
	}
	if verifier != "" && !flowtoken.ValidVerifier(verifier) {
		// A malformed parameter is a malformed request (RFC 6749 5.2
		// invalid_request); invalid_grant is for a well-formed verifier
		// that does not match (RFC 7636 4.6). Refused before the code is
		// looked up, it spends nothing.
		return nil, invalidRequest("code_verifier must be 43 to 128 characters of A-Z, a-z, 0-9, '-', '.', '_' and '~' (RFC 7636 4.1).")
	}
	// The code is spent in the transaction that issues its tokens
	// (RedeemThen): the same code presented meanwhile waits for that
	// commit, is refused, and its revokeCode then sees, and ends, the
	// tokens. Spent first on its own, a replay racing the first use found
	// nothing to revoke yet, and the first use's tokens outlived it.
	var out *issued
	var refused error // a code spent, but not for this request: nothing issued
	err := p.flows.RedeemThen(redeemerOf(ctx, app), flowtoken.Redeem{Kind: codeKind, Token: code, ProjectID: projectID,
		Verifier: verifier, LimitKey: projectID + "|" + httpapi.ClientIP(r)}, func(q store.Querier, t *flowtoken.Ticket) error {
		var d codeData
		if err := t.Decode(&d); err != nil {
			return err
		}
		refused = nil // a retried transaction starts over
		switch {
		case d.ClientID != app.ClientID:
			refused = invalidGrant("The authorization code was issued to another client.")
		case d.RedirectURI != r.PostForm.Get("redirect_uri"):
			refused = invalidGrant("redirect_uri does not match the authorization request.")
		case !d.PKCE && verifier != "":
			// RFC 9700 2.1.1: a verifier without a challenge is a downgrade attempt.
			refused = invalidGrant("code_verifier was sent but the authorization request had no code_challenge.")
		}
		if refused != nil {
			return nil // the code stays spent: it was presented, wrongly
		}
		g := &grantState{ProjectID: projectID, ClientID: app.ClientID, MemberID: d.MemberID, OrganizationID: d.OrganizationID,
			Scopes: d.Scopes, AuthTime: authTimeOfUnix(d.AuthTime), FamilyID: ids.Token(), CodeHash: ids.Hash(code), Email: d.Email,
			SID: d.SID}
		var err error
		out, err = p.issue(ctx, q, app, g, d.Nonce, nil)
		return err
	})
	switch {
	case errors.Is(err, flowtoken.ErrSpent):
		// Only a code of this project, still within its life, that was
		// redeemed already is a reuse (RFC 6749 4.1.2). An unknown, expired
		// or swept code revokes nothing: every refresh carries the code's
		// hash forward, so a stale code presented weeks later would end the
		// member's current tokens. Nor does a spent code without its PKCE
		// verifier (flowtoken reports it ErrInvalid, not ErrSpent), nor one
		// presented by another client (revokeCode) or without the client's
		// secret (authenticateClient refused it): the code alone may have
		// leaked, and its holder must not be able to end the tokens of the
		// client that redeemed it (RFC 9700 2.1.1). What remains is the
		// client itself, with all it needs to redeem the code, presenting
		// it again: a replay on its side, which ends the grant.
		if rerr := p.revokeCode(context.WithoutCancel(ctx), projectID, app.ClientID, code); rerr != nil {
			return nil, rerr
		}
		return nil, invalidGrant("The authorization code is invalid, expired or already used.")
	case errors.Is(err, flowtoken.ErrInvalid):
		return nil, invalidGrant("The authorization code is invalid, expired or already used.")
	case errors.Is(err, flowtoken.ErrPlainVerifier):
		// The client followed RFC 7636 4.3 (no method is plain), which
		// this provider cannot (authorize's absentMethodIsS256): say so,
		// rather than leave it a bare mismatch.
		return nil, invalidGrant("The code_verifier is the code_challenge itself, as code_challenge_method plain sends it: " +
			"only S256 is supported, and a request without code_challenge_method is S256, " +
			"so the code_challenge must be base64url(SHA-256(code_verifier)).")
	case flowtoken.IsPKCEFailure(err):
		return nil, invalidGrant("The code_verifier does not match the code_challenge.")
	case err != nil:
		return nil, err
	case refused != nil:
		return nil, refused
	}
	return out, nil
}

// redeemerOf is the context a code is redeemed in. A confidential client
// has just proved its secret: it is the client's server, redeeming the
// codes of all its users from one address, and any visitor can make it
// present a stale code (a reload of a spent callback URL). Counted per
// address, a few of those would refuse every user's valid code, so its
// redemptions are made on behalf of its users (ratelimit.OnBehalf), which
// the per-address failure count of flowtoken.RedeemLimit skips; codes are
// random tokens, which cannot be guessed, and the secret's own failures
// were counted per address before it was known (guardClient). A public
// client redeems from each user's own device, so there the count holds.
func redeemerOf(ctx context.Context, app *connectedapps.App) context.Context {
	if app.Public() {
		return ctx
	}
	return ratelimit.OnBehalf(ctx)
}

// PublicTokenFailuresPerIP counts, per client address at one project's
// endpoints (projectID|address), the refresh tokens a public client
// presents that refresh nothing and the tokens it introspects that are
// not active. A public client authenticates with its client_id alone,
// which is in every authorization URL, so without this count anyone could
// ask the token and introspection endpoints whether a guessed token is
// live, as often as they liked. Tokens are 256-bit random, so the lookup
// runs first and a live token always passes (guardPublic,
// ratelimit.GuardUnguessable); past the limit a failure is answered with
// the refusal (slow_down, 429). The allowance is that of the same
// client's failed code redemptions (flowtoken.RedeemLimit). A
// confidential client is not counted here: it has proved its secret,
// whose failures ClientSecretFailuresPerIP counts, and its server
// refreshes for all its users from one address.
var PublicTokenFailuresPerIP = ratelimit.Rule{Name: "idp_public_token_ip", Limit: flowtoken.RedeemLimit.Limit,
	Window: flowtoken.RedeemLimit.Window, PerClientAddress: true}

// guardPublic runs check, the lookup of a token that app presents, under
// PublicTokenFailuresPerIP when app is a public client; isFailure tells a
// token that is not live from anything else.
func (p *Provider) guardPublic(r *http.Request, projectID string, app *connectedapps.App, check func() error,
	isFailure func(error) bool) error {
	if !app.Public() {
		return check()
	}
	return p.limiter.GuardUnguessable(r.Context(), check, isFailure,
		ratelimit.For(PublicTokenFailuresPerIP, projectID+"|"+httpapi.ClientIP(r)))
}

// refresh rotates a refresh token (RFC 6749 6, RFC 9700 4.14.2): the
// presented token is spent and a new one issued in the same family; a
// spent token presented again revokes the whole family. A scope parameter
// narrows the new access token only: the new refresh token keeps the
// family's scopes (RFC 6749 6: identical to the presented one's), so a
// later refresh may ask for them again. A refresh token whose consent is
// gone (holdConsent) ends its family, as the revoke that removed the
// consent would have: such a family was left by a code redeemed after a
// revoke, before issue checked consent, and the member's app list, which
// reads the consent, does not show it.
func (p *Provider) refresh(r *http.Request, projectID string, app *connectedapps.App) (any, error) {
	ctx := r.Context()
	presented := r.PostForm.Get("refresh_token")
	if presented == "" {
		return nil, invalidRequest("refresh_token is required.")
	}
	// The scope parameter is read before the transaction: the writer is
	// not held while a client's text is parsed, and a parameter over the
	// bounds spends nothing.
	var narrow []string
	if s := r.PostForm.Get("scope"); s != "" {
		var ok bool
		if narrow, ok = splitScopes(s); !ok {
			return nil, invalidScope(scopeBoundsText())
		}
	}
	bad := invalidGrant("The refresh token is invalid, expired or revoked.")
	var out *issued
	end := "" // a family to revoke once the transaction has rolled back
	rotate := func(q store.Querier) error {
		end = ""
		t, err := p.loadToken(ctx, q, ids.Hash(presented))
		if errors.Is(err, store.ErrNotFound) || (err == nil && (t.Kind != kindRefresh || t.ProjectID != projectID)) {
			return bad
		}
		if err != nil {
			return err
		}
		if t.ClientID != app.ClientID {
			return bad
		}
		if !t.active(p.clock.Now()) {
			return bad
		}
		// t was read without a lock: a token revoked since (an address
		// change's revocation) spends nothing, and its family is revoked
		// already.
		spent, err := p.spend(ctx, q, t, ids.Hash(presented))
		if err != nil {
			return err
		}
		if !spent && !t.Used && !t.active(p.clock.Now()) {
			return bad // expired since it was read: no replay, the family stays
		}
		if !spent || t.Used {
			end = t.FamilyID
			return bad
		}
		for _, sc := range narrow {
			if !slices.Contains(t.Scopes, sc) {
				return invalidScope("A refresh may only narrow the granted scopes.")
			}
		}
		g := t.grantState
		out, err = p.issue(ctx, q, app, &g, "", narrow)
		if errors.Is(err, errConsentRevoked) {
			end = t.FamilyID
		}
		return err
	}
	err := p.guardPublic(r, projectID, app, func() error { return p.db.Tx(ctx, rotate) },
		func(err error) bool { return errors.Is(err, bad) })
	// A replay ends its family even when the address is past its
	// allowance and the replay is answered with the refusal.
	if end != "" {
		if rerr := p.revokeFamily(context.WithoutCancel(ctx), p.db, end); rerr != nil {
			return nil, rerr
		}
	}
	return out, err
}
