package oauth

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/oauth/providers"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// state is what the state ticket remembers between start and callback.
type state struct {
	Provider       string   `json:"provider"`
	OrganizationID string   `json:"organization_id,omitempty"` // "" in discovery
	Discovery      bool     `json:"discovery"`
	LoginURL       string   `json:"login_url,omitempty"`
	SignupURL      string   `json:"signup_url,omitempty"`
	DiscoveryURL   string   `json:"discovery_url,omitempty"`
	Challenge      string   `json:"challenge,omitempty"` // the customer's PKCE challenge
	Verifier       string   `json:"verifier"`            // our PKCE verifier towards the provider
	Nonce          string   `json:"nonce"`
	Scopes         []string `json:"scopes,omitempty"`
	// Binding is the hash of the random value the start put in the
	// starting browser's binding cookie (Module.binding); the callback
	// takes the state only with that cookie.
	Binding string `json:"binding,omitempty"`
}

// The state binding (flowtoken.Binding): the start sets a cookie in the
// browser it answers, holding a random value whose hash the state keeps,
// and the callback refuses a state without it (oauth_state_mismatch), as
// the vendor does. Without it, an attacker starts a login with his own PKCE
// challenge, sends the provider URL to a victim, and the victim's browser
// comes back with a token bound to the attacker's verifier; or he sends his
// own callback URL and the victim lands logged in as him.
//
// The cookie is HttpOnly, Secure when the base URL is https, scoped to
// the callback's path, and SameSite=Lax: the provider sends the browser
// back by a top-level GET, which carries Lax cookies, and the widget
// starts by a top-level navigation. One Tap has no callback and no state.
// One browser has one binding at a time: a second start replaces the
// first's, whose callback is then refused.
const bindingCookie = "latchkey_oauth_state"

// startOrganization serves GET /v1/b2b/public/oauth/{provider}/start.
func (m *Module) startOrganization(w http.ResponseWriter, r *http.Request) { m.start(w, r, false) }

// startDiscovery serves GET /v1/b2b/public/oauth/{provider}/discovery/start.
func (m *Module) startDiscovery(w http.ResponseWriter, r *http.Request) { m.start(w, r, true) }

// start checks everything that can be checked before the browser leaves
// (project, product, provider configuration, organization, redirect URLs,
// PKCE challenge) and answers a catalogue error for any of it: a flow that
// cannot finish must not start. A start served under another host name
// than the base URL's goes there first (flowtoken.ToCallbackHost), so that
// the binding cookie is set where the callback is.
func (m *Module) start(w http.ResponseWriter, r *http.Request, discovery bool) {
	w.Header().Set("Cache-Control", "no-store")
	if there, ok := flowtoken.ToCallbackHost(m.d.BaseURL(), r); ok {
		http.Redirect(w, r, there, http.StatusFound)
		return
	}
	cookie, binding := m.binding().NewBinding()
	target, err := m.startURL(r, discovery, binding)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	http.SetCookie(w, cookie)
	http.Redirect(w, r, target, http.StatusFound)
}

// binding is the state binding's cookie, under the current base URL.
func (m *Module) binding() flowtoken.Binding {
	return flowtoken.Binding{Name: bindingCookie, Path: flowtoken.PathOf(m.CallbackURL()),
		Secure: httpapi.HTTPSBase(m.d.BaseURL()), SameSite: http.SameSiteLaxMode, TTL: stateTTL}
}

