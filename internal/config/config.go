// Package config is Latchkey's typed configuration: defaults, then
// LATCHKEY_* environment variables, then command-line flags (applied by the
// cli package), then Validate.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/outbound"
	"github.com/latchkey/latchkey/internal/secretbox"
	"github.com/latchkey/latchkey/internal/store"
)

// Config is everything the server needs to start.
type Config struct {
	Addr        string // listen address, e.g. ":8080"
	DatabaseURL string // SQLite file path or file: URL, or postgres:// URL (store.ParseDSN)
	BaseURL     string // public URL of this server, without trailing slash
	SMTPURL     string // smtp://user:pass@host:port; empty disables SMTP
	EmailFrom   string // From address of outgoing email
	// SMS gateway (Twilio Messages API or compatible); SMSURL empty
	// disables SMS delivery outside dev mode.
	SMSURL        string // API base, e.g. https://api.twilio.com
	SMSAccountSID string
	SMSAuthToken  string
	SMSFrom       string // E.164 sender number or Messaging Service SID (MG...)
	Dev           bool   // dev mode: demo seed, dev mailbox, relaxed cookies
	BodyLimit     int64  // maximum request body size in bytes
	// RequestTimeout ends every request's context (httpapi.WithDeadline)
	// and is serve's WriteTimeout. Not a variable: tests shorten it.
	RequestTimeout time.Duration

	// Passwords: the argon2id cost of new hashes (OWASP baseline by
	// default) and the k-anonymity breach API ("off" = shipped list only).
	Argon2MemoryKiB   uint32
	Argon2Iterations  uint32
	Argon2Parallelism uint8
	BreachAPIURL      string

	// Retention and bounds (see the README's retention table): how often
	// the sweeper runs, how long telemetry events and audit entries are
	// kept, and how many events a project may store per day and one
	// address may send per minute.
	SweepInterval       time.Duration
	EventsRetention     time.Duration
	AuditRetention      time.Duration
	EventsMaxPerProject int
	EventsMaxPerIP      int

	// MetricsAddr, when set, serves /metrics on its own listener (for
	// example 127.0.0.1:9090) instead of the main address.
	MetricsAddr string

	// EncryptionKey seals secrets at rest (standard base64 of 32 bytes,
	// see package secretbox). Empty leaves App.Box nil.
	EncryptionKey string

	// TrustedProxies lists the CIDRs of the proxies (load balancers) whose
	// X-Forwarded-For is believed (see httpapi.WithClientIP).
	TrustedProxies string

	// SSOAllowedNetworks lists the CIDRs that SSO's fetches of URLs an
	// organization's administrator names (metadata, discovery, token,
	// userinfo, JWKS) may reach although they are not public: an
	// on-premises identity provider on a private network. Empty (the
	// default) allows public addresses only; dev mode adds loopback, where
	// it serves its mock identity providers. See package outbound.
	SSOAllowedNetworks string

	// LogLevel is the minimum level logged: debug, info, warn or error.
	// Successful requests log at debug, so the default (info) writes a
	// line only for refused and failed ones.
	LogLevel string

	// GCFloorMiB is the heap the garbage collector may grow to while the
	// server is busy before it collects (package gctune); 0 leaves Go's
	// default. A GOGC in the environment wins over it.
	GCFloorMiB int

	// AllowInsecureBaseURL lets a plain-http BaseURL name a host other
	// than loopback outside dev mode (a private network the operator
	// vouches for); without it such a URL is refused.
	AllowInsecureBaseURL bool
}

