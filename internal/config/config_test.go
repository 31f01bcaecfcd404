package config

import (
	"strings"
	"testing"
)

func TestFromEnvAndValidate(t *testing.T) {
	env := map[string]string{
		"LATCHKEY_DATABASE_URL": "postgres://u@127.0.0.1/db",
		"LATCHKEY_BASE_URL":     "https://auth.example.com/",
		"LATCHKEY_SMTP_URL":     "smtp://u:p@127.0.0.1:2525",
	}
	c, err := FromEnv(Defaults(), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if c.BaseURL != "https://auth.example.com" || c.DatabaseURL != env["LATCHKEY_DATABASE_URL"] || !c.SecureCookies() {
		t.Fatalf("unexpected config %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("valid config rejected: %v", err)
	}
}

func TestValidateReportsAllProblemsWithoutSecrets(t *testing.T) {
	c := Defaults()
	c.BaseURL = "localhost:8080"
	c.SMTPURL = "mailto://user:hunter2@x"
	c.Addr = ""
	err := c.Validate()
	if err == nil {
		t.Fatal("invalid config accepted")
	}
	msg := err.Error()
	for _, want := range []string{"listen address", "LATCHKEY_BASE_URL", "LATCHKEY_SMTP_URL"} {
		if !strings.Contains(msg, want) {
			t.Errorf("error %q does not mention %s", msg, want)
		}
	}
	if strings.Contains(msg, "hunter2") {
		t.Errorf("error leaks the SMTP password: %q", msg)
	}
}

func TestPasswordSettings(t *testing.T) {
	c := Defaults()
	if c.Argon2MemoryKiB != 19456 || c.Argon2Iterations != 2 || c.Argon2Parallelism != 1 {
		t.Fatalf("argon2 defaults %d/%d/%d are not the OWASP baseline", c.Argon2MemoryKiB, c.Argon2Iterations, c.Argon2Parallelism)
	}
	env := map[string]string{"LATCHKEY_ARGON2_MEMORY_KIB": "65536", "LATCHKEY_ARGON2_ITERATIONS": "3",
		"LATCHKEY_ARGON2_PARALLELISM": "2", "LATCHKEY_BREACH_API_URL": "off"}
	c, err := FromEnv(c, func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil || c.Argon2MemoryKiB != 65536 || c.Argon2Iterations != 3 || c.Argon2Parallelism != 2 || c.BreachAPIURL != "off" {
		t.Fatalf("FromEnv = %+v, %v", c, err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("valid password settings rejected: %v", err)
	}
	for key, v := range map[string]string{"LATCHKEY_ARGON2_PARALLELISM": "300", "LATCHKEY_ARGON2_MEMORY_KIB": "-1"} {
		if _, err := FromEnv(Defaults(), func(k string) (string, bool) { return v, k == key }); err == nil {
			t.Errorf("%s=%s accepted", key, v)
		}
	}
	bad := Defaults()
	bad.Argon2Iterations = 0
	bad.BreachAPIURL = "ftp://x"
	err = bad.Validate()
	if err == nil || !strings.Contains(err.Error(), "argon2") || !strings.Contains(err.Error(), "LATCHKEY_BREACH_API_URL") {
		t.Fatalf("Validate = %v", err)
	}
}

func TestSMSConfig(t *testing.T) {
	env := map[string]string{
		"LATCHKEY_SMS_URL":         "https://api.twilio.com",
		"LATCHKEY_SMS_ACCOUNT_SID": "AC123",
		"LATCHKEY_SMS_AUTH_TOKEN":  "tok-secret",
		"LATCHKEY_SMS_FROM":        "+15005550006",
	}
	c, err := FromEnv(Defaults(), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
	if err != nil {
		t.Fatal(err)
	}
	if c.SMSURL != env["LATCHKEY_SMS_URL"] || c.SMSAccountSID != "AC123" || c.SMSAuthToken != "tok-secret" || c.SMSFrom != "+15005550006" {
		t.Fatalf("sms config not read: %+v", c)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("valid sms config rejected: %v", err)
	}

	c.SMSFrom, c.SMSAuthToken = "", ""
	err = c.Validate()
	if err == nil || !strings.Contains(err.Error(), "LATCHKEY_SMS_FROM") || !strings.Contains(err.Error(), "LATCHKEY_SMS_AUTH_TOKEN") {
		t.Fatalf("missing sms settings: %v", err)
	}
	c = Defaults()
	c.SMSAccountSID, c.SMSAuthToken = "AC1", "tok-secret"
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "LATCHKEY_SMS_URL") || strings.Contains(err.Error(), "tok-secret") {
		t.Fatalf("credentials without URL: %v", err)
	}
	c.SMSURL, c.SMSFrom = "https://tok-secret@api.twilio.com", "+1"
	if err := c.Validate(); err == nil || strings.Contains(err.Error(), "tok-secret") {
		t.Fatalf("URL with credentials: %v", err)
	}
}

func TestGCFloor(t *testing.T) {
	if Defaults().GCFloorMiB != 64 {
		t.Fatalf("default GC floor %d MiB, want 64", Defaults().GCFloorMiB)
	}
	for v, want := range map[string]int{"0": 0, "256": 256} {
		c, err := FromEnv(Defaults(), func(k string) (string, bool) { return v, k == "LATCHKEY_GC_FLOOR_MIB" })
		if err != nil || c.GCFloorMiB != want || c.Validate() != nil {
			t.Fatalf("LATCHKEY_GC_FLOOR_MIB=%s: %d, %v, %v", v, c.GCFloorMiB, err, c.Validate())
		}
	}
	c := Defaults()
	c.GCFloorMiB = -1
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "LATCHKEY_GC_FLOOR_MIB") {
		t.Fatalf("a negative floor: %v", err)
	}
	if _, err := FromEnv(Defaults(), func(k string) (string, bool) { return "lots", k == "LATCHKEY_GC_FLOOR_MIB" }); err == nil {
		t.Fatal("a floor that is not a number was accepted")
	}
}

// LATCHKEY_SSO_ALLOWED_NETWORKS is empty by default (public addresses
// only), read from the environment, and checked by Validate.
func TestSSOAllowedNetworks(t *testing.T) {
	if Defaults().SSOAllowedNetworks != "" {
		t.Fatalf("default allowlist %q, want none", Defaults().SSOAllowedNetworks)
	}
	env := func(v string) func(string) (string, bool) {
		return func(k string) (string, bool) { return v, k == "LATCHKEY_SSO_ALLOWED_NETWORKS" }
	}
	c, err := FromEnv(Defaults(), env("10.20.0.0/16, 192.168.1.5"))
	if err != nil || c.SSOAllowedNetworks != "10.20.0.0/16, 192.168.1.5" || c.Validate() != nil {
		t.Fatalf("valid list: %q %v %v", c.SSOAllowedNetworks, err, c.Validate())
	}
	c, _ = FromEnv(Defaults(), env("10.20.0.0/16,adfs.corp.example"))
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "LATCHKEY_SSO_ALLOWED_NETWORKS") {
		t.Fatalf("a host name in the list: %v", err)
	}
}

// Every link, the OAuth callback and the OIDC issuer are the base URL plus
// a path: a query or fragment in it would land in the middle of each, and
// user information in every link. A path prefix is kept (a proxy that
// strips it serves the server's routes under it).
func TestBaseURLShape(t *testing.T) {
	for _, bad := range []string{"https://auth.example.com/path?x=1", "https://auth.example.com#top",
		"https://auth.example.com/?", "https://admin:hunter2@auth.example.com", "ftp://auth.example.com", "https://",
		// A port out of range, as LATCHKEY_ADDR's is refused.
		"https://auth.example.com:99999", "https://auth.example.com:0", "https://auth.example.com:65536/auth",
		"http://127.0.0.1:123456", "https://[::1]:70000", "https://auth.example.com:"} {
		c := Defaults()
		c.BaseURL = bad
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "LATCHKEY_BASE_URL") {
			t.Errorf("base URL %q: %v", bad, err)
		} else if strings.Contains(err.Error(), "hunter2") {
			t.Errorf("base URL %q: the error shows the password: %v", bad, err)
		}
	}
	for _, good := range []string{"https://auth.example.com", "https://example.com/auth", "http://127.0.0.1:8080",
		"https://auth.example.com:65535/auth", "https://[::1]:8443", "https://auth.example.com:1"} {
		c := Defaults()
		c.BaseURL = good
		if err := c.Validate(); err != nil {
			t.Errorf("base URL %q refused: %v", good, err)
		}
	}
}

// A database URL the store would refuse is reported with the rest, and
// without its password.
func TestDatabaseURLIsChecked(t *testing.T) {
	for _, bad := range []string{"postgress://u:hunter2@db.example.com/latchkey", "host=db user=u password=hunter2",
		// A password's '@' as is: pgx took "ter2@db.example.com" for the host.
		"postgres://u:hun@ter2@db.example.com/latchkey", "postgresql://u:hun@ss:ter2@127.0.0.1:1/latchkey"} {
		c := Defaults()
		c.DatabaseURL = bad
		c.BaseURL = "nope"
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "LATCHKEY_DATABASE_URL") || !strings.Contains(err.Error(), "LATCHKEY_BASE_URL") {
			t.Errorf("database URL %q: %v", bad, err)
		} else if strings.Contains(err.Error(), "hunter2") || strings.Contains(err.Error(), "ter2") {
			t.Errorf("database URL %q: the error shows the password: %v", bad, err)
		}
	}
	for _, good := range []string{"./data/latchkey.db", "file:/var/lib/latchkey/latchkey.db", "POSTGRES://u@db/latchkey"} {
		c := Defaults()
		c.DatabaseURL = good
		if err := c.Validate(); err != nil {
			t.Errorf("database URL %q refused: %v", good, err)
		}
	}
}

