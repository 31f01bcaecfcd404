package sso

import (
	"context"
	"errors"
	"net/http"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ratelimit"
)

// serveCallback handles the connection's callback: the SAML ACS (a POSTed
// response) or the OIDC redirect (a GET with code and state). On success
// the browser goes to the customer's page with an SSO token; on failure it
// gets an error page naming the catalogue error, and no token exists.
func (s *Service) serveCallback(w http.ResponseWriter, r *http.Request) {
	target, c, err := s.callback(r.Context(), r)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	// The flow the cookie bound is over. A refused callback leaves it, as
	// OAuth's does: it may bind this browser's own login, which a forged
	// post (the login CSRF the binding stops) must not spoil.
	http.SetCookie(w, s.binding(c.Kind).Removal())
	// The Location carries the one-time SSO token: no browser or shared
	// cache may keep the answer (errorPage says the same of a refusal).
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, target, http.StatusFound)
}

// callback checks a callback and returns the customer's URL with the SSO
// token, and the connection the login came back through.
func (s *Service) callback(ctx context.Context, r *http.Request) (string, *conn, error) {
	c, err := s.loadAny(ctx, "", r.PathValue("connection_id"))
	if err != nil {
		return "", nil, err
	}
	if c.Status != StatusActive {
		return "", nil, apierr.New(apierr.SSOConnectionNotActive)
	}
	base := s.d.BaseURL()
	var st *flowState
	var id identity
	switch {
	case c.Kind == KindSAML && r.Method == http.MethodPost:
		if st, id, err = s.acs(ctx, r, c, base); err != nil {
			return "", nil, err
		}
	case c.Kind == KindOIDC && r.Method == http.MethodGet:
		q := r.URL.Query()
		if q.Get("error") != "" {
			return "", nil, apierr.New(apierr.SSOIdentityProviderError).WithDetails(map[string]any{"error": safeCode(q.Get("error"))})
		}
		if st, err = s.redeemState(ctx, r, c, q.Get("state")); err != nil {
			return "", nil, err
		}
		if id, err = s.oidcIdentity(ctx, c, base, st, q.Get("code")); err != nil {
			return "", nil, err
		}
	default:
		// An external connection has no callback of its own: its logins
		// come back to its source's.
		return "", nil, apierr.New(apierr.MethodNotAllowed)
	}
	lands, err := s.loginTarget(ctx, c, st)
	if err != nil {
		return "", nil, err
	}
	target, err := s.finish(ctx, r, lands, st, id)
	if err != nil {
		return "", nil, err
	}
	return target, c, nil
}

// ACSFailuresPerIP counts the failed posts to a SAML connection's ACS
// from one client address, per project: responses that do not decode or
// verify, replays, relay states that do not redeem, and responses that
// answer no login started here. Anyone may post to an active connection's
// ACS, and each post costs XML parsing and an RSA verification, so past
// the limit the address is refused (too_many_requests) before the body is
// even read, until the window ends. A person's own failures are a handful
// of retries (a back button that re-posts the form, a second try after an
// IdP error), each a round trip through the identity provider; an
// administrator trying out a new connection's settings makes one post per
// edit. Twenty in ten minutes, flowtoken.RedeemLimit's allowance for
// failed tickets, leaves both well clear and a forger twenty posts. A
// verified login gives its own hit back (Release), so a busy office
// behind one address is limited by its failures only, never its logins.
// Keyed by project: another project's connections, posted to from a
// shared address, leave this project's allowance alone.
var ACSFailuresPerIP = ratelimit.Rule{Name: "sso_acs_fail_ip", Limit: 20, Window: 10 * time.Minute,
	OnSuccess: ratelimit.Release, PerClientAddress: true}

// acsFailure recognises a post that ACSFailuresPerIP counts: every
// refusal of the response itself or of its relay state. Anything else (a
// server error, a connection whose stored keys do not open, another
// limit's refusal) counts nothing.
var acsFailure = ratelimit.FailureOf(apierr.MissingSAMLResponse, apierr.InvalidXMLSAMLResponse,
	apierr.InvalidSAMLResponse, apierr.MissingSignatureSAMLResponse, apierr.InvalidSignatureSAMLResponse,
	apierr.InvalidAudienceSAMLResponse, apierr.ExpiredSAMLResponse, apierr.NotYetValidSAMLResponse,
	apierr.DuplicateSAMLResponse, apierr.MissingSAMLRelayState, apierr.UnsolicitedSAMLResponse)

