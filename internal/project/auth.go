package project

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/store"
)

type ctxKey int

const callerKey ctxKey = iota

// Caller is who is calling: the project, and on the SDK face the session
// token sent as the Basic-auth password ("" when the SDK sent its public
// token again, i.e. no session).
type Caller struct {
	Project      *Project
	SessionToken string
	// Backend is set on the backend face, whose caller holds the project
	// secret: only it may write what a browser must not choose for itself,
	// such as a session's custom claims (session.ClaimsField).
	Backend bool
}

// CallerFrom returns the authenticated caller. Routes behind SDKAuth or
// BackendAuth always have one.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey).(Caller)
	return c
}

// EmailMagicLinkPKCERequired reports whether an email magic-link send
// (for an organization or for discovery) by the caller in ctx must carry
// a PKCE challenge. pkce_required_for_email_magic_links is the browser
// SDK's setting: it makes the widget hold the verifier of every link it
// asks for. A customer's server (the backend face) has no browser
// verifier to send, so the requirement does not refuse its sends; a
// challenge it does send is still checked and bound to the link. A ctx
// with no caller is the browser's, so a path that skipped the
// authentication enforces.
func EmailMagicLinkPKCERequired(ctx context.Context, p *Project) bool {
	return p.PKCERequiredForEmailMagicLinks && !CallerFrom(ctx).Backend
}

// WithCaller stores c in ctx (used by the auth middleware and by tests).
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey, c)
}

// Resolver finds projects by credential. Every API request resolves one
// (public token or secret, and the origin on the SDK face), so the answers
// are cached and dropped through the change feed whenever any project's
// tables change, on this process or another.
type Resolver struct {
	store   *Store
	limiter *ratelimit.Limiter
	cache   *resolverCache
}

// NewResolver returns a resolver over s; l throttles failed secret checks.
// feed must watch the project tables (app.Watches does).
func NewResolver(s *Store, l *ratelimit.Limiter, feed *changefeed.Feed) *Resolver {
	r := &Resolver{store: s, limiter: l, cache: &resolverCache{feed: feed}}
	feed.Subscribe(r.cache.invalidate)
	return r
}

// SecretFailuresPerIP bounds wrong project secrets per client address.
var SecretFailuresPerIP = ratelimit.Rule{Name: "secret_fail_ip", Limit: 30, Window: 10 * time.Minute}

// ByPublicToken resolves a public token.
func (r *Resolver) ByPublicToken(ctx context.Context, token string) (*Project, error) {
	usable, err := r.cache.usable(ctx)
	if err != nil {
		return nil, err
	}
	p, ok, gen := r.cache.tokens.get(token)
	if usable && ok {
		return p, nil
	}
	p, err = r.store.ByPublicToken(ctx, token)
	if err != nil {
		return nil, err
	}
	if usable {
		r.cache.tokens.put(gen, token, p)
	}
	return p, nil
}

// CheckSecret returns the project when secret is one of its secrets.
//
// An unknown project id is remembered like a known one (secretEntry), so
// the id must have a project id's shape first: the Basic-auth username is
// the client's to choose, up to the header limit, and the memo is bounded
// by entries, not bytes. Such an id is refused unread, as not found, so
// the failure still counts against the caller (BackendAuth).
func (r *Resolver) CheckSecret(ctx context.Context, projectID, secret string) (*Project, error) {
	if !ids.Is("project", projectID) {
		return nil, fmt.Errorf("project: %d-byte id is not a project id: %w", len(projectID), store.ErrNotFound)
	}
	usable, err := r.cache.usable(ctx)
	if err != nil {
		return nil, err
	}
	e, ok, gen := r.cache.secrets.get(projectID)
	if !usable || !ok {
		if e, err = r.store.secretEntry(ctx, projectID); err != nil {
			return nil, err
		}
		if usable {
			r.cache.secrets.put(gen, projectID, e)
		}
	}
	if e.p == nil || !e.check(secret) {
		return nil, fmt.Errorf("project: secret mismatch: %w", store.ErrNotFound)
	}
	return e.p, nil
}

// OriginAllowed reports whether origin is authorized for the project, or
// for any project when projectID is "".
//
// An origin that is not one a browser can send (serializedOrigin) could
// match nothing stored, so it is refused without reading the database or
// being remembered. The memo is bounded by entries, not bytes, and
// preflights are unauthenticated: remembering each refusal let a client
// pin hundreds of megabytes with a few hundred huge Origin headers.
// projectID is "" or a project's own id (the caller resolved its public
// token), so a key stays a few hundred bytes. The full check (a URL
// parse, four allocations) runs only on a miss: what the memo holds passed
// it, so a hit needs only the length test.
func (r *Resolver) OriginAllowed(ctx context.Context, projectID, origin string) (bool, error) {
	if len(origin) > maxOriginLen {
		return false, nil
	}
	key := projectID + " " + origin
	usable, err := r.cache.usable(ctx)
	if err != nil {
		return false, err
	}
	ok, found, gen := r.cache.origins.get(key)
	if usable && found {
		return ok, nil
	}
	if !serializedOrigin(origin) {
		return false, nil
	}
	if projectID == "" {
		ok, err = r.store.AnyOriginAllowed(ctx, origin)
	} else {
		ok, err = r.store.OriginAllowed(ctx, projectID, origin)
	}
	if err != nil {
		return false, err
	}
	if usable {
		r.cache.origins.put(gen, key, ok)
	}
	return ok, nil
}

