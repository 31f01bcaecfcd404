// Package app is the composition root: it opens the store, builds every
// service with explicit dependencies, and assembles the HTTP handler from
// the route table in routes.go.
package app

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/mail"
	"net/netip"
	"strings"
	"sync"
	"time"

	"github.com/latchkey/latchkey/internal/atrest"
	"github.com/latchkey/latchkey/internal/audit"
	"github.com/latchkey/latchkey/internal/changefeed"
	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/devmode"
	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/emailupdate"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/idp"
	"github.com/latchkey/latchkey/internal/impersonation"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/metrics"
	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/oauth"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/outbound"
	"github.com/latchkey/latchkey/internal/password"
	"github.com/latchkey/latchkey/internal/password/breach"
	"github.com/latchkey/latchkey/internal/password/pwhash"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/rbac"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/sso"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/trustedauth"
	"github.com/latchkey/latchkey/web/widget"
)

// Options are the collaborators a caller may supply; zero values get the
// production defaults.
type Options struct {
	Clock  clock.Clock
	Logger *slog.Logger
	Widget fs.FS // built widget assets; defaults to the embedded build
	// RSAKeys makes the RSA keys the server generates (projects' signing
	// keys, SAML connections' service-provider keys); nil, as production
	// leaves it, generates fresh RSA-2048 keys. Tests pass a pool of
	// pre-generated keys (internal/apptest/testkeys).
	RSAKeys project.KeySource
}

// App is a fully wired Latchkey server.
type App struct {
	Config   config.Config
	DB       *store.DB
	Clock    clock.Clock
	Log      *slog.Logger
	Projects *project.Store
	Resolver *project.Resolver
	Orgs     *organization.Store
	Sessions *session.Service
	Outbox   *notify.Outbox // nil outside dev mode
	// MailQueue holds email until Start's loop hands it to SMTP; nil
	// without SMTP.
	MailQueue *notify.Queue
	Limiter   *ratelimit.Limiter
	Box       *secretbox.Box   // seals secrets at rest (see package atrest); never nil
	Metrics   *metrics.Metrics // Prometheus collectors, served on /metrics
	Audit     *audit.Log       // security events (logins, lockouts, factor and key changes)
	RBAC      *rbac.Service    // project policies and authorization checks
	// Flows holds the single-use tickets of browser flows (OAuth, SSO,
	// the identity provider); see internal/flowtoken.
	Flows *flowtoken.Store
	// OAuth is the OAuth module (also configured by the CLI).
	OAuth *oauth.Module
	// TrustedAuth is the trusted auth tokens module (its profiles are
	// configured by the CLI).
	TrustedAuth *trustedauth.Service
	// Impersonation is operators acting as members (its tokens are
	// minted by the CLI).
	Impersonation *impersonation.Service
	// SSO is the SSO module (also configured by dev mode's seed).
	SSO *sso.Service
	// DevSAML and DevOIDC are dev mode's built-in identity providers
	// (nil outside dev mode), which the dev seed wires the demo to.
	DevSAML *devmode.SAMLIdP
	DevOIDC *devmode.OIDCIdP
	// Feed tells the caches which rows changed, on any process (see
	// internal/changefeed); Start runs its poll.
	Feed *changefeed.Feed

	loops sync.WaitGroup // background loops started by Start
	stop  context.CancelFunc
	// onClose runs after the loops have stopped (the SMTP connections the
	// outbox keeps open).
	onClose []func() error

	magicLinks  *magiclink.Service
	emailOTP    *emailotp.Service
	passwords   *password.Service
	discovery   *discovery.Service
	mfa         *mfa.Service
	emailUpdate *emailupdate.Service
	mailer      notify.Mailer
	widget      fs.FS
	modules     []Module
	// idp is the identity provider module, also in modules; member
	// deletion ends its tokens (memberSessions).
	idp *idp.Module
	// trustedProxies are the parsed LATCHKEY_TRUSTED_PROXIES.
	trustedProxies []netip.Prefix
	// ssoFetch is the guarded client of SSO's fetches of URLs an
	// organization's administrator names (LATCHKEY_SSO_ALLOWED_NETWORKS).
	ssoFetch *outbound.Guard
	// rsaKeys is Options.RSAKeys, for the modules wired after the core.
	rsaKeys project.KeySource
	routes  routeTable // what Handler mounted; see RouteTable
}