// Defaults returns the configuration used when nothing is set.
func Defaults() Config {
	return Config{
		Addr:        ":8080",
		DatabaseURL: "./data/latchkey.db",
		BaseURL:     "http://localhost:8080",
		EmailFrom:   "Latchkey <no-reply@latchkey.localhost>",
		BodyLimit:   1 << 20,
		// The server's WriteTimeout: an answer later than that could not
		// be written anyway.
		RequestTimeout: 30 * time.Second,

		Argon2MemoryKiB:   19 * 1024,
		Argon2Iterations:  2,
		Argon2Parallelism: 1,
		BreachAPIURL:      "https://api.pwnedpasswords.com",
		LogLevel:          "info",

		SweepInterval:       10 * time.Minute,
		EventsRetention:     7 * 24 * time.Hour,
		AuditRetention:      180 * 24 * time.Hour,
		EventsMaxPerProject: 50000,
		EventsMaxPerIP:      1200,
		GCFloorMiB:          64,
	}
}

// FromEnv overlays LATCHKEY_* variables on c. lookup is os.LookupEnv in
// production and a map in tests.
func FromEnv(c Config, lookup func(string) (string, bool)) (Config, error) {
	str := func(key string, dst *string) {
		if v, ok := lookup(key); ok && v != "" {
			*dst = v
		}
	}
	str("LATCHKEY_ADDR", &c.Addr)
	str("LATCHKEY_DATABASE_URL", &c.DatabaseURL)
	str("LATCHKEY_BASE_URL", &c.BaseURL)
	if v, ok := lookup("LATCHKEY_ALLOW_INSECURE_BASE_URL"); ok && v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return c, fmt.Errorf("config: LATCHKEY_ALLOW_INSECURE_BASE_URL %q must be true or false", v)
		}
		c.AllowInsecureBaseURL = b
	}
	str("LATCHKEY_SMTP_URL", &c.SMTPURL)
	str("LATCHKEY_EMAIL_FROM", &c.EmailFrom)
	str("LATCHKEY_SMS_URL", &c.SMSURL)
	str("LATCHKEY_SMS_ACCOUNT_SID", &c.SMSAccountSID)
	str("LATCHKEY_SMS_AUTH_TOKEN", &c.SMSAuthToken)
	str("LATCHKEY_SMS_FROM", &c.SMSFrom)
	if v, ok := lookup("LATCHKEY_BODY_LIMIT"); ok && v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			return c, fmt.Errorf("config: LATCHKEY_BODY_LIMIT: %w", err)
		}
		c.BodyLimit = n
	}
	str("LATCHKEY_BREACH_API_URL", &c.BreachAPIURL)
	str("LATCHKEY_ENCRYPTION_KEY", &c.EncryptionKey)
	str("LATCHKEY_METRICS_ADDR", &c.MetricsAddr)
	for _, d := range []struct {
		key string
		dst *time.Duration
	}{{"LATCHKEY_SWEEP_INTERVAL", &c.SweepInterval}, {"LATCHKEY_EVENTS_RETENTION", &c.EventsRetention},
		{"LATCHKEY_AUDIT_RETENTION", &c.AuditRetention}} {
		if v, ok := lookup(d.key); ok && v != "" {
			n, err := time.ParseDuration(v)
			if err != nil {
				return c, fmt.Errorf("config: %s: %w (e.g. 10m, 168h)", d.key, err)
			}
			*d.dst = n
		}
	}
	for _, n := range []struct {
		key string
		dst *int
	}{{"LATCHKEY_EVENTS_MAX_PER_PROJECT", &c.EventsMaxPerProject}, {"LATCHKEY_EVENTS_MAX_PER_IP", &c.EventsMaxPerIP},
		{"LATCHKEY_GC_FLOOR_MIB", &c.GCFloorMiB}} {
		if v, ok := lookup(n.key); ok && v != "" {
			i, err := strconv.Atoi(v)
			if err != nil {
				return c, fmt.Errorf("config: %s: %w", n.key, err)
			}
			*n.dst = i
		}
	}
	str("LATCHKEY_TRUSTED_PROXIES", &c.TrustedProxies)
	str("LATCHKEY_SSO_ALLOWED_NETWORKS", &c.SSOAllowedNetworks)
	str("LATCHKEY_LOG_LEVEL", &c.LogLevel)
	for _, u := range []struct {
		key  string
		dst  *uint32
		bits int
	}{{"LATCHKEY_ARGON2_MEMORY_KIB", &c.Argon2MemoryKiB, 32}, {"LATCHKEY_ARGON2_ITERATIONS", &c.Argon2Iterations, 32}} {
		if v, ok := lookup(u.key); ok && v != "" {
			n, err := strconv.ParseUint(v, 10, u.bits)
			if err != nil {
				return c, fmt.Errorf("config: %s: %w", u.key, err)
			}
			*u.dst = uint32(n)
		}
	}
	if v, ok := lookup("LATCHKEY_ARGON2_PARALLELISM"); ok && v != "" {
		n, err := strconv.ParseUint(v, 10, 8)
		if err != nil {
			return c, fmt.Errorf("config: LATCHKEY_ARGON2_PARALLELISM: %w", err)
		}
		c.Argon2Parallelism = uint8(n)
	}
	c.BaseURL = normalizeBaseURL(c.BaseURL)
	return c, nil
}