// SDKAuth authenticates the SDK face: Basic public_token:secret, where the
// secret is a session token or the public token again.
func (r *Resolver) SDKAuth() httpapi.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			user, pass, ok := httpapi.BasicAuth(req)
			if !ok || user == "" {
				httpapi.WriteError(w, req, apierr.New(apierr.UnauthorizedCredentials).
					WithMessage("Send Authorization: Basic base64(public_token:session_token_or_public_token)."))
				return
			}
			p, err := r.ByPublicToken(req.Context(), user)
			if err != nil {
				httpapi.WriteError(w, req, publicTokenError(err))
				return
			}
			httpapi.SetProject(req.Context(), p.ID)
			c := Caller{Project: p}
			if pass != user {
				c.SessionToken = pass
			}
			next.ServeHTTP(w, req.WithContext(WithCaller(req.Context(), c)))
		})
	}
}

func publicTokenError(err error) error {
	if IsNotFound(err) {
		return apierr.New(apierr.PublicTokenNotFound)
	}
	return apierr.Wrap(apierr.InternalServerError, err)
}

// BackendAuth authenticates the backend face: Basic project_id:secret.
func (r *Resolver) BackendAuth() httpapi.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			id, secret, ok := httpapi.BasicAuth(req)
			if !ok {
				httpapi.WriteError(w, req, apierr.New(apierr.InvalidSecretAuthentication).
					WithMessage("Send Authorization: Basic base64(project_id:secret)."))
				return
			}
			var p *Project
			err := r.limiter.GuardUnguessable(req.Context(), func() error {
				var err error
				p, err = r.CheckSecret(req.Context(), id, secret)
				return err
			}, IsNotFound, ratelimit.For(SecretFailuresPerIP, httpapi.ClientIP(req)))
			if err != nil {
				if IsNotFound(err) {
					err = apierr.Wrap(apierr.InvalidSecretAuthentication, err)
				}
				httpapi.WriteError(w, req, err)
				return
			}
			httpapi.SetProject(req.Context(), p.ID)
			// The caller is the customer's server, acting for its users:
			// limits per end-user address do not apply (ratelimit.OnBehalf).
			ctx := ratelimit.OnBehalf(WithCaller(req.Context(), Caller{Project: p, Backend: true}))
			next.ServeHTTP(w, req.WithContext(ctx))
		})
	}
}

// OriginPolicy decides CORS for the SDK face: the server's own origin is
// always allowed; otherwise the origin must be authorized for the project
// named by the public token (for preflights, by any project).
type OriginPolicy struct {
	Resolver *Resolver
	// BaseOrigin is the server's own origin as browsers send it
	// (NormalizeOrigin), where only the server's own pages are served, or
	// "" when the server has no origin of its own (a base URL under a
	// path prefix shares its host with other content).
	BaseOrigin string
}

// AllowOrigin implements httpapi.OriginPolicy.
func (o OriginPolicy) AllowOrigin(req *http.Request, origin string, preflight bool) bool {
	if o.BaseOrigin != "" && origin == o.BaseOrigin {
		return true
	}
	ctx := req.Context()
	if preflight {
		ok, err := o.Resolver.OriginAllowed(ctx, "", origin)
		return err == nil && ok
	}
	user, _, hasAuth := httpapi.BasicAuth(req)
	if !hasAuth {
		// Telemetry posts carry no credentials; the events handler checks
		// the origin against the project named in the body.
		ok, err := o.Resolver.OriginAllowed(ctx, "", origin)
		return err == nil && ok
	}
	p, err := o.Resolver.ByPublicToken(ctx, user)
	if err != nil {
		return false
	}
	ok, err := o.Resolver.OriginAllowed(ctx, p.ID, origin)
	return err == nil && ok
}

// AllowsFor reports whether origin may act for the project projectID: the
// server's own origin, or one that project authorizes. It is for requests
// that name their project elsewhere than in their credentials (telemetry
// events carry a public token each): every project they name is checked
// directly, never through the request's credentials. An empty projectID
// names no project and allows nothing (OriginAllowed would read it as
// "any project").
func (o OriginPolicy) AllowsFor(ctx context.Context, projectID, origin string) (bool, error) {
	if o.BaseOrigin != "" && origin == o.BaseOrigin { // as AllowOrigin: no own origin trusts nothing
		return true, nil
	}
	if projectID == "" {
		return false, nil
	}
	return o.Resolver.OriginAllowed(ctx, projectID, origin)
}

// RequireOrigin rejects browser requests from origins the project has not
// authorized. CORS alone only stops a page from reading the answer; this
// stops the request from having effects (sending email, etc.).
func (o OriginPolicy) RequireOrigin() httpapi.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			origin := req.Header.Get("Origin")
			if origin != "" && !o.AllowOrigin(req, origin, false) {
				httpapi.WriteError(w, req, apierr.New(apierr.BadDomainForSDK))
				return
			}
			next.ServeHTTP(w, req)
		})
	}
}

// ErrNoProduct is returned by RequireProduct's callers when a product is off.
var ErrNoProduct = errors.New("project: product not enabled")

// RequireProduct returns endpoint_not_authorized_for_sdk when the caller's project has
// not enabled the product.
func RequireProduct(ctx context.Context, product string) error {
	if p := CallerFrom(ctx).Project; p == nil || !p.HasProduct(product) {
		return apierr.Wrap(apierr.EndpointNotAuthorizedForSDK, ErrNoProduct).WithDetails(map[string]any{"product": product})
	}
	return nil
}
