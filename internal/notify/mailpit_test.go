package notify

// Real SMTP delivery against Mailpit. This file is in package notify (not
// notify_test) only to point SMTP.rootCAs at the test's own CA.

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/syncbuf"
)

// envMailpit names the variable holding the path of the mailpit binary.
const envMailpit = "LATCHKEY_TEST_MAILPIT"

type mailpit struct {
	smtpAddr string // host:port
	api      string // http://host:port
}

func freePort(t *testing.T) string { return freePortOn(t, "127.0.0.1") }

func freePortOn(t *testing.T, host string) string {
	t.Helper()
	l, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// startMailpit runs mailpit on fresh loopback ports with extra flags and
// stops it (by its pid) when the test ends.
func startMailpit(t *testing.T, extra ...string) mailpit {
	return startMailpitOn(t, "127.0.0.1", extra...)
}

// startMailpitOn is startMailpit with the SMTP port on host.
func startMailpitOn(t *testing.T, host string, extra ...string) mailpit {
	t.Helper()
	bin := os.Getenv(envMailpit)
	if bin == "" {
		t.Skip(envMailpit + " is not set (make test sets it to bin/mailpit); skipping real SMTP delivery")
	}
	// The ports are picked then released; another process could take one in
	// between, so a start that fails is retried with new ports.
	var lastLog string
	for attempt := 0; attempt < 3; attempt++ {
		mp := mailpit{smtpAddr: freePortOn(t, host), api: "http://" + freePort(t)}
		args := append([]string{
			"--smtp", mp.smtpAddr,
			"--listen", strings.TrimPrefix(mp.api, "http://"),
			"--database", filepath.Join(t.TempDir(), "mailpit.db"),
			"--disable-version-check",
			"--smtp-disable-rdns",
		}, extra...)
		cmd := exec.Command(bin, args...)
		log := &syncbuf.Buffer{}
		cmd.Stdout, cmd.Stderr = log, log
		if err := cmd.Start(); err != nil {
			t.Fatalf("start %s: %v", bin, err)
		}
		exited := make(chan struct{})
		go func() { _ = cmd.Wait(); close(exited) }()
		stop := func() { _ = cmd.Process.Kill(); <-exited }
		if waitReady(mp, exited) {
			t.Cleanup(stop)
			return mp
		}
		stop()
		lastLog = log.String()
	}
	t.Fatalf("mailpit did not start:\n%s", lastLog)
	return mailpit{}
}

func waitReady(mp mailpit, exited <-chan struct{}) bool {
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case <-exited:
			return false
		case <-time.After(50 * time.Millisecond):
		}
		resp, err := http.Get(mp.api + "/api/v1/messages")
		if err != nil {
			continue
		}
		resp.Body.Close()
		if c, err := net.DialTimeout("tcp", mp.smtpAddr, time.Second); err == nil {
			c.Close()
			return resp.StatusCode == http.StatusOK
		}
	}
	return false
}

type mpAddress struct{ Name, Address string }

type mpSummary struct {
	ID       string
	From     mpAddress
	To       []mpAddress
	Subject  string
	Username string
}

func getJSON(t *testing.T, u string, v any) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, b)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("GET %s: %v in %s", u, err, b)
	}
}