// New opens and migrates the database and wires the services.
func New(ctx context.Context, cfg config.Config, opt Options) (*App, error) {
	if err := cfg.Validate(); err != nil {
		return nil, err
	}
	db, err := store.Open(ctx, cfg.DatabaseURL)
	if err != nil {
		return nil, err
	}
	a, err := NewWithDB(ctx, cfg, db, opt)
	if err != nil {
		db.Close()
		return nil, err
	}
	return a, nil
}

// NewWithDB wires the services on an open database (tests use it to run
// the real handler on their own database); it applies the migrations and
// installs the change-feed triggers itself (MigrateDB). The caller owns db.
func NewWithDB(ctx context.Context, cfg config.Config, db *store.DB, opt Options) (*App, error) {
	if opt.Clock == nil {
		opt.Clock = clock.Real{}
	}
	if opt.Logger == nil {
		opt.Logger = slog.Default()
	}
	if err := MigrateDB(ctx, db); err != nil {
		return nil, err
	}
	if msg, err := NewerSchemaWarning(ctx, db); err != nil {
		return nil, err
	} else if msg != "" {
		opt.Logger.Warn(msg)
	}
	if opt.Widget == nil {
		opt.Widget = widget.Dist()
	}
	var err error
	a := &App{Config: cfg, DB: db, Clock: opt.Clock, Log: opt.Logger, widget: opt.Widget,
		Metrics: metrics.New(), Audit: audit.New(db, opt.Clock)}
	if a.Box, err = openBox(cfg, opt.Logger); err != nil {
		return nil, err
	}
	if err := CheckEncryptionKey(ctx, db, a.Box); err != nil {
		if errors.Is(err, ErrWrongEncryptionKey) && cfg.EncryptionKey == "" {
			// openBox made a key up for this process (dev mode).
			return nil, errNoKeyForSealed
		}
		return nil, err
	}
	if a.trustedProxies, err = httpapi.ParseTrustedProxies(cfg.TrustedProxies); err != nil {
		return nil, fmt.Errorf("LATCHKEY_TRUSTED_PROXIES: %w", err)
	}
	allow, err := outbound.ParseAllowlist(cfg.SSOAllowedNetworks)
	if err != nil {
		return nil, fmt.Errorf("LATCHKEY_SSO_ALLOWED_NETWORKS: %w", err)
	}
	a.ssoFetch = outbound.New(allow)
	a.Feed = changefeed.New(db, opt.Logger)
	a.Projects = project.NewStore(db, opt.Clock, a.Box)
	a.rsaKeys = opt.RSAKeys
	a.Projects.UseKeySource(opt.RSAKeys)
	a.Limiter = ratelimit.New(db, opt.Clock)
	a.Resolver = project.NewResolver(a.Projects, a.Limiter, a.Feed)
	a.Flows = flowtoken.New(db, opt.Clock, a.Limiter)
	a.Orgs = organization.NewStore(db, opt.Clock)
	a.Sessions = session.New(db, opt.Clock, a.Orgs, a.Projects, a.Feed)
	a.Sessions.LimitFailures(a.Limiter)
	a.Orgs.UseCache(a.Sessions)
	if a.mailer, err = a.buildMailer(); err != nil {
		return nil, err
	}
	a.magicLinks = magiclink.New(magiclink.Deps{DB: db, Clock: opt.Clock, Projects: a.Projects, Orgs: a.Orgs,
		Sessions: a.Sessions, Mailer: a.mailer, Limiter: a.Limiter})
	a.emailOTP = emailotp.New(emailotp.Deps{DB: db, Clock: opt.Clock, Orgs: a.Orgs, Sessions: a.Sessions,
		Mailer: a.mailer, Limiter: a.Limiter, Box: a.Box})
	a.discovery = discovery.New(discovery.Deps{DB: db, Clock: opt.Clock, Projects: a.Projects, Orgs: a.Orgs,
		Sessions: a.Sessions, Mailer: a.mailer, Limiter: a.Limiter, Box: a.Box})
	a.passwords, err = password.New(password.Deps{DB: db, Clock: opt.Clock, Projects: a.Projects, Orgs: a.Orgs,
		Sessions: a.Sessions, Mailer: a.mailer, Limiter: a.Limiter, MagicLinks: a.magicLinks, Discovery: a.discovery,
		Breach:  breach.New(cfg.BreachAPIURL, opt.Clock, nil),
		Hashing: pwhash.Params{MemoryKiB: cfg.Argon2MemoryKiB, Iterations: cfg.Argon2Iterations, Parallelism: cfg.Argon2Parallelism}})
	if err != nil {
		return nil, err
	}
	// Every module keeping a secret emailed to a member, or a session of
	// one: an address change or a deletion ends them in its transaction.
	a.Orgs.AddAddressHolder(a.Sessions, a.magicLinks, a.emailOTP, a.passwords)
	// The password is an address's while a member row holds it: an
	// organization's deletion or a purge that removes its last row ends it.
	a.Orgs.AddRemovalHook(a.passwords)
	// A first proof of an address that ended unproven access (oauth) ends
	// the sessions and logins whoever came in that way started.
	a.Orgs.AddMemberAccessEnder(a.Sessions.EndMember)
	// A roles change ends the sessions an SSO connection keeps the role in.
	a.Orgs.UseConnectionSessions(a.Sessions)
	// An admin's invite or creation that replaces a deleted member records
	// the old member's end.
	a.Orgs.UseAudit(a.Audit)
	if err := a.wireMFA(); err != nil {
		return nil, err
	}
	a.emailUpdate = emailupdate.New(emailupdate.Deps{DB: db, Projects: a.Projects, Orgs: a.Orgs, MagicLinks: a.magicLinks,
		EmailOTP: a.emailOTP, Mailer: a.mailer, Limiter: a.Limiter})
	if err := a.wireModules(); err != nil {
		return nil, err
	}
	if err := a.migrateSecrets(ctx); err != nil {
		return nil, err
	}
	if n, err := atrest.SealExisting(ctx, db, a.Box, SealedColumns()...); err != nil {
		return nil, fmt.Errorf("app: seal secrets at rest: %w", err)
	} else if n > 0 {
		a.Log.Info("sealed plaintext secrets with the encryption key", "count", n)
	}
	return a, nil
}

