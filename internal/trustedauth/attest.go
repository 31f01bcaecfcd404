package trustedauth

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/sweeper"
)

// Factor names of an attested token, as Stytch names them.
const (
	FactorType     = "trusted_auth_token"
	DeliveryMethod = "trusted_token_exchange"
)

type attestRequest struct {
	ProfileID              string `json:"profile_id"`
	Token                  string `json:"token"`
	OrganizationID         string `json:"organization_id"`
	SessionDurationMinutes *int   `json:"session_duration_minutes"`
	SessionToken           string `json:"session_token"`
	SessionJWT             string `json:"session_jwt"`
	session.ClaimsField
}

// identity is what a verified token says.
type identity struct {
	email   string
	name    string
	tokenID string
	// spendKeys are what spend records: the signed claims, and the token
	// id when there is one. The claims alone would let an issuer's token
	// id be spent twice (by two tokens that both carry it); the id alone
	// would let two profiles of one issuer whose mappings name different
	// token id claims each spend the same token.
	spendKeys []string
	// legacyKey is what the previous release spent the token by in
	// trusted_auth_token_uses: the token id, or the signed claims of a
	// token without one (see spend).
	legacyKey string
	orgID     string
	signedOrg bool // orgID came from the token, not the request
}

// Attest handles b2b/sessions/attest on both faces: a token the profile's
// issuer signed becomes a session (or an IST when the organization wants
// MFA or another primary method). With session_token or session_jwt the
// token is added as a factor of that session instead, which is then
// replaced, so stepping up never leaves two live sessions.
func (h Handlers) Attest(r *http.Request) (any, error) {
	var req attestRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	for _, f := range [][2]string{{"profile_id", req.ProfileID}, {"token", req.Token}} {
		if err := httpapi.Required(f[0], f[1]); err != nil {
			return nil, err
		}
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
	s := h.s
	prof, err := s.Profile(ctx, p.ID, req.ProfileID)
	if err != nil {
		return nil, err
	}
	if !prof.Active {
		return nil, apierr.New(apierr.TrustedTokenProfileNotFound).WithMessage("The trusted auth token profile is inactive.")
	}
	var prior *session.SessionResponse
	if req.SessionToken != "" || req.SessionJWT != "" {
		// Check counts a stale session against the client's address like
		// a failed session check.
		prior, err = s.d.Sessions.Check(ctx, p, httpapi.ClientIP(r), session.Credential{Token: req.SessionToken, JWT: req.SessionJWT}, nil)
		if err != nil {
			return nil, err
		}
	}
	var resp *session.AuthResponse
	err = s.d.Limiter.GuardUnguessable(ctx, func() error {
		id, exp, err := s.identify(ctx, prof, req)
		if err != nil {
			return err
		}
		return s.d.DB.Tx(ctx, func(q store.Querier) error {
			resp, err = s.complete(ctx, q, p, prof, id, exp, prior, duration, claims)
			return err
		})
	}, ratelimit.FailureOf(apierr.InvalidTrustedAuthToken), ratelimit.For(AttestPerIP, p.ID+"|"+httpapi.ClientIP(r)))
	if err != nil {
		return nil, err
	}
	// The Node client's B2BSessionsAttestResponse has no IST fields; the
	// README's trusted auth section keeps them as a deliberate difference
	// (an attested token is a primary login: MFA may still be due), listed
	// in scripts/gen-backend-wire.mjs. It has no organization_id.
	return session.Declared(resp, session.DeclaresIntermediate|session.DeclaresPrimaryRequired), nil
}

// identify verifies the token and reads the member's identity from it.
func (s *Service) identify(ctx context.Context, prof *Profile, req attestRequest) (identity, int64, error) {
	v, err := s.verify(ctx, prof, req.Token)
	if err != nil {
		return identity{}, 0, err
	}
	c := v.claims
	m := prof.AttributeMapping
	raw := c.text(m.Email)
	if raw == "" {
		return identity{}, 0, badToken(fmt.Sprintf("has no email in its %q claim.", m.Email))
	}
	email, err := emailaddr.Normalize(raw)
	if err != nil {
		return identity{}, 0, badToken(fmt.Sprintf("has an invalid email in its %q claim.", m.Email))
	}
	// The issuer saying the address is unconfirmed must not log into (or
	// provision, or verify) the member who owns it: anyone can sign up at
	// most issuers with someone else's address.
	if !c.emailVerified() {
		return identity{}, 0, badToken("says its email is not verified (email_verified is not true).")
	}
	id := identity{email: email, name: c.text(m.Name), tokenID: c.text(m.TokenID)}
	// Many issuers (Firebase, Auth0 ID tokens) sign no token id; such a
	// token is spent by its signed claims alone, so it is single-use all
	// the same.
	id.spendKeys = []string{string(v.payload)}
	id.legacyKey = string(v.payload)
	if id.tokenID != "" {
		id.spendKeys = append(id.spendKeys, id.tokenID)
		id.legacyKey = id.tokenID
	}
	claimOrg := c.text(m.OrganizationID)
	switch {
	case claimOrg != "" && req.OrganizationID != "" && claimOrg != req.OrganizationID:
		return identity{}, 0, apierr.New(apierr.InvalidTokenOrganizationIDClaim)
	case claimOrg != "":
		id.orgID, id.signedOrg = claimOrg, true
	case req.OrganizationID != "":
		id.orgID = req.OrganizationID
	default:
		return identity{}, 0, apierr.New(apierr.TokenMissingOrganizationIDClaim)
	}
	return id, store.Millis(v.exp.Add(clockSkew)), nil
}

// complete finds (or provisions) the member, spends the token and
// completes the login inside q; the session gets claims
// (session.ClaimsField).
func (s *Service) complete(ctx context.Context, q store.Querier, p *project.Project, prof *Profile, id identity,
	expMs int64, prior *session.SessionResponse, duration int, claims map[string]any) (*session.AuthResponse, error) {
	org, err := s.d.Orgs.GetIn(ctx, q, p.ID, id.orgID)
	if err != nil {
		return nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	m, err := s.member(ctx, q, p, prof, org, id)
	if err != nil {
		return nil, err
	}
	if prior != nil && (prior.Member.MemberID != m.MemberID || prior.Organization.OrganizationID != org.OrganizationID) {
		return nil, apierr.New(apierr.UnauthorizedAction).WithMessage(
			"The session belongs to another member than the trusted auth token names.")
	}
	if err := s.spend(ctx, q, p.ID, prof.Issuer, id.spendKeys, expMs); err != nil {
		return nil, err
	}
	if err := s.spendLegacy(ctx, q, prof.ProfileID, id.legacyKey, expMs); err != nil {
		return nil, err
	}
	// The profile's issuer vouches for the address, as an SSO provider
	// does (identify refused a token that said it was not verified).
	ended, err := s.d.Orgs.MarkEmailVerified(ctx, q, m)
	if err != nil {
		return nil, err
	}
	factor := session.Factor{Type: FactorType, DeliveryMethod: DeliveryMethod,
		TrustedAuthTokenFactor: &session.TrustedAuthTokenFactor{TokenID: id.tokenID}}
	return s.d.Sessions.Complete(ctx, q, session.CompleteParams{Project: p, Organization: org, Member: m, Factor: factor,
		DurationMinutes: duration, From: prior, CustomClaims: claims, SessionsEnded: ended})
}

// member finds the member the token names, or provisions one when the
// profile allows it, the organization was named by the signed token (a
// request's organization_id is the caller's word, not the issuer's), and
// the organization's email JIT policy admits the address.
func (s *Service) member(ctx context.Context, q store.Querier, p *project.Project, prof *Profile,
	org *organization.Organization, id identity) (*organization.Member, error) {
	m, err := s.d.Orgs.MemberByEmail(ctx, q, org.OrganizationID, id.email)
	switch {
	case err == nil:
		if m.Status == organization.StatusDeleted {
			return nil, apierr.New(apierr.InactiveMember)
		}
		return m, nil
	case !errors.Is(err, store.ErrNotFound):
		return nil, err
	case !prof.CanJITProvision || !id.signedOrg:
		return nil, apierr.Wrap(apierr.MemberNotFound, err).WithMessage(
			"No member of the organization has the trusted auth token's email, and this profile does not provision new members.")
	}
	if err := org.CheckEmailJIT(id.email); err != nil {
		return nil, err
	}
	m, _, err = s.d.Orgs.ProvisionMember(ctx, q, org, p.Env, organization.NewMember{Email: id.email, Name: id.name,
		Status: organization.StatusActive})
	return m, err
}

// spentKeep is how long a spent token's row outlives its expires_at
// (the token's exp plus clockSkew). Replicas' clocks differ: one running
// ahead must not sweep a row while one running behind still accepts the
// token. Minutes cover any clock that is kept in time at all.
const spentKeep = 5 * time.Minute

// spend records a token (keys, hashed) as used by the project's logins
// with tokens of issuer, until it expires; a second use is refused. The
// record is the project's and the issuer's, not the profile's: it holds
// for every profile of that issuer, and after the profile is deleted.
//
// A row past its keep that the sweeper has not reached yet is no use (an
// issuer may sign a token id again once the first token expired): the
// insert takes it over. No row written or taken over means the token is
// spent. The sweeper removes the other rows past their keep.
func (s *Service) spend(ctx context.Context, q store.Querier, projectID, issuer string, keys []string, expMs int64) error {
	cutoff := store.Millis(s.d.Clock.Now().Add(-spentKeep))
	for _, key := range keys {
		res, err := q.ExecContext(ctx, `INSERT INTO trusted_auth_spent_tokens (project_id, issuer, token_hash, expires_at)
			VALUES ($1, $2, $3, $4) ON CONFLICT (project_id, issuer, token_hash)
			DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE trusted_auth_spent_tokens.expires_at < $5`,
			projectID, issuer, ids.Hash(key), expMs, cutoff)
		if err != nil {
			return fmt.Errorf("trustedauth: record spent token: %w", err)
		}
		if n, err := res.RowsAffected(); err != nil || n == 0 {
			return badToken("was already used.")
		}
	}
	return nil
}

// spendLegacy also records the token where the previous release looks
// for it, and refuses a token that release has spent. During a rolling
// deploy its replicas read and write only trusted_auth_token_uses (by
// profile and the hash of the token id, or of the signed claims of a
// token without one) and this release's replicas trusted_auth_spent_tokens:
// without this row each release would take a token once. Remove it with
// the migration that drops trusted_auth_token_uses, once no replica of
// that release can run.
func (s *Service) spendLegacy(ctx context.Context, q store.Querier, profileID, key string, expMs int64) error {
	// A row past its keep is no use, as in spend: the insert takes it over.
	cutoff := store.Millis(s.d.Clock.Now().Add(-spentKeep))
	res, err := q.ExecContext(ctx, `INSERT INTO trusted_auth_token_uses (profile_id, token_hash, expires_at)
		VALUES ($1, $2, $3) ON CONFLICT (profile_id, token_hash)
		DO UPDATE SET expires_at = EXCLUDED.expires_at WHERE trusted_auth_token_uses.expires_at < $4`,
		profileID, ids.Hash(key), expMs, cutoff)
	if err != nil {
		return fmt.Errorf("trustedauth: record spent token for the previous release: %w", err)
	}
	if n, err := res.RowsAffected(); err != nil || n == 0 {
		return badToken("was already used.")
	}
	return nil
}

// Sweeps offers the spent-token rows to the sweeper (app.Sweeper), which
// removes them once past their keep (spend takes over only the row of the
// token it records). Batched by the whole key: by token_hash alone a batch
// could take another issuer's live row with the same hash (two issuers may
// both sign jti "1"). 0001's per-profile table is swept too while replicas
// of the previous release may still write it.
func (s *Service) Sweeps() []sweeper.Sweepable {
	return []sweeper.Sweepable{
		sweeper.Expired{DB: s.d.DB, Table: "trusted_auth_spent_tokens", Key: "project_id, issuer, token_hash",
			Column: "expires_at", Keep: spentKeep},
		sweeper.Expired{DB: s.d.DB, Table: "trusted_auth_token_uses", Key: "profile_id, token_hash",
			Column: "expires_at", Keep: spentKeep},
	}
}
