package idp

import (
	"errors"
	"fmt"
	"net/http"
	"slices"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// exchangeMaxAge is how old an access token may be when it is exchanged
// back into a session (Stytch: five minutes).
const exchangeMaxAge = 5 * time.Minute

type exchangeRequest struct {
	AccessToken            string `json:"access_token"`
	SessionDurationMinutes *int   `json:"session_duration_minutes"`
	session.ClaimsField
}

// errNotAllowedHere refuses the exchange of a token whose organization no
// longer allows its app. The token is not spent: allowed again, it can be
// exchanged (within its five minutes).
func errNotAllowedHere(cause error) error {
	return apierr.Wrap(apierr.AccessTokenExchangeInvalidGrant, cause).WithMessage(
		"The organization no longer allows the connected app this access token was issued to.")
}

// ExchangeAccessToken handles b2b/sessions/exchange_access_token on both
// faces: a first-party app's access token carrying full_access, at most
// five minutes old, becomes a session of its member, once. The member
// satisfied the organization's policies (MFA included) when the token was
// issued, so the answer is always a session, never an IST; the token's
// family stays valid for the app.
func (f Faces) ExchangeAccessToken(r *http.Request) (any, error) {
	var req exchangeRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	if err := httpapi.Required("access_token", req.AccessToken); err != nil {
		return nil, err
	}
	claims, err := req.Claims(r)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	p := project.CallerFrom(ctx).Project
	duration, err := session.DurationMinutes(r.Context(), p, req.SessionDurationMinutes)
	if err != nil {
		return nil, err
	}
	var resp *session.AuthResponse
	err = f.Limiter.GuardUnguessable(ctx, func() error {
		c, row, err := f.P.verifyAccess(ctx, p.ID, req.AccessToken)
		if errors.Is(err, errAppNotAllowed) {
			return errNotAllowedHere(err)
		}
		if errors.Is(err, errNoToken) {
			return apierr.Wrap(apierr.AccessTokenExchangeInvalidGrant, err)
		}
		if err != nil {
			return err
		}
		if !row.has(ScopeFullAccess) {
			return apierr.New(apierr.AccessTokenExchangeMissingFullAccess)
		}
		// The scope alone is not enough: the token may predate the app
		// losing full access (or a third-party row that was stored with
		// it), and the app must still be allowed to hold it now.
		app, err := f.P.apps.Get(ctx, p.ID, row.ClientID)
		if errors.Is(err, store.ErrNotFound) {
			return apierr.Wrap(apierr.AccessTokenExchangeInvalidGrant, err).WithMessage("The app this access token was issued to no longer exists.")
		}
		if err != nil {
			return fmt.Errorf("idp: exchange access token: %w", err)
		}
		if !app.MayHoldFullAccess() {
			return apierr.New(apierr.AccessTokenExchangeMissingFullAccess).WithMessage(
				"Only access tokens of a first-party app allowed full access (full_access_allowed) can be exchanged for a session.")
		}
		if c.IssuedAt == nil || f.P.clock.Now().Sub(c.IssuedAt.Time()) > exchangeMaxAge {
			return apierr.New(apierr.AccessTokenExchangeTooOld)
		}
		return f.P.db.Tx(ctx, func(q store.Querier) error {
			// used_at marks the exchange: a second one finds it set. The
			// token was checked before this transaction: a token the
			// member's address change revoked meanwhile (ReleaseAddress)
			// spends nothing and starts no session after it.
			spent, err := f.P.spend(ctx, q, row, ids.Hash(c.ID))
			if err != nil {
				return err
			}
			if !spent {
				return apierr.New(apierr.AccessTokenExchangeInvalidGrant).WithMessage("This access token was already exchanged or was revoked.")
			}
			org, err := f.P.orgs.GetIn(ctx, q, p.ID, row.OrganizationID)
			if err != nil {
				return organization.NotFound(err, apierr.OrganizationNotFound)
			}
			// verifyAccess read the policy from the cache, which another
			// replica's change reaches within a second; a session is worth
			// the read the transaction makes anyway.
			if err := connectedapps.AllowedIn(org, app); err != nil {
				return errNotAllowedHere(err)
			}
			m, err := f.P.orgs.Member(ctx, q, p.ID, row.MemberID)
			if err != nil {
				return organization.NotFound(err, apierr.MemberNotFound)
			}
			if m.Status != organization.StatusActive {
				return apierr.New(apierr.InactiveMember)
			}
			// The consent must still cover the token, as introspection
			// asks (usableNow): a family can outlive its consent (a code
			// an earlier version redeemed after a revoke), and a token
			// introspection calls inactive must not become a session.
			// spend held the member's row first, as holdConsent needs.
			held, err := f.P.scopesNow(ctx, q, &row.grantState, m, org, app)
			if errors.Is(err, errConsentRevoked) {
				return apierr.Wrap(apierr.AccessTokenExchangeInvalidGrant, err).WithMessage(
					"The member no longer consents to the connected app this access token was issued to.")
			}
			if err != nil {
				return err
			}
			if !slices.Contains(held, ScopeFullAccess) {
				return apierr.New(apierr.AccessTokenExchangeMissingFullAccess)
			}
			resp, err = f.Sessions.Complete(ctx, q, session.CompleteParams{Project: p, Organization: org, Member: m,
				DurationMinutes: duration, PolicyMet: true, Factor: session.Factor{Type: "oauth",
					DeliveryMethod:                 "oauth_access_token_exchange",
					OAuthAccessTokenExchangeFactor: &session.OAuthAccessTokenExchangeFactor{ClientID: row.ClientID}},
				CustomClaims: claims})
			return err
		})
	}, ratelimit.FailureOf(apierr.AccessTokenExchangeInvalidGrant), ratelimit.For(session.FailuresPerIP, p.ID+"|"+httpapi.ClientIP(r)))
	if err != nil {
		return nil, err
	}
	return session.Completed{AuthResponse: resp}, nil
}
