// Package config is Latchkey's typed configuration: defaults, then
// LATCHKEY_* environment variables, then command-line flags (applied by the
// cli package), then Validate.
package config

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/secretbox"
)

// Config is everything the server needs to start.
type Config struct {
	Addr        string // listen address, e.g. ":8080"
	DatabaseURL string // SQLite file path or postgres:// URL
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

	// Passwords: the argon2id cost of new hashes (OWASP baseline by
	// default) and the k-anonymity breach API ("off" = shipped list only).
	Argon2MemoryKiB   uint32
	Argon2Iterations  uint32
	Argon2Parallelism uint8
	BreachAPIURL      string

	// EncryptionKey seals secrets at rest (standard base64 of 32 bytes,
	// see package secretbox). Empty leaves App.Box nil.
	EncryptionKey string

	// TrustedProxies lists the CIDRs of the proxies (load balancers) whose
	// X-Forwarded-For is believed (see httpapi.WithClientIP).
	TrustedProxies string
}

// Defaults returns the configuration used when nothing is set.
func Defaults() Config {
	return Config{
		Addr:        ":8080",
		DatabaseURL: "./data/latchkey.db",
		BaseURL:     "http://localhost:8080",
		EmailFrom:   "Latchkey <no-reply@latchkey.localhost>",
		BodyLimit:   1 << 20,

		Argon2MemoryKiB:   19 * 1024,
		Argon2Iterations:  2,
		Argon2Parallelism: 1,
		BreachAPIURL:      "https://api.pwnedpasswords.com",
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
	str("LATCHKEY_TRUSTED_PROXIES", &c.TrustedProxies)
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
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c, nil
}

// Validate reports every problem at once, so an operator fixes them in one go.
func (c Config) Validate() error {
	var errs []error
	if c.Addr == "" {
		errs = append(errs, errors.New("listen address is empty"))
	}
	if c.DatabaseURL == "" {
		errs = append(errs, errors.New("LATCHKEY_DATABASE_URL is empty"))
	}
	if u, err := url.Parse(c.BaseURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		errs = append(errs, fmt.Errorf("LATCHKEY_BASE_URL %q must be an absolute http(s) URL", c.BaseURL))
	}
	if c.SMTPURL != "" {
		if u, err := url.Parse(c.SMTPURL); err != nil || (u.Scheme != "smtp" && u.Scheme != "smtps") || u.Host == "" {
			// Never echo the URL: it may hold the SMTP password.
			errs = append(errs, errors.New("LATCHKEY_SMTP_URL must look like smtp://user:pass@host:port"))
		}
	}
	if c.Argon2Iterations < 1 || c.Argon2Parallelism < 1 || c.Argon2MemoryKiB < 8*uint32(c.Argon2Parallelism) ||
		c.Argon2MemoryKiB > 1<<20 {
		errs = append(errs, errors.New("argon2 cost: LATCHKEY_ARGON2_ITERATIONS and _PARALLELISM must be at least 1, "+
			"and LATCHKEY_ARGON2_MEMORY_KIB between 8 per lane and 1048576"))
	}
	if c.BreachAPIURL != "off" {
		if u, err := url.Parse(c.BreachAPIURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			errs = append(errs, fmt.Errorf("LATCHKEY_BREACH_API_URL %q must be an absolute http(s) URL or \"off\"", c.BreachAPIURL))
		}
	}
	if _, err := httpapi.ParseTrustedProxies(c.TrustedProxies); err != nil {
		errs = append(errs, fmt.Errorf("LATCHKEY_TRUSTED_PROXIES: %w", err))
	}
	if c.SMSURL != "" {
		if u, err := url.Parse(c.SMSURL); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.User != nil {
			errs = append(errs, errors.New("LATCHKEY_SMS_URL must be an absolute http(s) URL without credentials"))
		}
		for _, v := range []struct{ name, val string }{{"LATCHKEY_SMS_ACCOUNT_SID", c.SMSAccountSID},
			{"LATCHKEY_SMS_AUTH_TOKEN", c.SMSAuthToken}, {"LATCHKEY_SMS_FROM", c.SMSFrom}} {
			if strings.TrimSpace(v.val) == "" {
				errs = append(errs, fmt.Errorf("%s is required when LATCHKEY_SMS_URL is set", v.name))
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
	if c.BodyLimit < 1024 {
		errs = append(errs, errors.New("LATCHKEY_BODY_LIMIT must be at least 1024 bytes"))
	}
	if len(errs) > 0 {
		return fmt.Errorf("config: %w", errors.Join(errs...))
	}
	return nil
}

// SecureCookies reports whether the base URL is https (cookies then get Secure).
func (c Config) SecureCookies() bool { return strings.HasPrefix(c.BaseURL, "https://") }