// A plain-http base URL off loopback puts every emailed link, callback
// and session cookie on the network in clear, with HSTS off: refused
// outside dev mode unless LATCHKEY_ALLOW_INSECURE_BASE_URL says the
// network is private.
func TestInsecureBaseURLNeedsAnOptOut(t *testing.T) {
	load := func(vars ...string) Config {
		t.Helper()
		env := map[string]string{}
		for i := 0; i+1 < len(vars); i += 2 {
			env[vars[i]] = vars[i+1]
		}
		c, err := FromEnv(Defaults(), func(k string) (string, bool) { v, ok := env[k]; return v, ok })
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	for _, base := range []string{"http://auth.example.com", "http://10.1.2.3:8080", "http://[fd00::1]:8080", "http://0.0.0.0:8080"} {
		err := load("LATCHKEY_BASE_URL", base).Validate()
		if err == nil || !strings.Contains(err.Error(), "LATCHKEY_BASE_URL") || !strings.Contains(err.Error(), "LATCHKEY_ALLOW_INSECURE_BASE_URL") {
			t.Errorf("%s accepted outside dev mode: %v", base, err)
		}
		if err := load("LATCHKEY_BASE_URL", base, "LATCHKEY_ALLOW_INSECURE_BASE_URL", "true").Validate(); err != nil {
			t.Errorf("%s with the opt-out: %v", base, err)
		}
		dev := load("LATCHKEY_BASE_URL", base)
		dev.Dev = true
		if err := dev.Validate(); err != nil {
			t.Errorf("%s in dev mode: %v", base, err)
		}
	}
	for _, base := range []string{"http://localhost:8080", "http://127.0.0.1:9000", "http://[::1]:8080", "https://10.1.2.3"} {
		if err := load("LATCHKEY_BASE_URL", base).Validate(); err != nil {
			t.Errorf("%s refused: %v", base, err)
		}
	}
	if _, err := FromEnv(Defaults(), func(k string) (string, bool) {
		return "yes please", k == "LATCHKEY_ALLOW_INSECURE_BASE_URL"
	}); err == nil || !strings.Contains(err.Error(), "LATCHKEY_ALLOW_INSECURE_BASE_URL") {
		t.Errorf("a malformed opt-out: %v", err)
	}
}

// A listen address net.Listen would refuse is refused with the rest,
// naming its variable, instead of after the migrations ran.
func TestListenAddressesAreChecked(t *testing.T) {
	for _, c := range []struct{ addr, metrics, want string }{
		{":99999", "", "LATCHKEY_ADDR"},
		{"localhost", "", "LATCHKEY_ADDR"},
		{":8080", "127.0.0.1:70000", "LATCHKEY_METRICS_ADDR"},
		{":8080", "9090", "LATCHKEY_METRICS_ADDR"},
	} {
		cfg := Defaults()
		cfg.Addr, cfg.MetricsAddr = c.addr, c.metrics
		if err := cfg.Validate(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("addr %q, metrics %q: %v", c.addr, c.metrics, err)
		}
	}
	for _, addr := range []string{":8080", ":0", "127.0.0.1:65535", "[::1]:8080", "0.0.0.0:http"} {
		cfg := Defaults()
		cfg.Addr, cfg.MetricsAddr = addr, addr
		if err := cfg.Validate(); err != nil {
			t.Errorf("%q refused: %v", addr, err)
		}
	}
}

// The scheme and host of the base URL are case-insensitive, and Validate
// accepts HTTPS://...: loading lower-cases them (the path keeps its case),
// and the https decision behind HSTS and Secure cookies reads the scheme
// as Validate does, also on a configuration built without FromEnv.
func TestBaseURLSchemeAndHostAreNormalized(t *testing.T) {
	for in, want := range map[string]string{
		"HTTPS://Auth.Example.COM/":           "https://auth.example.com",
		"HTTPS://Auth.Example.COM:8443/Auth/": "https://auth.example.com:8443/Auth",
		"Http://LOCALHOST:8080":               "http://localhost:8080",
		"http://[FE80::1%25Eth0]:8080/X":      "http://[fe80::1%25Eth0]:8080/X",
		"https://auth.example.com":            "https://auth.example.com",
		"localhost:8080":                      "localhost:8080", // Validate's to refuse, as given
	} {
		c, err := FromEnv(Defaults(), func(k string) (string, bool) {
			return in, k == "LATCHKEY_BASE_URL"
		})
		if err != nil || c.BaseURL != want {
			t.Errorf("LATCHKEY_BASE_URL %q: BaseURL %q, %v; want %q", in, c.BaseURL, err, want)
		}
	}
	c, err := FromEnv(Defaults(), func(k string) (string, bool) { return "HTTPS://Auth.Example.com", k == "LATCHKEY_BASE_URL" })
	if err != nil || !c.SecureCookies() {
		t.Fatalf("HTTPS:// base URL: SecureCookies %t, %v", c.SecureCookies(), err)
	}
	if err := c.Validate(); err != nil {
		t.Fatalf("HTTPS:// base URL refused: %v", err)
	}
	for base, want := range map[string]bool{"HTTPS://auth.example.com": true, "Https://auth.example.com/x": true,
		"https://auth.example.com": true, "http://auth.example.com": false, "HTTP://localhost:8080": false} {
		c := Defaults()
		c.BaseURL = base
		if got := c.SecureCookies(); got != want {
			t.Errorf("SecureCookies for %q = %t, want %t", base, got, want)
		}
	}
}

// A breach API URL that is refused may hold a mirror's credentials (in
// its user info or query): the refusal, printed at startup and so in the
// operator's log, names the URL without them.
func TestRefusedBreachAPIURLHidesCredentials(t *testing.T) {
	t.Parallel()
	for _, raw := range []string{"http://mirror:s3cr3t-pass@breach.example.test/range",
		"http://breach.example.test/range?api_key=s3cr3t-pass", "ftp://mirror:s3cr3t-pass@breach.example.test"} {
		c := Defaults()
		c.BreachAPIURL = raw
		err := c.Validate()
		if err == nil || !strings.Contains(err.Error(), "LATCHKEY_BREACH_API_URL") || !strings.Contains(err.Error(), "breach.example.test") {
			t.Errorf("%s: %v, want the refusal naming the host", raw, err)
			continue
		}
		if strings.Contains(err.Error(), "s3cr3t-pass") {
			t.Errorf("the refusal holds the credential: %v", err)
		}
	}
}
