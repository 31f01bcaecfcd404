package idp

import (
	"net/http"
	"net/url"
	"strconv"
	"time"

	"github.com/latchkey/latchkey/internal/project"
)

// Discovery handles {issuer}/.well-known/openid-configuration (OIDC
// Discovery 4) and the RFC 8414 forms of the metadata. It fails with a
// clear message until the operator has set the authorization page.
func (p *Provider) Discovery(w http.ResponseWriter, r *http.Request) {
	out, err := p.discovery(r)
	writeOAuth(w, r, http.StatusOK, out, p.logged(r, err))
}

func (p *Provider) discovery(r *http.Request) (any, error) {
	pr, err := p.projectOf(r)
	if err != nil {
		return nil, err
	}
	authz, err := p.AuthorizationURL(r.Context(), pr.ID)
	if err != nil {
		return nil, err
	}
	pol, err := p.policy(r.Context(), pr.ID)
	if err != nil {
		return nil, err
	}
	iss := p.Issuer(pr.ID)
	grants := []string{"authorization_code", "refresh_token", "client_credentials"}
	return map[string]any{
		"issuer":                                        iss,
		"authorization_endpoint":                        authz,
		"token_endpoint":                                iss + "/oauth2/token",
		"userinfo_endpoint":                             iss + "/oauth2/userinfo",
		"jwks_uri":                                      iss + "/.well-known/jwks.json",
		"introspection_endpoint":                        iss + "/oauth2/introspect",
		"revocation_endpoint":                           iss + "/oauth2/revoke",
		"end_session_endpoint":                          iss + "/oauth2/end_session",
		"scopes_supported":                              supportedScopes(pol),
		"response_types_supported":                      []string{"code"},
		"response_modes_supported":                      []string{"query"},
		"grant_types_supported":                         grants,
		"subject_types_supported":                       []string{"public"},
		"id_token_signing_alg_values_supported":         []string{"RS256"},
		"token_endpoint_auth_methods_supported":         []string{"client_secret_basic", "client_secret_post", "none"},
		"introspection_endpoint_auth_methods_supported": []string{"client_secret_basic", "client_secret_post", "none"},
		"revocation_endpoint_auth_methods_supported":    []string{"client_secret_basic", "client_secret_post", "none"},
		"code_challenge_methods_supported":              []string{"S256"},
		"claims_supported": []string{"sub", "iss", "aud", "exp", "iat", "auth_time", "nonce", "azp", "at_hash", "sid",
			"email", "email_verified", "name", "updated_at", "phone_number", "phone_number_verified"},
		"prompt_values_supported":                        []string{"none", "login", "consent"},
		"request_parameter_supported":                    false,
		"request_uri_parameter_supported":                false,
		"authorization_response_iss_parameter_supported": true,
		"claims_parameter_supported":                     false,
		"frontchannel_logout_supported":                  false,
		"backchannel_logout_supported":                   false,
	}, nil
}

// jwksCacheControl lets caches keep the key set for half the signing
// key lead (project.SigningKeyLead: a rotated key is published that long
// before it signs). A relying party's library, or a shared cache in front
// of the issuer, that keeps it longer would still hold the old set when
// the new key's first tokens arrive, and refuse them; five minutes did.
var jwksCacheControl = "public, max-age=" + strconv.Itoa(int(project.SigningKeyLead/2/time.Second))

// JWKS handles {issuer}/.well-known/jwks.json: the project's signing keys,
// the same set, in the same shape, as the session JWKS (access tokens
// verify against either).
func (p *Provider) JWKS(w http.ResponseWriter, r *http.Request) {
	out, err := p.jwks(r)
	if err == nil {
		w.Header().Set("Content-Type", "application/json; charset=utf-8")
		w.Header().Set("Cache-Control", jwksCacheControl)
		writeJSON(w, out)
		return
	}
	writeOAuth(w, r, 0, nil, p.logged(r, err))
}

func (p *Provider) jwks(r *http.Request) (any, error) {
	pr, err := p.projectOf(r)
	if err != nil {
		return nil, err
	}
	return p.keySets.KeySet(r.Context(), pr.ID)
}

// EndSession handles {issuer}/oauth2/end_session (OIDC RP-Initiated
// Logout 1.0 2), by GET and by POST with a form body (the specification
// requires both). It sends the browser, with the relying party's
// parameters, to the operator's page, where the widget's Logout screen
// asks the member and then goes to the post_logout_redirect_uri.
//
// The specification makes client_id and post_logout_redirect_uri
// optional, while the widget (its product spec) requires both, so they
// are filled in here: the client from a verified id_token_hint's
// audience, and the provider's own logged-out page as the redirect.
// logout/start accepts that page for every client of the project and
// checks everything else (registered redirect URI, the hint again).
func (p *Provider) EndSession(w http.ResponseWriter, r *http.Request) {
	target, status, err := p.endSession(r)
	if err != nil {
		writeOAuth(w, r, 0, nil, p.logged(r, err))
		return
	}
	// The Location carries the relying party's id_token_hint (an ID
	// token): no browser or shared cache may keep the answer, as for the
	// OAuth and SSO redirects that carry a token.
	w.Header().Set("Cache-Control", "no-store")
	http.Redirect(w, r, target, status)
}

func (p *Provider) endSession(r *http.Request) (string, int, error) {
	pr, err := p.projectOf(r)
	if err != nil {
		return "", 0, err
	}
	page, err := p.AuthorizationURL(r.Context(), pr.ID)
	if err != nil {
		return "", 0, err
	}
	in, status := r.URL.Query(), http.StatusFound
	if r.Method == http.MethodPost {
		if err := parseForm(r); err != nil {
			return "", 0, err
		}
		in, status = r.PostForm, http.StatusSeeOther // the page is fetched with GET
	}
	q := url.Values{}
	for _, k := range []string{"client_id", "post_logout_redirect_uri", "id_token_hint", "state", "ui_locales", "logout_hint"} {
		if v := in.Get(k); v != "" {
			q.Set(k, v)
		}
	}
	clientID, hint := q.Get("client_id"), q.Get("id_token_hint")
	if clientID == "" && hint == "" {
		return "", 0, invalidRequest("client_id or id_token_hint is required: the logout must name its client.")
	}
	if hint != "" {
		// Both present must agree (the hint's aud contains client_id);
		// alone, the hint names the client, and it must name one.
		claims, err := p.verifyIDTokenHint(r.Context(), pr.ID, clientID, hint)
		if err != nil {
			return "", 0, err
		}
		q.Set("client_id", claims.clientID)
	}
	if q.Get("post_logout_redirect_uri") == "" {
		q.Set("post_logout_redirect_uri", p.loggedOutURL(pr.ID))
	}
	return page + "?" + q.Encode(), status, nil
}
