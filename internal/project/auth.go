package project

import (
	"context"
	"errors"
	"net/http"
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/ratelimit"
)

type ctxKey int

const callerKey ctxKey = iota

// Caller is who is calling: the project, and on the SDK face the session
// token sent as the Basic-auth password ("" when the SDK sent its public
// token again, i.e. no session).
type Caller struct {
	Project      *Project
	SessionToken string
}

// CallerFrom returns the authenticated caller. Routes behind SDKAuth or
// BackendAuth always have one.
func CallerFrom(ctx context.Context) Caller {
	c, _ := ctx.Value(callerKey).(Caller)
	return c
}

// WithCaller stores c in ctx (used by the auth middleware and by tests).
func WithCaller(ctx context.Context, c Caller) context.Context {
	return context.WithValue(ctx, callerKey, c)
}

// Resolver finds projects by credential, caching public-token lookups
// briefly: the SDK face resolves the token on every request (CORS and
// auth), and projects change rarely.
type Resolver struct {
	store   *Store
	limiter *ratelimit.Limiter
	ttl     time.Duration
	mu      sync.Mutex
	cache   map[string]cached
}

type cached struct {
	p   *Project
	exp time.Time
}

// NewResolver returns a resolver over s; l throttles failed secret checks.
func NewResolver(s *Store, l *ratelimit.Limiter) *Resolver {
	return &Resolver{store: s, limiter: l, ttl: 5 * time.Second, cache: map[string]cached{}}
}

// SecretFailuresPerIP bounds wrong project secrets per client address.
var SecretFailuresPerIP = ratelimit.Rule{Name: "secret_fail_ip", Limit: 30, Window: 10 * time.Minute}

// ByPublicToken resolves a public token.
func (r *Resolver) ByPublicToken(ctx context.Context, token string) (*Project, error) {
	now := time.Now()
	r.mu.Lock()
	c, ok := r.cache[token]
	r.mu.Unlock()
	if ok && now.Before(c.exp) {
		return c.p, nil
	}
	p, err := r.store.ByPublicToken(ctx, token)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if len(r.cache) > 10000 {
		clear(r.cache) // bounded memory; the cache is only an accelerator
	}
	r.cache[token] = cached{p: p, exp: now.Add(r.ttl)}
	r.mu.Unlock()
	return p, nil
}

// SDKAuth authenticates the SDK face: Basic public_token:secret, where the
// secret is a session token or the public token again.
func (r *Resolver) SDKAuth() httpapi.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			user, pass, ok := req.BasicAuth()
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
		return apierr.New(apierr.InvalidPublicToken)
	}
	return apierr.Wrap(apierr.InternalServerError, err)
}

// BackendAuth authenticates the backend face: Basic project_id:secret.
func (r *Resolver) BackendAuth() httpapi.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			id, secret, ok := req.BasicAuth()
			if !ok {
				httpapi.WriteError(w, req, apierr.New(apierr.InvalidSecretAuthentication).
					WithMessage("Send Authorization: Basic base64(project_id:secret)."))
				return
			}
			var p *Project
			err := r.limiter.GuardUnguessable(req.Context(), func() error {
				var err error
				p, err = r.store.CheckSecret(req.Context(), id, secret)
				return err
			}, IsNotFound, ratelimit.For(SecretFailuresPerIP, httpapi.ClientIP(req)))
			if err != nil {
				if IsNotFound(err) {
					err = apierr.Wrap(apierr.InvalidSecretAuthentication, err)
				}
				httpapi.WriteError(w, req, err)
				return
			}
			next.ServeHTTP(w, req.WithContext(WithCaller(req.Context(), Caller{Project: p})))
		})
	}
}

// OriginPolicy decides CORS for the SDK face: the server's own origin is
// always allowed; otherwise the origin must be authorized for the project
// named by the public token (for preflights, by any project).
type OriginPolicy struct {
	Resolver   *Resolver
	BaseOrigin string
}

// AllowOrigin implements httpapi.OriginPolicy.
func (o OriginPolicy) AllowOrigin(req *http.Request, origin string, preflight bool) bool {
	if origin == o.BaseOrigin {
		return true
	}
	ctx := req.Context()
	if preflight {
		ok, err := o.Resolver.store.AnyOriginAllowed(ctx, origin)
		return err == nil && ok
	}
	user, _, hasAuth := req.BasicAuth()
	if !hasAuth {
		// Telemetry posts carry no credentials; the events handler checks
		// the origin against the project named in the body.
		ok, err := o.Resolver.store.AnyOriginAllowed(ctx, origin)
		return err == nil && ok
	}
	p, err := o.Resolver.ByPublicToken(ctx, user)
	if err != nil {
		return false
	}
	ok, err := o.Resolver.store.OriginAllowed(ctx, p.ID, origin)
	return err == nil && ok
}

// RequireOrigin rejects browser requests from origins the project has not
// authorized. CORS alone only stops a page from reading the answer; this
// stops the request from having effects (sending email, etc.).
func (o OriginPolicy) RequireOrigin() httpapi.Middleware {
	return func(next http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
			origin := req.Header.Get("Origin")
			if origin != "" && !o.AllowOrigin(req, origin, false) {
				httpapi.WriteError(w, req, apierr.New(apierr.OriginNotAllowed))
				return
			}
			next.ServeHTTP(w, req)
		})
	}
}

// ErrNoProduct is returned by RequireProduct's callers when a product is off.
var ErrNoProduct = errors.New("project: product not enabled")

// RequireProduct returns product_not_enabled when the caller's project has
// not enabled the product.
func RequireProduct(ctx context.Context, product string) error {
	if p := CallerFrom(ctx).Project; p == nil || !p.HasProduct(product) {
		return apierr.Wrap(apierr.ProductNotEnabled, ErrNoProduct).WithDetails(map[string]any{"product": product})
	}
	return nil
}
