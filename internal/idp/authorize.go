package idp

import (
	"context"
	"errors"
	"math"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/connectedapps"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// AuthorizeRequest is the authorization request as both faces receive it
// (api-reference 3.14 and 5.4): the relying party's parameters, passed
// through by the widget or the customer's backend.
type AuthorizeRequest struct {
	ClientID            string   `json:"client_id"`
	RedirectURI         string   `json:"redirect_uri"`
	ResponseType        string   `json:"response_type"`
	Scopes              []string `json:"scopes"`
	Prompt              string   `json:"prompt"`
	State               string   `json:"state"`
	Nonce               string   `json:"nonce"`
	CodeChallenge       string   `json:"code_challenge"`
	CodeChallengeMethod string   `json:"code_challenge_method"`
	Resources           []string `json:"resources"`
	ConsentGranted      bool     `json:"consent_granted"`
	// MaxAge is OIDC's max_age: the most seconds since the member last
	// authenticated that the client accepts.
	MaxAge *MaxAge `json:"max_age"`
	// Backend face: who is authorizing.
	OrganizationID string `json:"organization_id"`
	MemberID       string `json:"member_id"`
	SessionToken   string `json:"session_token"`
	SessionJWT     string `json:"session_jwt"`
}

// Client is the app as the consent screen shows it.
type Client struct {
	ClientID          string `json:"client_id"`
	ClientType        string `json:"client_type"`
	ClientName        string `json:"client_name"`
	ClientDescription string `json:"client_description"`
	ClientLogoURL     string `json:"client_logo_url,omitempty"`
}

// authorizer is who authorizes: a member of an organization, the roles
// they act with, and when they last authenticated (authTime; zero when
// unknown, see authTimeOf).
type authorizer struct {
	member   *organization.Member
	org      *organization.Organization
	roles    []string
	authTime time.Time
	// impersonated: the session is an operator's visit, which may log
	// out but authorizes no connected app (Faces.sessionOrNone).
	impersonated bool
	// lineage is the member session's lineage (session.MemberSession.
	// Lineage: the same across step-ups), which the ID tokens' sid is
	// derived from; "" when the backend named the member without a
	// session.
	lineage string
}

// prepared is a validated authorization request.
type prepared struct {
	app     *connectedapps.App
	scopes  []string // as requested
	results []ScopeResult
	// granted are the requested scopes the member may grant the app, in
	// request order: the others are reported not grantable at start and
	// left out of the code (RFC 6749 3.3 lets the server issue fewer
	// scopes than requested; the token response's scope says which).
	granted         []string
	consentRequired bool
	prompts         []string
}

// checkClient validates what must hold before anything may be sent back to
// the redirect URI (RFC 6749 4.1.2.1): a known client and an exactly
// registered redirect URI.
func (p *Provider) checkClient(ctx context.Context, projectID string, req *AuthorizeRequest) (*connectedapps.App, error) {
	if err := httpapi.Required("client_id", req.ClientID); err != nil {
		return nil, err
	}
	if err := httpapi.Required("redirect_uri", req.RedirectURI); err != nil {
		return nil, err
	}
	app, err := p.apps.Get(ctx, projectID, req.ClientID)
	if err != nil {
		return nil, connectedapps.NotFound(err)
	}
	if !flowtoken.Exact(app.RedirectURLs, req.RedirectURI) {
		return nil, apierr.New(apierr.InvalidRedirectURI)
	}
	return app, nil
}

// forClient is an error found in an authorization request after its
// client and redirect URI were validated. submit sends it to the client
// at the redirect URI with its RFC 6749 4.1.2.1 error code, as the client
// must learn why its request failed; start answers the catalogue error it
// wraps to the widget (or the customer's backend), as before.
type forClient struct {
	code string // RFC 6749 4.1.2.1 error code
	err  error  // the catalogue error; its message is the description
}

func (e *forClient) Error() string { return e.code + ": " + e.err.Error() }
func (e *forClient) Unwrap() error { return e.err }

// prepare validates the rest of the request for an authorizer.
func (p *Provider) prepare(ctx context.Context, projectID string, req *AuthorizeRequest, who *authorizer) (*prepared, error) {
	app, err := p.checkClient(ctx, projectID, req)
	if err != nil {
		return nil, err
	}
	invalid := func(err error) error { return &forClient{"invalid_request", err} }
	if req.ResponseType != "" && req.ResponseType != "code" {
		return nil, &forClient{"unsupported_response_type", apierr.New(apierr.UnsupportedResponseType)}
	}
	// absentMethodIsS256: a request without code_challenge_method is
	// S256, not RFC 7636 4.3's plain. The vendor's IdP widget reads
	// code_challenge from the page but not code_challenge_method, and its
	// Node client's authorize has no such field (api-reference 3.14,
	// 5.4): every S256 client behind them arrives without it, so refusing
	// the absence would end PKCE (and public clients) for apps written for
	// those SDKs, and reading it as plain would fail each of them at the
	// token step. A client that meant plain is told so: here when its
	// challenge cannot be an S256 one, at the token endpoint when it could
	// (flowtoken.ErrPlainVerifier). The discovery document names S256
	// alone.
	if req.CodeChallengeMethod != "" && req.CodeChallengeMethod != "S256" {
		return nil, invalid(apierr.Invalid("code_challenge_method", "code_challenge_method must be S256."))
	}
	if req.CodeChallenge != "" && !flowtoken.ValidChallenge(req.CodeChallenge) {
		return nil, invalid(apierr.Invalid("code_challenge", "code_challenge must be base64url(SHA-256(code_verifier)), "+
			"43 characters: code_challenge_method is S256 only, and a request without code_challenge_method is S256."))
	}
	if app.Public() && req.CodeChallenge == "" {
		return nil, invalid(apierr.New(apierr.PKCERequiredForIDPAuthorizationFlow))
	}
	if err := connectedapps.AllowedIn(who.org, app); err != nil {
		return nil, &forClient{"access_denied", err}
	}
	if len(req.Prompt) > maxPromptBytes {
		return nil, invalid(apierr.Invalid("prompt", "prompt must be none, login or consent."))
	}
	pr := &prepared{app: app, scopes: req.Scopes, prompts: parseScopes(req.Prompt)}
	if len(pr.scopes) == 0 {
		pr.scopes = []string{ScopeOpenID, ScopeEmail, ScopeProfile}
	}
	var ok bool
	if pr.scopes, ok = splitScopeList(pr.scopes); !ok {
		return nil, &forClient{"invalid_scope", apierr.New(apierr.InvalidScope).WithMessage(scopeBoundsText())}
	}
	for _, pv := range pr.prompts {
		if pv != "none" && pv != "login" && pv != "consent" {
			return nil, invalid(apierr.Invalid("prompt", "prompt must be none, login or consent."))
		}
	}
	if slices.Contains(pr.prompts, "none") && len(pr.prompts) > 1 {
		return nil, invalid(apierr.Invalid("prompt", "prompt none cannot be combined with other values."))
	}
	pol, err := p.policy(ctx, projectID)
	if err != nil {
		return nil, err
	}
	if pr.results, err = evaluateScopes(app, pol, who, pr.scopes); err != nil {
		return nil, &forClient{"invalid_scope", err}
	}
	for _, r := range pr.results {
		if r.IsGrantable {
			pr.granted = append(pr.granted, r.Scope)
		}
	}
	pr.consentRequired = p.consentRequired(ctx, app, who, pr)
	return pr, nil
}

// consentRequired: first-party apps never ask; otherwise consent on record
// covering the scopes that would be granted is enough (offline_access too,
// when the app bypasses consent for it); prompt=consent always asks. A
// scope the member cannot grant needs no consent, as it is not granted.
func (p *Provider) consentRequired(ctx context.Context, app *connectedapps.App, who *authorizer, pr *prepared) bool {
	if slices.Contains(pr.prompts, "consent") {
		return true
	}
	if app.FirstPartyApp() {
		return false
	}
	need := pr.granted
	if app.BypassConsentForOfflineAccess {
		need = slices.DeleteFunc(slices.Clone(need), func(s string) bool { return s == ScopeOfflineAccess })
	}
	g, err := p.apps.GrantOf(ctx, who.member.MemberID, app.ClientID)
	return err != nil || !g.Covers(need)
}

// freshLogin is how recent the session's authentication must be under
// prompt=login (and max_age=0, which OIDC Core 3.1.2.1 equates with it).
const freshLogin = 5 * time.Minute

// loginRequired reports whether the member must log in again first:
// prompt=login and a session that did not just authenticate, or a last
// authentication older than max_age seconds.
func (p *Provider) loginRequired(req *AuthorizeRequest, prompts []string, who *authorizer) bool {
	if who.authTime.IsZero() {
		// No known authentication (authTimeOf) is as old as can be.
		return slices.Contains(prompts, "login") || req.MaxAge != nil
	}
	age := p.clock.Now().Sub(who.authTime)
	if slices.Contains(prompts, "login") && age > freshLogin {
		return true
	}
	if req.MaxAge == nil {
		return false
	}
	if int64(*req.MaxAge) > maxAgeSeconds {
		// Longer than a time.Duration holds (some 292 years): no session
		// is that old. Multiplied out, it wrapped negative and every
		// session was too old, a login that could never satisfy it.
		return false
	}
	limit := time.Duration(*req.MaxAge) * time.Second
	if *req.MaxAge == 0 {
		limit = freshLogin
	}
	return age > limit
}

// StartResult answers authorize/start.
type StartResult struct {
	ConsentRequired bool          `json:"consent_required"`
	Client          Client        `json:"client"`
	ScopeResults    []ScopeResult `json:"scope_results"`
}

func (p *Provider) start(ctx context.Context, projectID string, req *AuthorizeRequest, who *authorizer) (*StartResult, error) {
	if who == nil {
		// prompt=none without a session: the widget submits at once, and
		// submit answers login_required to the client.
		if _, err := p.checkClient(ctx, projectID, req); err != nil {
			return nil, err
		}
		return nil, apierr.New(apierr.LoginRequired)
	}
	pr, err := p.prepare(ctx, projectID, req, who)
	if err != nil {
		return nil, err
	}
	if p.loginRequired(req, pr.prompts, who) {
		return nil, apierr.New(apierr.LoginRequired)
	}
	out := &StartResult{ConsentRequired: pr.consentRequired, ScopeResults: pr.results,
		Client: Client{ClientID: pr.app.ClientID, ClientType: pr.app.ClientType, ClientName: pr.app.ClientName,
			ClientDescription: pr.app.ClientDescription, ClientLogoURL: pr.app.LogoURL}}
	if slices.Contains(pr.prompts, "none") {
		// No screen may be shown: the widget submits at once, and submit
		// answers consent_required to the client if consent is missing.
		out.ConsentRequired = false
	}
	return out, nil
}

// SubmitResult answers authorize/submit: where the browser goes next.
type SubmitResult struct {
	RedirectURI       string `json:"redirect_uri"`
	AuthorizationCode string `json:"authorization_code,omitempty"`
}

// submit finishes the authorization: an error for the client (an invalid
// request found once the redirect URI was validated, access denied,
// nothing grantable, consent or login required) or a single-use code for
// the grantable scopes, in both cases as a redirect to the registered
// redirect URI with state and iss (RFC 9207).
func (p *Provider) submit(ctx context.Context, projectID string, req *AuthorizeRequest, who *authorizer) (*SubmitResult, error) {
	back := func(params url.Values) (*SubmitResult, error) { return p.redirectBack(projectID, req, params) }
	if who == nil {
		// prompt=none without a session (OIDC Core 3.1.2.6).
		if _, err := p.checkClient(ctx, projectID, req); err != nil {
			return nil, err
		}
		return back(url.Values{"error": {"login_required"}, "error_description": {"No active session."}})
	}
	pr, err := p.prepare(ctx, projectID, req, who)
	var fc *forClient
	if errors.As(err, &fc) {
		return back(url.Values{"error": {fc.code}, "error_description": {httpapi.PublicError(fc.err).Message}})
	}
	if err != nil {
		return nil, err
	}
	if p.loginRequired(req, pr.prompts, who) {
		return back(url.Values{"error": {"login_required"}, "error_description": {"The member must log in again."}})
	}
	if len(pr.granted) == 0 {
		// Nothing the client asked for can be granted: the client learns
		// it (RFC 6749 4.1.2.1); the member is not left on an error page.
		return back(url.Values{"error": {"access_denied"},
			"error_description": {"None of the requested scopes can be granted: " + strings.Join(pr.scopes, " ") + "."}})
	}
	if pr.consentRequired && !req.ConsentGranted {
		if slices.Contains(pr.prompts, "none") {
			return back(url.Values{"error": {"consent_required"}, "error_description": {"The member has not consented to this app."}})
		}
		return back(url.Values{"error": {"access_denied"}, "error_description": {"Access to the application was denied."}})
	}
	var code string
	err = p.db.Tx(ctx, func(q store.Querier) error {
		// The scopes were checked against the policy as read before this
		// transaction. A change since that removed one of them also
		// removed it from every consent (rbac's DropScopes), and writing
		// it back here would let a scope of that name defined again later
		// skip consent. So the policy is read again, under its lock
		// (HoldPolicy, first, as lockPolicy's holders take it): a change
		// that committed is seen, and one that has not waits for this
		// transaction and then prunes what it wrote.
		pol, err := p.holdPolicy(ctx, q, projectID)
		if err != nil {
			return err
		}
		granted := definedScopes(pol, pr.granted)
		if len(granted) == 0 {
			return errNothingGrantable
		}
		// The session was checked before this transaction: an address
		// change since ended it, and must not leave a grant or code.
		if err := p.holdMember(ctx, q, projectID, who.member.MemberID, who.member.EmailAddress); err != nil {
			return err
		}
		if err := p.apps.SaveGrant(ctx, q, connectedapps.Grant{MemberID: who.member.MemberID,
			OrganizationID: who.org.OrganizationID, ClientID: pr.app.ClientID, Scopes: granted}); err != nil {
			return err
		}
		code, err = p.flows.IssueIn(ctx, q, flowtoken.Issue{Kind: codeKind, ProjectID: projectID, TTL: codeTTL,
			Challenge: req.CodeChallenge, LimitKey: projectID + "|" + who.member.MemberID,
			Data: codeData{ClientID: pr.app.ClientID, RedirectURI: req.RedirectURI, MemberID: who.member.MemberID,
				OrganizationID: who.org.OrganizationID, Scopes: granted, Nonce: req.Nonce,
				AuthTime: unixAuthTime(who.authTime), PKCE: req.CodeChallenge != "", Email: who.member.EmailAddress,
				SID: sessionSID(who.lineage)}})
		return err
	})
	if errors.Is(err, errAddressChanged) {
		return back(url.Values{"error": {"login_required"}, "error_description": {"The member must log in again."}})
	}
	if errors.Is(err, errNothingGrantable) {
		return back(url.Values{"error": {"access_denied"},
			"error_description": {"None of the requested scopes can be granted: " + strings.Join(pr.scopes, " ") + "."}})
	}
	if err != nil {
		return nil, err
	}
	return back(url.Values{"code": {code}})
}

// errNothingGrantable ends a submit whose grantable scopes all left the
// policy after they were checked: answered as when none was grantable.
var errNothingGrantable = errors.New("idp: no requested scope is defined any longer")

// authTimeOf is when the member last authenticated in a session (OIDC
// auth_time), by the rule step-up follows (session.AuthenticatedAt): a
// session exchanged from an access token, migrated from another provider
// or impersonated shows no authentication of the member's own, and its
// start is no such time. Its auth_time is unknown (zero): it meets no
// max_age and no prompt=login (loginRequired), and its ID tokens carry no
// auth_time claim, which OIDC Core 2 requires only under max_age.
func authTimeOf(ms *session.MemberSession) time.Time {
	t, _ := ms.AuthenticatedAt()
	return t
}

// redirectBack builds the authorization response (RFC 6749 4.1.2, 4.1.2.1)
// at the already validated redirect URI, with state and iss (RFC 9207).
func (p *Provider) redirectBack(projectID string, req *AuthorizeRequest, params url.Values) (*SubmitResult, error) {
	if req.State != "" {
		params.Set("state", req.State)
	}
	params.Set("iss", p.Issuer(projectID))
	u, err := flowtoken.WithQuery(req.RedirectURI, params)
	if err != nil {
		return nil, apierr.Wrap(apierr.InvalidRedirectURI, err)
	}
	return &SubmitResult{RedirectURI: u, AuthorizationCode: params.Get("code")}, nil
}

// maxAgeSeconds is the longest max_age a time.Duration can express.
const maxAgeSeconds = int64(math.MaxInt64 / time.Second)

// MaxAge is max_age as the widget forwards it from the page address (a
// string) or a backend sends it (a number): a non-negative integer.
type MaxAge int64

// UnmarshalJSON accepts a number or a string of digits.
func (m *MaxAge) UnmarshalJSON(b []byte) error {
	s := strings.Trim(string(b), `"`)
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil || n < 0 {
		return apierr.Invalid("max_age", "max_age must be a non-negative integer (seconds).")
	}
	*m = MaxAge(n)
	return nil
}