// normalizeBaseURL drops the trailing slash and lower-cases the scheme and
// host, which are case-insensitive: every link, callback, issuer and the
// server's own origin is built from the base URL, and a browser, a
// provider or a relying party compares them as it writes them, in lower
// case. The path keeps its case (it is not case-insensitive). A value that
// is not scheme://host... is left for Validate to refuse as given, and so
// is one with user information, which it refuses without echoing.
func normalizeBaseURL(base string) string {
	base = strings.TrimRight(base, "/")
	i := strings.Index(base, "://")
	if i <= 0 {
		return base
	}
	rest := base[i+len("://"):]
	end := strings.IndexAny(rest, "/?#")
	if end < 0 {
		end = len(rest)
	}
	host := rest[:end]
	if strings.Contains(host, "@") {
		return base
	}
	// An IPv6 zone ([fe80::1%25eth0]) names an interface, whose name is
	// case-sensitive.
	zone := ""
	if z := strings.IndexByte(host, '%'); z >= 0 {
		host, zone = host[:z], host[z:]
	}
	return strings.ToLower(base[:i]) + "://" + strings.ToLower(host) + zone + rest[end:]
}

// Validate reports every problem at once, so an operator fixes them in one go.
func (c Config) Validate() error {
	var errs []error
	if c.Addr == "" {
		errs = append(errs, errors.New("listen address is empty"))
	} else if err := checkAddr(c.Addr); err != nil {
		errs = append(errs, fmt.Errorf("LATCHKEY_ADDR (or --addr) %q: %w", c.Addr, err))
	}
	if c.MetricsAddr != "" {
		if err := checkAddr(c.MetricsAddr); err != nil {
			errs = append(errs, fmt.Errorf("LATCHKEY_METRICS_ADDR %q: %w", c.MetricsAddr, err))
		}
	}
	if c.DatabaseURL == "" {
		errs = append(errs, errors.New("LATCHKEY_DATABASE_URL is empty"))
	} else if _, _, err := store.ParseDSN(c.DatabaseURL); err != nil {
		// store.Open's own check; its errors never show the password.
		errs = append(errs, fmt.Errorf("LATCHKEY_DATABASE_URL: %w", err))
	}
	if err := checkBaseURL(c.BaseURL); err != nil {
		errs = append(errs, err)
	} else if u, _ := url.Parse(c.BaseURL); u.Scheme == "http" && !outbound.IsLoopbackHost(u.Hostname()) &&
		!c.Dev && !c.AllowInsecureBaseURL {
		// Cookies lose Secure and HSTS is off, and every emailed link,
		// OAuth and SSO callback and the OIDC issuer is plain http: a
		// network's eavesdropper reads login tokens.
		errs = append(errs, fmt.Errorf("LATCHKEY_BASE_URL %q is plain http to a host other than loopback: use https "+
			"(every emailed link, callback and session cookie would cross the network in clear), or set "+
			"LATCHKEY_ALLOW_INSECURE_BASE_URL=true for a private network", c.BaseURL))
	}
	if c.SMTPURL != "" {
		// NewSMTP's own parser, so Validate refuses exactly what NewSMTP would
		// (it forgives unescaped '/', '?' and '#' in passwords, and refuses a
		// password in clear to a remote host). Its errors never show the password.
		if err := notify.CheckSMTPURL(c.SMTPURL); err != nil {
			errs = append(errs, err)
		}
		if err := notify.CheckEmailFrom(c.EmailFrom); err != nil {
			errs = append(errs, err)
		}
	}
	if c.Argon2Iterations < 1 || c.Argon2Parallelism < 1 || c.Argon2MemoryKiB < 8*uint32(c.Argon2Parallelism) ||
		c.Argon2MemoryKiB > 1<<20 {
		errs = append(errs, errors.New("argon2 cost: LATCHKEY_ARGON2_ITERATIONS and _PARALLELISM must be at least 1, "+
			"and LATCHKEY_ARGON2_MEMORY_KIB between 8 per lane and 1048576"))
	}
	if c.BreachAPIURL != "off" {
		// The rule of every URL whose answers this server trusts
		// (outbound.CheckURL): anyone on a plain-http path could answer for
		// the breach service, making any password look breached (refused)
		// or a breached one look clean.
		if err := outbound.CheckURL(c.BreachAPIURL); err != nil {
			errs = append(errs, fmt.Errorf("LATCHKEY_BREACH_API_URL %q %v, or \"off\"", shownURL(c.BreachAPIURL), err))
		}
	}
	if _, err := httpapi.ParseTrustedProxies(c.TrustedProxies); err != nil {
		errs = append(errs, fmt.Errorf("LATCHKEY_TRUSTED_PROXIES: %w", err))
	}
	if _, err := outbound.ParseAllowlist(c.SSOAllowedNetworks); err != nil {
		errs = append(errs, fmt.Errorf("LATCHKEY_SSO_ALLOWED_NETWORKS: %w", err))
	}
	if c.SMSURL != "" {
		// NewTwilio's own check: https, or http only to a loopback gateway,
		// since every send carries the SID and auth token as HTTP Basic.
		if err := notify.CheckSMSURL(c.SMSURL); err != nil {
			errs = append(errs, err)
		}
		for _, v := range []struct{ name, val string }{{"LATCHKEY_SMS_ACCOUNT_SID", c.SMSAccountSID},
			{"LATCHKEY_SMS_AUTH_TOKEN", c.SMSAuthToken}, {"LATCHKEY_SMS_FROM", c.SMSFrom}} {
			if strings.TrimSpace(v.val) == "" {
				errs = append(errs, fmt.Errorf("%s is required when LATCHKEY_SMS_URL is set", v.name))
			}
		}
		if strings.TrimSpace(c.SMSAccountSID) != "" {
			if err := notify.CheckSMSAccountSID(c.SMSAccountSID); err != nil {
				errs = append(errs, err)
			}
		}
	} else if c.SMSAccountSID != "" || c.SMSAuthToken != "" {
		errs = append(errs, errors.New("LATCHKEY_SMS_URL is required when SMS credentials are set (https://api.twilio.com for Twilio)"))
	}
	if c.EncryptionKey != "" {
		if _, err := secretbox.ParseKey(c.EncryptionKey); err != nil {
			// Never echo the key itself.
			errs = append(errs, errors.New("LATCHKEY_ENCRYPTION_KEY must be 32 random bytes in standard base64 (openssl rand -base64 32)"))
		}
	}
	if c.SweepInterval < time.Second || c.EventsRetention < time.Hour || c.AuditRetention < time.Hour {
		errs = append(errs, errors.New("LATCHKEY_SWEEP_INTERVAL must be at least 1s, and LATCHKEY_EVENTS_RETENTION and "+
			"LATCHKEY_AUDIT_RETENTION at least 1h"))
	}
	if c.EventsMaxPerProject < 1 || c.EventsMaxPerIP < 1 {
		errs = append(errs, errors.New("LATCHKEY_EVENTS_MAX_PER_PROJECT and LATCHKEY_EVENTS_MAX_PER_IP must be at least 1"))
	}
	if c.GCFloorMiB < 0 || c.GCFloorMiB > 1<<20 {
		errs = append(errs, errors.New("LATCHKEY_GC_FLOOR_MIB must be between 0 (Go's default) and 1048576"))
	}
	if c.BodyLimit < 1024 {
		errs = append(errs, errors.New("LATCHKEY_BODY_LIMIT must be at least 1024 bytes"))
	}
	if _, err := c.SlogLevel(); err != nil {
		errs = append(errs, err)
	}
	if len(errs) > 0 {
		return fmt.Errorf("config: %w", errors.Join(errs...))
	}
	return nil
}