// ErrNoEncryptionKey is the start-up error outside dev mode without a key.
var ErrNoEncryptionKey = errors.New("LATCHKEY_ENCRYPTION_KEY is required outside dev mode: 32 random bytes in " +
	"standard base64 (openssl rand -base64 32); it encrypts signing keys, TOTP secrets, recovery codes and OAuth client secrets at rest")

// ErrWrongEncryptionKey is the start-up error when the configured key does
// not open the secrets already sealed in the database. It names no key.
var ErrWrongEncryptionKey = errors.New("LATCHKEY_ENCRYPTION_KEY is not the key this database's secrets are sealed with: " +
	"start with that key (nothing was sealed with this one)")

// errNoKeyForSealed is the dev-mode start-up error without a key on a
// database whose secrets are sealed.
var errNoKeyForSealed = errors.New("the database holds secrets sealed with an encryption key, and none is configured: " +
	"set LATCHKEY_ENCRYPTION_KEY to that key")

// CheckEncryptionKey refuses a key that does not open the secrets already
// sealed in db (atrest.CheckKey). NewWithDB and the CLI run it after the
// migrations and before anything is sealed, so a mistyped key never leaves
// the database under two keys.
func CheckEncryptionKey(ctx context.Context, db *store.DB, box *secretbox.Box) error {
	err := atrest.CheckKey(ctx, db, box, SealedColumns()...)
	switch {
	case errors.Is(err, atrest.ErrWrongKey):
		return ErrWrongEncryptionKey
	case err != nil:
		return fmt.Errorf("app: check the encryption key: %w", err)
	}
	return nil
}

