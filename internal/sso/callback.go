package sso

import (
	"context"
	"errors"
	"net/http"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
)

// serveCallback handles the connection's callback: the SAML ACS (a POSTed
// response) or the OIDC redirect (a GET with code and state). On success
// the browser goes to the customer's page with an SSO token; on failure it
// gets an error page naming the catalogue error, and no token exists.
func (s *Service) serveCallback(w http.ResponseWriter, r *http.Request) {
	target, err := s.callback(r.Context(), r)
	if err != nil {
		s.errorPage(w, r, err)
		return
	}
	http.Redirect(w, r, target, http.StatusFound)
}

func (s *Service) callback(ctx context.Context, r *http.Request) (string, error) {
	c, err := s.loadAny(ctx, "", r.PathValue("connection_id"))
	if err != nil {
		return "", err
	}
	if c.Status != StatusActive {
		return "", apierr.New(apierr.SSOConnectionNotActive)
	}
	base := s.d.BaseURL()
	var st *flowState
	var id identity
	switch {
	case c.Kind == KindSAML && r.Method == http.MethodPost:
		if err := r.ParseForm(); err != nil {
			return "", apierr.Wrap(apierr.InvalidSAMLResponse, err)
		}
		encoded := r.PostForm.Get("SAMLResponse")
		if encoded == "" {
			return "", apierr.New(apierr.MissingSAMLResponse)
		}
		res, err := s.verifySAML(c, base, encoded)
		if err != nil {
			return "", err
		}
		// Replay is checked before the relay state is spent, so a replayed
		// response is reported as the replay it is.
		if err := s.rememberAssertion(ctx, c.ID, res); err != nil {
			return "", err
		}
		if st, err = s.redeemState(ctx, r, c, r.PostForm.Get("RelayState")); err != nil {
			return "", err
		}
		if res.inResponseTo == "" || res.inResponseTo != st.SAMLRequestID {
			return "", apierr.New(apierr.UnsolicitedSAMLResponse)
		}
		id = samlIdentity(c, res)
	case c.Kind == KindOIDC && r.Method == http.MethodGet:
		q := r.URL.Query()
		if q.Get("error") != "" {
			return "", apierr.New(apierr.SSOIdentityProviderError).WithDetails(map[string]any{"error": safeCode(q.Get("error"))})
		}
		if st, err = s.redeemState(ctx, r, c, q.Get("state")); err != nil {
			return "", err
		}
		if id, err = s.oidcIdentity(ctx, c, base, st, q.Get("code")); err != nil {
			return "", err
		}
	default:
		// An external connection has no callback of its own: its logins
		// come back to its source's.
		return "", apierr.New(apierr.MethodNotAllowed)
	}
	target, err := s.loginTarget(ctx, c, st)
	if err != nil {
		return "", err
	}
	return s.finish(ctx, r, target, st, id)
}

// redeemState spends the login's state ticket, which must belong to this
// connection. Failures count per project and client address: the
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