// checkBaseURL accepts an absolute http(s) URL, with a path or not: every
// link, the OAuth callback and the OIDC issuer are it plus a path, so a
// query or fragment would land inside each, and user information would be
// in every emailed link. Under a path prefix the server still mounts its
// routes at /: a proxy in front strips the prefix.
func checkBaseURL(base string) error {
	u, err := url.Parse(base)
	switch {
	case strings.Contains(base, "@"): // not echoed: what precedes it may be a password
		return errors.New("LATCHKEY_BASE_URL must be an absolute http(s) URL without user information (user:password@)")
	case err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "":
		return fmt.Errorf("LATCHKEY_BASE_URL %q must be an absolute http(s) URL", base)
	case u.RawQuery != "" || u.ForceQuery || u.Fragment != "" || strings.Contains(base, "#"):
		return fmt.Errorf("LATCHKEY_BASE_URL %q must have no query or fragment: paths are appended to it", base)
	case strings.HasSuffix(u.Host, ":") || u.Port() != "" && !validPort(u.Port()):
		// net/url takes any digits for a port: every link and the OIDC
		// issuer would name a port no client can reach.
		return fmt.Errorf("LATCHKEY_BASE_URL %q: its port must be a number from 1 to 65535", base)
	}
	return nil
}

// validPort reports whether p is a port a URL can name: digits only, 1 to
// 65535.
func validPort(p string) bool {
	n, err := strconv.ParseUint(p, 10, 16)
	return err == nil && n >= 1
}