// acs checks a response posted to SAML connection c's ACS, and returns
// the login it answers and the identity it asserts. The attempt is
// counted (ACSFailuresPerIP) before anything of the post is read.
func (s *Service) acs(ctx context.Context, r *http.Request, c *conn, base string) (*flowState, identity, error) {
	var st *flowState
	var id identity
	err := s.d.Limiter.Guard(ctx, func() error {
		if err := r.ParseForm(); err != nil {
			return apierr.Wrap(apierr.InvalidSAMLResponse, err)
		}
		encoded := r.PostForm.Get("SAMLResponse")
		if encoded == "" {
			return apierr.New(apierr.MissingSAMLResponse)
		}
		res, err := s.verifySAML(c, base, encoded)
		if err != nil {
			return err
		}
		// Replay is checked before the relay state is spent, so a replayed
		// response is reported as the replay it is.
		if err := s.rememberAssertion(ctx, c.ID, res); err != nil {
			return err
		}
		if st, err = s.redeemState(ctx, r, c, r.PostForm.Get("RelayState")); err != nil {
			return err
		}
		if res.inResponseTo == "" || res.inResponseTo != st.SAMLRequestID {
			return apierr.New(apierr.UnsolicitedSAMLResponse)
		}
		id = samlIdentity(c, res)
		return nil
	}, acsFailure, ratelimit.For(ACSFailuresPerIP, c.ProjectID+"|"+httpapi.ClientIP(r)))
	if err != nil {
		return nil, identity{}, err
	}
	return st, id, nil
}

// redeemState spends the login's state ticket, which must belong to this
// connection and, when the start bound it, to this browser (bindingCookie). Failures count per project and client address: the
// connection names its project, and another project's stale callbacks
// from a shared address must not spend this one's allowance.
func (s *Service) redeemState(ctx context.Context, r *http.Request, c *conn, token string) (*flowState, error) {
	if token == "" {
		if c.Kind == KindOIDC {
			return nil, apierr.New(apierr.MissingOIDCStateParam)
		}
		return nil, apierr.New(apierr.MissingSAMLRelayState)
	}
	t, err := s.d.Flows.Redeem(ctx, flowtoken.Redeem{Kind: kindState, Token: token, ProjectID: c.ProjectID,
		LimitKey: c.ProjectID + "|" + httpapi.ClientIP(r)})
	if errors.Is(err, flowtoken.ErrInvalid) {
		return nil, apierr.Wrap(unsolicited(c), err)
	}
	if err != nil {
		return nil, err
	}
	var st flowState
	if err := t.Decode(&st); err != nil {
		return nil, err
	}
	if st.ConnectionID != c.ID {
		return nil, apierr.New(unsolicited(c))
	}
	// After the redemption: a state that reached another browser is spent
	// there, and cannot be tried again from the one it was issued to. The
	// catalogue has no SSO type for a state from another browser (the
	// vendor names only OAuth's, oauth_state_mismatch, whose text speaks of
	// OAuth), and to the browser that brought it such a response answers
	// no login started here, in it: the unsolicited type, with a message
	// that says why. A SAML one counts as a failed post (acsFailure).
	if st.Binding != "" && !s.binding(c.Kind).Held(r, st.Binding) {
		return nil, apierr.New(unsolicited(c)).WithMessage("This single sign-on response does not belong to this browser: " +
			"the login must finish in the browser that started it. Please start the login again.")
	}
	return &st, nil
}

// unsolicited is the type of a callback to connection c (a source: SAML
// or OIDC) that answers no login started here for it.
func unsolicited(c *conn) apierr.Type {
	if c.Kind == KindOIDC {
		return apierr.UnsolicitedOIDCResponse
	}
	return apierr.UnsolicitedSAMLResponse
}

// safeCode keeps an identity provider's error code printable and short: it
// is echoed in the error's details.
func safeCode(v string) string {
	out := make([]rune, 0, len(v))
	for _, r := range v {
		if len(out) == 64 {
			break
		}
		if r == '_' || r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' {
			out = append(out, r)
		}
	}
	return string(out)
}