// openBox builds the box that seals secrets at rest. Dev mode without a
// key (tests that wire the app directly) gets a key for this process only;
// `latchkey dev` itself keeps one in the data folder (see package cli).
func openBox(cfg config.Config, log *slog.Logger) (*secretbox.Box, error) {
	raw := cfg.EncryptionKey
	if raw == "" {
		if !cfg.Dev {
			return nil, ErrNoEncryptionKey
		}
		log.Warn("no LATCHKEY_ENCRYPTION_KEY: secrets at rest use a key for this process only")
		raw = secretbox.NewKey()
	}
	key, err := secretbox.ParseKey(raw)
	if err != nil {
		// Never echo the key itself.
		return nil, errors.New("LATCHKEY_ENCRYPTION_KEY must be 32 random bytes in standard base64 (openssl rand -base64 32)")
	}
	return secretbox.New(key)
}

// errNoMailer is what sends fail with when no delivery is configured.
var errNoMailer = errors.New("app: no email delivery configured: set LATCHKEY_SMTP_URL")

type noMailer struct{}

func (noMailer) Send(context.Context, notify.Email) error { return errNoMailer }

// buildMailer sends through SMTP when configured and, in dev mode, always
// into the dev mailbox as well. SMTP goes through the durable queue
// (delivered by Start's loop), sealed with the encryption key, so no
// request waits on the mail server.
func (a *App) buildMailer() (notify.Mailer, error) {
	var ms []notify.Mailer
	if a.Config.SMTPURL != "" {
		smtp, err := notify.NewSMTP(a.Config.SMTPURL, a.Config.EmailFrom)
		if err != nil {
			return nil, fmt.Errorf("app: smtp: %w", err)
		}
		// The queue hands messages to SMTP off the request path; metrics
		// count the real deliveries.
		a.MailQueue = notify.NewQueue(a.DB, a.Clock, a.Box, a.Metrics.Mailer("smtp", smtp), a.Log)
		a.onClose = append(a.onClose, smtp.Close)
		ms = append(ms, a.MailQueue)
	}
	if a.Config.Dev {
		a.Outbox = notify.NewOutbox(a.DB, a.Clock)
		ms = append(ms, a.Outbox)
	}
	var m notify.Mailer
	switch len(ms) {
	case 0:
		a.Log.Warn("no email delivery configured; email logins will fail until LATCHKEY_SMTP_URL is set")
		return noMailer{}, nil
	case 1:
		m = ms[0]
	default:
		m = notify.Fanout(ms...)
	}
	// Every email the server sends passes here: the per-recipient cap
	// across organizations and flows is applied once, to all of them
	// that the SDK face asks for (the backend face is left alone, see
	// notify.SendPerRecipient).
	return notify.Capped(m, a.Limiter), nil
}

// closeFlush bounds Close's last write of pending last_accessed_at
// touches: a database that does not answer must not keep a stopping
// process from ever exiting.
const closeFlush = 5 * time.Second

// Close writes what the background loops still hold (pending
// last_accessed_at touches, for at most closeFlush: what is not written
// by then is logged and lost), closes the SMTP connections kept open, and
// releases the database.
func (a *App) Close() error {
	if a.stop != nil {
		a.stop()
	}
	a.loops.Wait()
	ctx, cancel := context.WithTimeout(context.Background(), closeFlush)
	defer cancel()
	flushErr := a.Sessions.FlushTouches(ctx)
	if n := a.Sessions.PendingTouches(); flushErr != nil && n > 0 {
		a.Log.Warn("last_accessed_at of sessions not written at shutdown", "sessions", n, "error", flushErr)
	}
	errs := []error{flushErr}
	for _, f := range a.onClose {
		errs = append(errs, f())
	}
	return errors.Join(append(errs, a.DB.Close())...)
}

// emailDomain is the sender's domain, shown by the widget as an inbox hint.
func (a *App) emailDomain() string {
	addr, err := mail.ParseAddress(a.Config.EmailFrom)
	if err != nil {
		return ""
	}
	_, d, _ := strings.Cut(addr.Address, "@")
	return d
}