// checkAddr refuses a listen address net.Listen would refuse only after
// the migrations ran: one without a port, or with a port out of range.
func checkAddr(addr string) error {
	_, port, err := net.SplitHostPort(addr)
	if err != nil {
		return errors.New("want host:port or :port")
	}
	if _, err := net.LookupPort("tcp", port); err != nil {
		return fmt.Errorf("port %q is not a port number (0 to 65535)", port)
	}
	return nil
}

// SlogLevel parses LogLevel ("" is info).
func (c Config) SlogLevel() (slog.Level, error) {
	var l slog.Level
	if c.LogLevel == "" {
		return slog.LevelInfo, nil
	}
	if err := l.UnmarshalText([]byte(c.LogLevel)); err != nil {
		return 0, fmt.Errorf("LATCHKEY_LOG_LEVEL %q must be debug, info, warn or error", c.LogLevel)
	}
	return l, nil
}

// SecureCookies reports whether the base URL is https (cookies then get
// Secure, and answers carry HSTS); httpapi.HTTPSBase decides it, as it
// does for the cookies the domain packages set.
func (c Config) SecureCookies() bool { return httpapi.HTTPSBase(c.BaseURL) }

// shownURL is raw as a configuration error may print it (to stderr, and
// so the operator's log): without a password in its user info or its
// query, where a mirror's or gateway's credentials would be. A URL that
// does not parse is not shown.
func shownURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	if u.RawQuery != "" {
		u.RawQuery = "..."
	}
	u.Fragment, u.RawFragment = "", ""
	return u.Redacted()
}