// startURL checks a start, issues its state ticket bound to binding (the
// hash of the browser's binding cookie) and returns the provider URL.
func (m *Module) startURL(r *http.Request, discovery bool, binding string) (string, error) {
	ctx, q, name := r.Context(), r.URL.Query(), r.PathValue("provider")
	p, err := m.publicProject(ctx, q.Get("public_token"))
	if err != nil {
		return "", err
	}
	if err := m.d.Limiter.Allow(ctx, StartPerIP, p.ID+"|"+httpapi.ClientIP(r)); err != nil {
		return "", err
	}
	prov, _, err := m.provider(ctx, p.ID, name)
	if err != nil {
		return "", err
	}
	scopes, err := customScopes(q.Get("custom_scopes"))
	if err != nil {
		return "", err
	}
	st := state{Provider: name, Discovery: discovery, Challenge: q.Get("pkce_code_challenge"),
		Verifier: ids.Token(), Nonce: ids.Token(), Scopes: scopes, Binding: binding}
	if err := flowtoken.StartChallenge("pkce_code_challenge", st.Challenge, p.PKCERequiredForOAuth); err != nil {
		return "", err
	}
	if discovery {
		if st.DiscoveryURL, err = m.d.Projects.ResolveRedirectAs(ctx, p.ID, project.RedirectDiscovery, q.Get("discovery_redirect_url"), apierr.NoMatchForOAuthURL); err != nil {
			return "", err
		}
	} else {
		org, err := m.startOrganizationOf(ctx, p, q)
		if err != nil {
			return "", err
		}
		st.OrganizationID = org.OrganizationID
		if st.LoginURL, err = m.d.Projects.ResolveRedirectAs(ctx, p.ID, project.RedirectLogin, q.Get("login_redirect_url"), apierr.NoMatchForOAuthURL); err != nil {
			return "", err
		}
		if st.SignupURL, err = m.d.Projects.ResolveRedirectAs(ctx, p.ID, project.RedirectSignup, q.Get("signup_redirect_url"), apierr.NoMatchForOAuthURL); err != nil {
			return "", err
		}
	}
	ticket, err := m.d.Flows.Issue(ctx, flowtoken.Issue{Kind: kindState, ProjectID: p.ID, TTL: stateTTL, Data: st})
	if err != nil {
		return "", err
	}
	return prov.AuthCodeURL(m.authRequest(ticket, st, providerParams(q))), nil
}

func (m *Module) authRequest(ticket string, st state, params map[string]string) providers.AuthRequest {
	return providers.AuthRequest{State: ticket, RedirectURI: m.CallbackURL(), Nonce: st.Nonce, Verifier: st.Verifier,
		Scopes: st.Scopes, Params: params}
}

// providerParams collects provider_{key}=value as key=value.
func providerParams(q url.Values) map[string]string {
	out := map[string]string{}
	for k, vs := range q {
		if key, ok := strings.CutPrefix(k, "provider_"); ok && key != "" && len(vs) > 0 {
			out[key] = vs[0]
		}
	}
	return out
}

// publicProject resolves the public token of a browser start.
func (m *Module) publicProject(ctx context.Context, token string) (*project.Project, error) {
	if token == "" {
		return nil, apierr.New(apierr.PublicTokenRequired)
	}
	p, err := m.d.Resolver.ByPublicToken(ctx, token)
	if err != nil {
		return nil, err
	}
	if !p.HasProduct(Product) {
		return nil, apierr.New(apierr.EndpointNotAuthorizedForSDK).WithDetails(map[string]any{"product": Product})
	}
	return p, nil
}