// onlyMessage waits for exactly one message in mailpit and returns it.
func (mp mailpit) onlyMessage(t *testing.T) mpSummary {
	t.Helper()
	var list struct{ Messages []mpSummary }
	for deadline := time.Now().Add(5 * time.Second); ; {
		getJSON(t, mp.api+"/api/v1/messages", &list)
		if len(list.Messages) > 0 || time.Now().After(deadline) {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	if len(list.Messages) != 1 {
		t.Fatalf("mailpit holds %d messages, want 1: %+v", len(list.Messages), list.Messages)
	}
	return list.Messages[0]
}

// selfSignedCert writes a CA-less self-signed certificate for 127.0.0.1 and
// returns its files and a pool that trusts it.
func selfSignedCert(t *testing.T, more ...net.IP) (certFile, keyFile string, pool *x509.CertPool) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber:          big.NewInt(1),
		Subject:               pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses:           append([]net.IP{net.IPv4(127, 0, 0, 1)}, more...),
		NotBefore:             time.Now().Add(-time.Hour),
		NotAfter:              time.Now().Add(time.Hour),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	pool = x509.NewCertPool()
	pool.AddCert(cert)
	return certFile, keyFile, pool
}

func loginEmail(t *testing.T, to string) Email {
	t.Helper()
	e, err := MagicLinkLoginEmail(to, LinkData{
		ProjectName: "Acme", OrganizationName: "Acme <Ops>",
		URL: "https://app.example.com/authenticate?token=tok_123&type=magic_links", ExpiresIn: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	return e
}

func newSMTP(t *testing.T, rawURL string, roots *x509.CertPool) *SMTP {
	t.Helper()
	s, err := NewSMTP(rawURL, "Latchkey Login <no-reply@latchkey.test>")
	if err != nil {
		t.Fatalf("NewSMTP: %v", err)
	}
	s.rootCAs = roots
	t.Cleanup(func() { s.Close() })
	return s
}

// checkDelivered verifies what arrived: envelope, subject, both parts and
// the multipart/alternative structure.
func checkDelivered(t *testing.T, mp mailpit, e Email) mpSummary {
	t.Helper()
	sum := mp.onlyMessage(t)
	if sum.Subject != e.Subject {
		t.Errorf("subject = %q, want %q", sum.Subject, e.Subject)
	}
	if len(sum.To) != 1 || sum.To[0].Address != e.To {
		t.Errorf("to = %+v, want %s", sum.To, e.To)
	}
	if sum.From.Address != "no-reply@latchkey.test" || sum.From.Name != "Latchkey Login" {
		t.Errorf("from = %+v", sum.From)
	}
	var full struct{ Text, HTML string }
	getJSON(t, mp.api+"/api/v1/message/"+url.PathEscape(sum.ID), &full)
	// SMTP carries CRLF line ends; the rendered text uses LF.
	if strings.ReplaceAll(full.Text, "\r\n", "\n") != e.Text {
		t.Errorf("text part:\n%q\nwant\n%q", full.Text, e.Text)
	}
	if !strings.Contains(full.HTML, `href="https://app.example.com/authenticate?token=tok_123&amp;type=magic_links"`) ||
		!strings.Contains(full.HTML, "Acme &lt;Ops&gt;") {
		t.Errorf("HTML part is missing or altered:\n%s", full.HTML)
	}
	var headers map[string][]string
	getJSON(t, mp.api+"/api/v1/message/"+url.PathEscape(sum.ID)+"/headers", &headers)
	if ct := strings.Join(headers["Content-Type"], ""); !strings.HasPrefix(ct, "multipart/alternative") {
		t.Errorf("Content-Type = %q, want multipart/alternative", ct)
	}
	if got := strings.Join(headers["Auto-Submitted"], ""); got != "auto-generated" {
		t.Errorf("Auto-Submitted = %q", got)
	}
	if mid := strings.Join(headers["Message-Id"], ""); !strings.HasSuffix(mid, "@latchkey.test>") {
		t.Errorf("Message-Id = %q, want our domain", mid)
	}
	return sum
}

func TestMailpitPlain(t *testing.T) {
	t.Parallel()
	mp := startMailpit(t)
	e := loginEmail(t, "ada@example.com")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	// Opportunistic STARTTLS: this server offers none, so the mail goes in clear.
	if err := newSMTP(t, "smtp://"+mp.smtpAddr, nil).Send(ctx, e); err != nil {
		t.Fatalf("Send: %v", err)
	}
	if sum := checkDelivered(t, mp, e); sum.Username != "" {
		t.Errorf("authenticated as %q without credentials", sum.Username)
	}

	// tls=required refuses a server without STARTTLS, before any AUTH.
	err := newSMTP(t, "smtp://ada:hunter2pw@"+mp.smtpAddr+"?tls=required", nil).Send(ctx, e)
	if err == nil || !strings.Contains(err.Error(), "STARTTLS") || strings.Contains(err.Error(), "hunter2pw") {
		t.Errorf("tls=required against a plain server: %v", err)
	}
	// Credentials for a server without AUTH fail rather than send unauthenticated.
	if err := newSMTP(t, "smtp://ada:hunter2pw@"+mp.smtpAddr, nil).Send(ctx, e); err == nil {
		t.Error("credentials for a server without AUTH: no error")
	}
	mp.onlyMessage(t) // neither failure delivered anything
}

func TestMailpitAuth(t *testing.T) {
	t.Parallel()
	// A password with characters that must be percent-encoded in the URL.
	const pass = "p@ss/w#rd?&=:x"
	authFile := filepath.Join(t.TempDir(), "auth")
	if err := os.WriteFile(authFile, []byte("ada:"+pass+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	mp := startMailpit(t, "--smtp-auth-file", authFile, "--smtp-auth-allow-insecure", "--tags-username")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	e := loginEmail(t, "bob@example.com")

	wrong := newSMTP(t, "smtp://ada:"+url.QueryEscape("wrong-"+pass)+"@"+mp.smtpAddr, nil)
	err := wrong.Send(ctx, e)
	if err == nil {
		t.Fatal("wrong password: no error")
	}
	if strings.Contains(err.Error(), "wrong-p@ss") || strings.Contains(fmt.Sprint(wrong), "wrong-p@ss") {
		t.Errorf("error or String reveals the password: %v / %v", err, wrong)
	}

	right := newSMTP(t, "smtp://ada:"+url.QueryEscape(pass)+"@"+mp.smtpAddr, nil)
	if err := right.Send(ctx, e); err != nil {
		t.Fatalf("Send with the right password: %v", err)
	}
	if sum := checkDelivered(t, mp, e); sum.Username != "ada" {
		t.Errorf("mailpit saw user %q, want ada", sum.Username)
	}
}

func TestMailpitTLS(t *testing.T) {
	t.Parallel()
	certFile, keyFile, roots := selfSignedCert(t)

	t.Run("starttls", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		// The server refuses mail without STARTTLS, so delivery proves the upgrade.
		mp := startMailpit(t, "--smtp-tls-cert", certFile, "--smtp-tls-key", keyFile, "--smtp-require-starttls",
			"--smtp-auth-accept-any")
		e := loginEmail(t, "carol@example.com")
		// Opportunistic STARTTLS still verifies the certificate it is shown.
		if err := newSMTP(t, "smtp://"+mp.smtpAddr, nil).Send(ctx, e); err == nil ||
			!strings.Contains(err.Error(), "certificate") {
			t.Errorf("untrusted certificate: Send = %v, want a certificate error", err)
		}
		// So does the default, required STARTTLS: the README promises a
		// verified certificate, and with the password about to follow, an
		// unverified upgrade would hand it to whoever answers.
		if err := newSMTP(t, "smtp://carol:hunter2pw@"+mp.smtpAddr+"?tls=required", nil).Send(ctx, e); err == nil ||
			!strings.Contains(err.Error(), "certificate") {
			t.Errorf("untrusted certificate with tls=required: Send = %v, want a certificate error", err)
		}
		if err := newSMTP(t, "smtp://carol:hunter2pw@"+mp.smtpAddr+"?tls=required", roots).Send(ctx, e); err != nil {
			t.Fatalf("Send: %v", err)
		}
		if sum := checkDelivered(t, mp, e); sum.Username != "carol" {
			t.Errorf("mailpit saw user %q, want carol", sum.Username)
		}
	})
	t.Run("smtps", func(t *testing.T) {
		t.Parallel()
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		mp := startMailpit(t, "--smtp-tls-cert", certFile, "--smtp-tls-key", keyFile, "--smtp-require-tls")
		e := loginEmail(t, "dan@example.com")
		// Cleartext against an implicit-TLS port: both sides wait for the
		// other to speak, until the short deadline ends it.
		short, cancelShort := context.WithTimeout(ctx, 500*time.Millisecond)
		defer cancelShort()
		if err := newSMTP(t, "smtp://"+mp.smtpAddr, roots).Send(short, e); err == nil {
			t.Error("plain smtp:// against an implicit-TLS server: no error")
		}
		// Implicit TLS verifies the certificate too.
		if err := newSMTP(t, "smtps://"+mp.smtpAddr, nil).Send(ctx, e); err == nil ||
			!strings.Contains(err.Error(), "certificate") {
			t.Errorf("untrusted certificate with smtps://: Send = %v, want a certificate error", err)
		}
		if err := newSMTP(t, "smtps://"+mp.smtpAddr, roots).Send(ctx, e); err != nil {
			t.Fatalf("Send: %v", err)
		}
		checkDelivered(t, mp, e)
	})
}

// nonLoopbackIP is an address of this machine that is not loopback, so a
// server listening there counts as remote for the TLS policy.
func nonLoopbackIP(t *testing.T) net.IP {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.To4()
		}
	}
	t.Skip("this machine has no non-loopback IPv4 address to stand for a remote SMTP host")
	return nil
}

// To a host that is not loopback, smtp:// requires STARTTLS unless the
// operator writes tls=none.
func TestMailpitRemoteHostRequiresTLS(t *testing.T) {
	t.Parallel()
	ip := nonLoopbackIP(t)
	certFile, keyFile, roots := selfSignedCert(t, ip)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	plain := startMailpitOn(t, ip.String())
	e := loginEmail(t, "erin@example.com")
	err := newSMTP(t, "smtp://"+plain.smtpAddr, roots).Send(ctx, e)
	if err == nil || !strings.Contains(strings.ToLower(err.Error()), "starttls") {
		t.Fatalf("plain remote server without tls=none: Send = %v, want a STARTTLS refusal", err)
	}
	if _, err := NewSMTP("smtp://ada:hunter2pw@"+plain.smtpAddr+"?tls=none", "a@b.test"); err == nil {
		t.Fatal("a password in clear to a remote host was accepted")
	}
	if err := newSMTP(t, "smtp://"+plain.smtpAddr+"?tls=none", roots).Send(ctx, e); err != nil {
		t.Fatalf("tls=none: %v", err)
	}
	checkDelivered(t, plain, e)

	secure := startMailpitOn(t, ip.String(), "--smtp-tls-cert", certFile, "--smtp-tls-key", keyFile,
		"--smtp-require-starttls", "--smtp-auth-accept-any")
	f := loginEmail(t, "frank@example.com")
	if err := newSMTP(t, "smtp://frank:hunter2pw@"+secure.smtpAddr, roots).Send(ctx, f); err != nil {
		t.Fatalf("default STARTTLS to a remote host: %v", err)
	}
	if sum := checkDelivered(t, secure, f); sum.Username != "frank" {
		t.Errorf("mailpit saw user %q, want frank", sum.Username)
	}
}