// startOrganizationOf finds the organization named by organization_id or
// slug.
func (m *Module) startOrganizationOf(ctx context.Context, p *project.Project, q url.Values) (*organization.Organization, error) {
	var org *organization.Organization
	var err error
	switch {
	case q.Get("organization_id") != "":
		org, err = m.d.Orgs.Get(ctx, p.ID, q.Get("organization_id"))
	case q.Get("slug") != "":
		org, err = m.d.Orgs.BySlug(ctx, p.ID, q.Get("slug"))
	default:
		return nil, apierr.Invalid("organization_id", "organization_id or slug is required.")
	}
	if err != nil {
		return nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	return org, nil
}

// callback serves GET /v1/b2b/public/oauth/callback, the redirect URI of
// every provider.
func (m *Module) callback(w http.ResponseWriter, r *http.Request) {
	target, err := m.callbackURL(r)
	if err != nil {
		httpapi.WriteError(w, r, err)
		return
	}
	w.Header().Set("Cache-Control", "no-store")
	// The flow the cookie bound is over. A refused callback leaves it: it
	// may bind another flow of this browser.
	http.SetCookie(w, m.binding().Removal())
	http.Redirect(w, r, target, http.StatusFound)
}

func (m *Module) callbackURL(r *http.Request) (string, error) {
	ctx, q, ip := r.Context(), r.URL.Query(), httpapi.ClientIP(r)
	var st state
	var projectID string
	var refused error
	// CallbackPerIP is counted per project and client address, and only
	// the state names the project, so the callback is counted in the
	// transaction that spends the state: one over the limit rolls the
	// spending back, and the person's state is left for a retry once the
	// window ends (or from another address). A state refused for its
	// binding or a provider's error is spent all the same (that
	// transaction commits) and, as before, not counted.
	err := m.d.Flows.RedeemThen(ctx, flowtoken.Redeem{Kind: kindState, Token: q.Get("state"), LimitKey: "oauth_state|" + ip},
		func(tx store.Querier, t *flowtoken.Ticket) error {
			refused, projectID = nil, "" // a retried transaction starts over
			if err := t.Decode(&st); err != nil {
				return err
			}
			// After the redemption: a state that reached another browser is
			// spent there, and cannot be tried again from the one it was
			// issued to.
			if !m.binding().Held(r, st.Binding) {
				refused = apierr.New(apierr.OAuthStateMismatch)
				return nil
			}
			if e := q.Get("error"); e != "" {
				refused = apierr.New(apierr.OAuthFlowCallbackError).WithDetails(map[string]any{"provider_error": e,
					"provider_error_description": q.Get("error_description")})
				return nil
			}
			projectID = t.ProjectID
			return m.d.Limiter.AllowIn(ctx, tx, CallbackPerIP, t.ProjectID+"|"+ip)
		})
	if err != nil {
		if errors.Is(err, flowtoken.ErrInvalid) {
			return "", apierr.Wrap(apierr.OAuthFlowCallbackError, err).
				WithMessage("The OAuth state is missing, unknown, expired or already used. Please start the login again.")
		}
		return "", err
	}
	if refused != nil {
		return "", refused
	}
	p, err := m.d.Projects.ByID(ctx, projectID)
	if err != nil {
		return "", err
	}
	prov, _, err := m.provider(ctx, p.ID, st.Provider)
	if err != nil {
		return "", err
	}
	id, err := prov.Exchange(ctx, q.Get("code"), m.authRequest("", st, nil))
	if err != nil {
		return "", apierr.Wrap(apierr.OAuthFlowCallbackError, err)
	}
	return m.redirectWithToken(ctx, p, st, id)
}

// redirectWithToken stores the identity in a single-use token ticket and
// returns the customer URL carrying it: the discovery URL, or the login
// URL for an existing member and the signup URL otherwise. Every provider
// answer (callback and One Tap) becomes a login here, so this is where its
// address is normalized (normalizeEmail).
func (m *Module) redirectWithToken(ctx context.Context, p *project.Project, st state, id *providers.Identity) (string, error) {
	if err := normalizeEmail(id); err != nil {
		return "", err
	}
	tokens, err := m.sealTokens(p.ID, id.Tokens)
	if err != nil {
		return "", err
	}
	pending := pendingLogin{Provider: st.Provider, OrganizationID: st.OrganizationID, Identity: *id, SealedTokens: tokens}
	pending.Identity.Tokens = providers.Tokens{}
	kind, tokenType, target := kindToken, TokenType, st.DiscoveryURL
	if st.Discovery {
		kind, tokenType = kindDiscovery, DiscoveryTokenType
	} else {
		target = st.SignupURL
		if m.isMember(ctx, p, st.OrganizationID, st.Provider, id) {
			target = st.LoginURL
		}
	}
	ticket, err := m.d.Flows.Issue(ctx, flowtoken.Issue{Kind: kind, ProjectID: p.ID, TTL: tokenTTL, Challenge: st.Challenge, Data: pending})
	if err != nil {
		return "", err
	}
	return flowtoken.TokenLink(target, tokenType, ticket, nil)
}

// normalizeEmail puts the provider's address in the form every address
// Latchkey stores has (emailaddr.Normalize), before it finds, admits or
// verifies a member: providers only lower-case it, and an address the rest
// of the system refuses (surrounding space, no domain, too long) would
// otherwise become a member's. An unusable address is refused
// (invalid_email); no address at all stays "" (memberFor decides).
func normalizeEmail(id *providers.Identity) error {
	if id.Email == "" {
		return nil
	}
	email, err := emailaddr.Normalize(id.Email)
	if err != nil {
		return apierr.Wrap(apierr.InvalidEmail, err).
			WithMessage("The OAuth provider's email address for this account is not a usable email address.")
	}
	id.Email = email
	return nil
}
