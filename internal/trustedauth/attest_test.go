package trustedauth_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-jose/go-jose/v4"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/apptest/testkeys"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/trustedauth"
)

func TestAttestJWKSAndReplay(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		is := newIssuer(t)
		prof := jwksProfile(t, e, is, nil)
		if !strings.HasPrefix(prof.ProfileID, "trusted-auth-token-profile-test-") || prof.PublicKeyType != "jwk" {
			t.Fatalf("profile: %+v", prof)
		}
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		memberID := e.CreateMember(org, "ana@acme.test")
		tok := is.token(e.Clock.Now(), "Ana@Acme.test", "jti-1", nil)
		body := map[string]any{"profile_id": prof.ProfileID, "token": tok, "organization_id": org, "session_duration_minutes": 60}
		r := attest(e, body)
		apptest.Want(t, r, 200, "")
		if r.Body["member_id"] != memberID || r.Body["session_token"] == "" || r.Body["session_jwt"] == "" {
			t.Fatalf("attest: %s", r.Raw)
		}
		f := factors(t, r.Body)
		if len(f) != 1 || f[0]["type"] != "trusted_auth_token" || f[0]["delivery_method"] != "trusted_token_exchange" ||
			f[0]["trusted_auth_token_factor"].(map[string]any)["token_id"] != "jti-1" {
			t.Fatalf("factors: %v", f)
		}
		if r.Body["member"].(map[string]any)["email_address_verified"] != true {
			t.Fatalf("email not verified: %s", r.Raw)
		}
		// The session is a real one.
		s := e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": r.Body["session_token"]})
		apptest.Want(t, s, 200, "")

		// The same token again is a replay, on either face.
		apptest.Want(t, attest(e, body), 401, "invalid_trusted_auth_token")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/attest", body, ""), 401, "invalid_trusted_auth_token")

		// The SDK face: a fresh token works; the factor object stays on the backend.
		body["token"] = is.token(e.Clock.Now(), "ana@acme.test", "jti-2", nil)
		r = e.SDK(http.MethodPost, "/b2b/sessions/attest", body, "")
		apptest.Want(t, r, 200, "")
		f = factors(t, r.Data())
		if f[0]["type"] != "trusted_auth_token" || f[0]["trusted_auth_token_factor"] != nil {
			t.Fatalf("SDK factors: %v", f)
		}
		// The keys were fetched once for all of this.
		if n := is.hits.Load(); n != 1 {
			t.Fatalf("JWKS fetched %d times, want 1", n)
		}
	})
}

// Many issuers (Firebase, Auth0 ID tokens) sign no jti. Such a token is
// still spent once: otherwise whoever sees it (a log, a proxy, the
// browser's history) could replay it for another session until it
// expires. What is spent is the signed claims, so the same token in
// another encoding that also verifies (the ECDSA twin signature, the JWS
// JSON serialization) is the same token.
func TestAttestTokenWithoutIDIsSpentOnce(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		tok := sc.is.token(e.Clock.Now(), "ana@acme.test", "", map[string]any{"jti": nil})
		r := sc.attest(tok)
		apptest.Want(t, r, 200, "")
		if f := factors(t, r.Body); f[0]["trusted_auth_token_factor"].(map[string]any)["token_id"] != "" {
			t.Fatalf("factors: %v", f)
		}
		for _, again := range []struct{ name, token string }{{"the same token", tok},
			{"its twin signature", ecdsaTwin(t, tok)}, {"its JSON serialization", jsonForm(t, tok)}} {
			if r := sc.attest(again.token); r.Status != 401 || r.ErrType() != "invalid_trusted_auth_token" {
				t.Fatalf("%s was accepted again: status %d %q", again.name, r.Status, r.ErrType())
			}
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/attest", sc.body(tok), ""), 401, "invalid_trusted_auth_token")
		// Another token without an id (issued a second later) is another token.
		e.Clock.Advance(time.Second)
		apptest.Want(t, sc.attest(sc.is.token(e.Clock.Now(), "ana@acme.test", "", map[string]any{"jti": nil})), 200, "")
	})
}

// A token is taken in its one canonical spelling only: the others that
// go-jose would decode to the same parts (and verify) are refused before
// the token is ever spent, so a token's text names one token.
func TestAttestRefusesRespelledTokens(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		tok := sc.is.token(e.Clock.Now(), "ana@acme.test", "jti-respelled", nil)
		for name, s := range apptest.Respellings(t, tok) {
			t.Run(name, func(t *testing.T) { apptest.Want(t, sc.attest(s), 401, "invalid_trusted_auth_token") })
		}
		apptest.Want(t, sc.attest(tok), 200, "")
	})
}

// The rows that remember spent tokens go some minutes after the tokens
// have expired (the margin covers replicas whose clocks differ), whether
// or not the issuer's tokens are used again.
func TestAttestSpentTokensAreSwept(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		now := e.Clock.Now()
		for _, tok := range []string{sc.is.token(now, "ana@acme.test", "a", nil), sc.is.token(now, "ana@acme.test", "", map[string]any{"jti": nil})} {
			apptest.Want(t, sc.attest(tok), 200, "")
		}
		const spent = `SELECT COUNT(*) FROM trusted_auth_spent_tokens`
		sweep := func() {
			if _, err := e.App.Sweeper().Once(t.Context()); err != nil {
				t.Fatal(err)
			}
		}
		sweep()
		// The token with a jti by its jti and its claims; the other by its claims.
		if n := e.Count(spent); n != 3 {
			t.Fatalf("%d spent-token rows before expiry, want 3", n)
		}
		e.Clock.Advance(6 * time.Minute) // past exp and the skew, within the margin
		sweep()
		if n := e.Count(spent); n != 3 {
			t.Fatalf("%d spent-token rows within the margin after expiry, want 3", n)
		}
		e.Clock.Advance(5 * time.Minute)
		sweep()
		if n := e.Count(spent); n != 0 {
			t.Fatalf("%d spent-token rows after expiry and the margin", n)
		}
	})
}

func TestAttestRefusals(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		is := newIssuer(t)
		prof := jwksProfile(t, e, is, func(n *trustedauth.NewProfile) { n.AttributeMapping.OrganizationID = "org_id" })
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		other := e.CreateOrg("other", "NOT_ALLOWED", nil)
		// Email JIT would admit bo@open.test; this profile does not provision.
		open := e.CreateOrg("open", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"open.test"}})
		e.CreateMember(org, "ana@acme.test")
		now := e.Clock.Now()
		stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		hs := sign(t, jose.HS256, []byte("a-shared-secret-that-is-long-enough-for-hs256"), "k1",
			claimsFor(now, "ana@acme.test", "hs"))
		for _, c := range []struct {
			name   string
			token  string
			org    string
			status int
			typ    string
		}{
			{"wrong issuer", is.token(now, "ana@acme.test", "a", map[string]any{"iss": "https://evil.test"}), org, 401, "invalid_trusted_auth_token"},
			{"wrong audience", is.token(now, "ana@acme.test", "b", map[string]any{"aud": []string{"someone-else"}}), org, 401, "invalid_trusted_auth_token"},
			{"expired past the skew", is.token(now, "ana@acme.test", "c", map[string]any{"exp": now.Add(-time.Minute).Unix()}), org, 401, "invalid_trusted_auth_token"},
			{"no expiry", is.token(now, "ana@acme.test", "d", map[string]any{"exp": nil}), org, 401, "invalid_trusted_auth_token"},
			{"expiry more than a day ahead", is.token(now, "ana@acme.test", "d2", map[string]any{"exp": now.Add(25 * time.Hour).Unix()}), org, 401, "invalid_trusted_auth_token"},
			{"not valid yet", is.token(now, "ana@acme.test", "e", map[string]any{"nbf": now.Add(time.Minute).Unix()}), org, 401, "invalid_trusted_auth_token"},
			{"issued in the future past the skew", is.token(now, "ana@acme.test", "e2", map[string]any{"iat": now.Add(time.Minute).Unix()}), org, 401, "invalid_trusted_auth_token"},
			{"signed by a stranger with the issuer's kid", sign(t, jose.ES256, stranger, "k1", claimsFor(now, "ana@acme.test", "f")), org, 401, "invalid_trusted_auth_token"},
			{"HMAC", hs, org, 401, "invalid_trusted_auth_token"},
			{"not a JWT", "not.a.jwt", org, 401, "invalid_trusted_auth_token"},
			{"the JWS JSON serialization of a good token", jsonForm(t, is.token(now, "ana@acme.test", "l", nil)), org, 401, "invalid_trusted_auth_token"},
			{"no email", is.token(now, "", "g", map[string]any{"email": nil}), org, 401, "invalid_trusted_auth_token"},
			{"no organization", is.token(now, "ana@acme.test", "h", nil), "", 400, "token_missing_organization_id_claim"},
			{"organization differs from the claim", is.token(now, "ana@acme.test", "i", map[string]any{"org_id": other}), org, 400, "invalid_token_organization_id_claim"},
			{"unknown organization", is.token(now, "ana@acme.test", "j", nil), "organization-test-00000000-0000-4000-8000-000000000000", 404, "organization_not_found"},
			{"not a member, no JIT", is.token(now, "bo@acme.test", "k", nil), org, 404, "member_not_found"},
			{"not a member, organization signed, profile without JIT", is.token(now, "bo@open.test", "k2", map[string]any{"org_id": open}), "", 404, "member_not_found"},
		} {
			t.Run(c.name, func(t *testing.T) {
				r := attest(e, map[string]any{"profile_id": prof.ProfileID, "token": c.token, "organization_id": c.org})
				apptest.Want(t, r, c.status, c.typ)
			})
		}
		// Within the skew an expired token still passes.
		r := attest(e, map[string]any{"profile_id": prof.ProfileID, "organization_id": org,
			"token": is.token(now, "ana@acme.test", "l", map[string]any{"exp": now.Add(-10 * time.Second).Unix()})})
		apptest.Want(t, r, 200, "")
		// A day ahead is as far as exp may lie (a spent token is remembered until then).
		r = attest(e, map[string]any{"profile_id": prof.ProfileID, "organization_id": org,
			"token": is.token(now, "ana@acme.test", "l2", map[string]any{"exp": now.Add(24 * time.Hour).Unix()})})
		apptest.Want(t, r, 200, "")
		// A token whose organization claim names the organization needs no organization_id.
		r = attest(e, map[string]any{"profile_id": prof.ProfileID,
			"token": is.token(now, "ana@acme.test", "m", map[string]any{"org_id": org})})
		apptest.Want(t, r, 200, "")

		t.Run("profile", func(t *testing.T) {
			tok := is.token(now, "ana@acme.test", "n", nil)
			apptest.Want(t, attest(e, map[string]any{"profile_id": "trusted-auth-token-profile-test-nope", "token": tok, "organization_id": org}),
				404, "trusted_token_profile_not_found")
			apptest.Want(t, attest(e, map[string]any{"token": tok, "organization_id": org}), 400, "invalid_request")
			if _, err := e.App.TrustedAuth.SetActive(t.Context(), e.Project.Project.ID, prof.ProfileID, false); err != nil {
				t.Fatal(err)
			}
			apptest.Want(t, attest(e, map[string]any{"profile_id": prof.ProfileID, "token": tok, "organization_id": org}),
				404, "trusted_token_profile_not_found")
			// Another project cannot use this project's profile.
			p2 := e.NewProject("Other")
			r := e.Do(http.MethodPost, "/v1/b2b/sessions/attest", map[string]any{"profile_id": prof.ProfileID, "token": tok,
				"organization_id": org}, nil, p2.Project.ID, p2.Secret)
			apptest.Want(t, r, 404, "trusted_token_profile_not_found")
		})
	})
}

func TestAttestJIT(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		is := newIssuer(t)
		prof := jwksProfile(t, e, is, func(n *trustedauth.NewProfile) {
			n.AttributeMapping.OrganizationID, n.AttributeMapping.Name = "https://partner.test/org", "name"
			n.CanJITProvision = true
		})
		open := e.CreateOrg("open", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"open.test"}})
		now := e.Clock.Now()
		claim := func(org string) map[string]any {
			return map[string]any{"https://partner.test/org": org, "name": "Bo Builder"}
		}
		// The organization named only by the request: no provisioning.
		r := attest(e, map[string]any{"profile_id": prof.ProfileID, "organization_id": open,
			"token": is.token(now, "bo@open.test", "a", nil)})
		apptest.Want(t, r, 404, "member_not_found")
		// The organization's email rules still apply.
		r = attest(e, map[string]any{"profile_id": prof.ProfileID, "token": is.token(now, "bo@elsewhere.test", "b", claim(open))})
		apptest.Want(t, r, 403, "invalid_email_for_jit_provisioning")
		// Named by the signed token, with an allowed domain: a new active member.
		r = attest(e, map[string]any{"profile_id": prof.ProfileID, "token": is.token(now, "bo@open.test", "c", claim(open))})
		apptest.Want(t, r, 200, "")
		m := r.Body["member"].(map[string]any)
		if m["status"] != "active" || m["name"] != "Bo Builder" || m["email_address"] != "bo@open.test" {
			t.Fatalf("provisioned member: %v", m)
		}
		// The next login finds the same member.
		r2 := attest(e, map[string]any{"profile_id": prof.ProfileID, "token": is.token(now, "bo@open.test", "d", claim(open))})
		apptest.Want(t, r2, 200, "")
		if r2.Body["member_id"] != r.Body["member_id"] {
			t.Fatalf("second login: %s", r2.Raw)
		}
	})
}

func TestAttestPEMProfile(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		key := testkeys.Next()
		der, _ := x509.MarshalPKIXPublicKey(&key.PublicKey)
		pub := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: der}))
		other, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		oder, _ := x509.MarshalPKIXPublicKey(&other.PublicKey)
		opub := string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: oder}))
		prof, err := e.App.TrustedAuth.CreateProfile(t.Context(), trustedauth.NewProfile{ProjectID: e.Project.Project.ID,
			Env: e.Project.Project.Env, Issuer: issuerName, Audience: audience, PEMKeys: []string{opub, pub}})
		if err != nil {
			t.Fatal(err)
		}
		if prof.PublicKeyType != "pem" || len(prof.PEMFiles) != 2 {
			t.Fatalf("profile: %+v", prof)
		}
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ana@acme.test")
		now := e.Clock.Now()
		tok := sign(t, jose.RS256, key, "", claimsFor(now, "ana@acme.test", "p1"))
		apptest.Want(t, attest(e, map[string]any{"profile_id": prof.ProfileID, "token": tok, "organization_id": org}), 200, "")
		stranger, _ := rsa.GenerateKey(rand.Reader, 2048)
		tok = sign(t, jose.RS256, stranger, "", claimsFor(now, "ana@acme.test", "p2"))
		apptest.Want(t, attest(e, map[string]any{"profile_id": prof.ProfileID, "token": tok, "organization_id": org}),
			401, "invalid_trusted_auth_token")
		// An RSA key under 2048 bits is refused as a profile key.
		weak, err := rsa.GenerateKey(rand.Reader, 1024)
		if err != nil {
			t.Fatal(err)
		}
		wder, _ := x509.MarshalPKIXPublicKey(&weak.PublicKey)
		_, err = e.App.TrustedAuth.CreateProfile(t.Context(), trustedauth.NewProfile{ProjectID: e.Project.Project.ID,
			Env: e.Project.Project.Env, Issuer: issuerName, Audience: audience,
			PEMKeys: []string{string(pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: wder}))}})
		if err == nil {
			t.Fatal("a profile with a 1024-bit RSA key was created")
		}
	})
}

// Fetched keys are trusted for keysTTL (an hour), not for ever: a key the
// issuer withdrew from its JWKS still verifies while the keys are cached,
// and stops verifying once they are older than that and fetched again.
func TestAttestWithdrawnKeyExpiresFromCache(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		is, k1 := sc.is, sc.is.key("k1")
		call := func(jti string) apptest.Resp { // a token signed with k1
			return sc.attest(sign(t, jose.ES256, k1, "k1", claimsFor(e.Clock.Now(), "ana@acme.test", jti)))
		}
		apptest.Want(t, call("w1"), 200, "")
		is.addKey("k2")
		is.removeKey("k1")
		e.Clock.Advance(30 * time.Minute)
		apptest.Want(t, call("w2"), 200, "")
		e.Clock.Advance(31 * time.Minute)
		apptest.Want(t, call("w3"), 401, "invalid_trusted_auth_token")
	})
}

// Only the issuer's signing keys verify tokens: a key its JWKS publishes
// for encryption (use "enc") does not, though the token names it.
func TestAttestIgnoresEncryptionKeys(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		is := newIssuer(t)
		enc := is.addKey("e1")
		is.mu.Lock()
		is.uses["e1"] = "enc"
		is.mu.Unlock()
		prof := jwksProfile(t, e, is, nil)
		org := e.CreateOrg("acme", "NOT_ALLOWED", nil)
		e.CreateMember(org, "ana@acme.test")
		now := e.Clock.Now()
		apptest.Want(t, attest(e, map[string]any{"profile_id": prof.ProfileID, "organization_id": org,
			"token": sign(t, jose.ES256, enc, "e1", claimsFor(now, "ana@acme.test", "u1"))}), 401, "invalid_trusted_auth_token")
		apptest.Want(t, attest(e, map[string]any{"profile_id": prof.ProfileID, "organization_id": org,
			"token": is.token(now, "ana@acme.test", "u2", nil)}), 200, "")
	})
}

// key_ops says the same as use (RFC 7517 section 4.3): a key published
// with key_ops for encryption only, and no use, verifies no token; one
// whose key_ops include "verify" does.
func TestAttestIgnoresKeysWhoseKeyOpsAreNotVerify(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		enc := sc.is.addKey("e1")
		ver := sc.is.addKey("v1")
		sc.is.mu.Lock()
		sc.is.ops["e1"] = []string{"encrypt", "wrapKey"}
		sc.is.ops["v1"] = []string{"verify"}
		sc.is.mu.Unlock()
		now := e.Clock.Now()
		apptest.Want(t, sc.attest(sign(t, jose.ES256, enc, "e1", claimsFor(now, "ana@acme.test", "o1"))), 401, "invalid_trusted_auth_token")
		apptest.Want(t, sc.attest(sign(t, jose.ES256, ver, "v1", claimsFor(now, "ana@acme.test", "o2"))), 200, "")
	})
}

func TestAttestMFAAndExistingSession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		is := newIssuer(t)
		prof := jwksProfile(t, e, is, nil)
		now := e.Clock.Now()

		// An organization requiring MFA gets an IST, as from every login.
		strict := e.CreateOrg("strict", "NOT_ALLOWED", map[string]any{"mfa_policy": "REQUIRED_FOR_ALL"})
		e.CreateMember(strict, "cy@strict.test")
		r := attest(e, map[string]any{"profile_id": prof.ProfileID, "organization_id": strict,
			"token": is.token(now, "cy@strict.test", "m1", nil)})
		apptest.Want(t, r, 200, "")
		if r.Body["member_authenticated"] != false || r.Body["intermediate_session_token"] == "" || r.Body["session_token"] != "" {
			t.Fatalf("MFA: %s", r.Raw)
		}

		// With a session, the token is added to it and the old session ends.
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ana@acme.test")
		e.CreateMember(org, "bo@acme.test")
		old, _ := e.LoginByEmailOTP(org, "ana@acme.test")
		r = attest(e, map[string]any{"profile_id": prof.ProfileID, "organization_id": org, "session_token": old,
			"token": is.token(now, "bo@acme.test", "s1", nil)})
		apptest.Want(t, r, 403, "unauthorized_action")
		r = attest(e, map[string]any{"profile_id": prof.ProfileID, "organization_id": org, "session_token": old,
			"token": is.token(now, "ana@acme.test", "s2", nil)})
		apptest.Want(t, r, 200, "")
		var types []string
		for _, f := range factors(t, r.Body) {
			types = append(types, f["type"].(string))
		}
		if strings.Join(types, ",") != "email_otp,trusted_auth_token" {
			t.Fatalf("factors: %v", types)
		}
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/sessions/authenticate", map[string]any{"session_token": old}),
			404, "session_not_found")
		// An unknown session is refused before the token is looked at (and the token stays unspent).
		tok := is.token(now, "ana@acme.test", "s3", nil)
		apptest.Want(t, attest(e, map[string]any{"profile_id": prof.ProfileID, "organization_id": org, "session_token": "nope",
			"token": tok}), 404, "session_not_found")
		apptest.Want(t, attest(e, map[string]any{"profile_id": prof.ProfileID, "organization_id": org, "token": tok}), 200, "")
	})
}

func TestAttestKeyRotationAndOutage(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		is, call, now := sc.is, sc.attest, e.Clock.Now()

		// The issuer is down before anything was fetched: a clear error.
		is.down.Store(true)
		apptest.Want(t, call(is.token(now, "ana@acme.test", "r0", nil)), 502, "trusted_auth_token_keys_unavailable")
		is.down.Store(false)
		e.Clock.Advance(time.Minute)
		now = e.Clock.Now()
		apptest.Want(t, call(is.token(now, "ana@acme.test", "r1", nil)), 200, "")
		hits := is.hits.Load()
		e.Clock.Advance(31 * time.Second) // keys just fetched are not refetched for a made-up id
		now = e.Clock.Now()

		// A made-up key id refetches once, then not again within the gap.
		stranger, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
		for i := range 3 {
			tok := sign(t, jose.ES256, stranger, "k9", claimsFor(now, "ana@acme.test", "x"+string(rune('a'+i))))
			apptest.Want(t, call(tok), 401, "invalid_trusted_auth_token")
		}
		if got := is.hits.Load() - hits; got != 1 {
			t.Fatalf("refetches for unknown key ids: %d, want 1", got)
		}

		// The issuer rotates to a new key: after the gap, its tokens verify.
		e.Clock.Advance(time.Minute)
		now = e.Clock.Now()
		k2 := is.addKey("k2")
		tok := sign(t, jose.ES256, k2, "k2", claimsFor(now, "ana@acme.test", "r2"))
		apptest.Want(t, call(tok), 200, "")

		// An outage after a fetch keeps the known keys working, and the
		// stale keys are refetched at most once per gap: each login must
		// not wait (behind the key set's lock) for a fetch that fails.
		is.down.Store(true)
		e.Clock.Advance(2 * time.Hour)
		hits = is.hits.Load()
		for i := range 4 {
			now = e.Clock.Now()
			apptest.Want(t, call(sign(t, jose.ES256, k2, "k2", claimsFor(now, "ana@acme.test", "r3"+string(rune('a'+i))))), 200, "")
			e.Clock.Advance(time.Second)
		}
		// An unknown key id within the gap does not refetch either.
		apptest.Want(t, call(sign(t, jose.ES256, stranger, "k9", claimsFor(now, "ana@acme.test", "r4"))), 401, "invalid_trusted_auth_token")
		if got := is.hits.Load() - hits; got != 1 {
			t.Fatalf("JWKS fetched %d times for 5 logins within 5 s of an outage, want 1", got)
		}
		// Past the gap the next login tries again; once the issuer is back,
		// its keys are fresh again.
		e.Clock.Advance(30 * time.Second) // the refetch gap
		apptest.Want(t, call(sign(t, jose.ES256, k2, "k2", claimsFor(e.Clock.Now(), "ana@acme.test", "r5"))), 200, "")
		if got := is.hits.Load() - hits; got != 2 {
			t.Fatalf("JWKS fetched %d times after the gap, want 2", got)
		}
		is.down.Store(false)
		e.Clock.Advance(30 * time.Second)
		apptest.Want(t, call(sign(t, jose.ES256, k2, "k2", claimsFor(e.Clock.Now(), "ana@acme.test", "r6"))), 200, "")
		apptest.Want(t, call(sign(t, jose.ES256, k2, "k2", claimsFor(e.Clock.Now(), "ana@acme.test", "r7"))), 200, "")
		if got := is.hits.Load() - hits; got != 3 {
			t.Fatalf("JWKS fetched %d times once the issuer was back, want 3 (the refreshed keys are fresh)", got)
		}
	})
}

func TestAttestRateLimit(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		now := e.Clock.Now()
		bad := sc.is.token(now, "ana@acme.test", "z", map[string]any{"aud": "elsewhere"})
		// Counted per end-user address: on the SDK face. The backend face's
		// address is the customer's server (ratelimit.OnBehalf).
		sdkAttest := func(tok string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/sessions/attest", sc.body(tok), "")
		}
		for range trustedauth.AttestPerIP.Limit {
			apptest.Want(t, sdkAttest(bad), 401, "invalid_trusted_auth_token")
		}
		apptest.Want(t, sdkAttest(bad), 429, "too_many_requests")
		apptest.Want(t, sc.attest(bad), 401, "invalid_trusted_auth_token")
		// A valid token still passes: signed tokens cannot be guessed.
		apptest.Want(t, sdkAttest(sc.is.token(now, "ana@acme.test", "ok", nil)), 200, "")
		// Counted per project, as every per-address limit: failures at one
		// customer's login do not refuse the same address at another's.
		p2 := e.NewProject("Other")
		prof2, err := e.App.TrustedAuth.CreateProfile(t.Context(), trustedauth.NewProfile{ProjectID: p2.Project.ID,
			Env: p2.Project.Env, Issuer: issuerName, Audience: audience, JWKSURL: sc.is.srv.URL + "/.well-known/jwks.json"})
		if err != nil {
			t.Fatal(err)
		}
		r := e.Do(http.MethodPost, "/sdk/v1/b2b/sessions/attest", map[string]any{"profile_id": prof2.ProfileID, "token": bad,
			"organization_id": sc.org}, http.Header{"Origin": {apptest.Origin}}, p2.PublicToken, p2.PublicToken)
		apptest.Want(t, r, 401, "invalid_trusted_auth_token")
	})
}

// A deleted member cannot log in by a trusted auth token, though the
// issuer signs for their address: the attestation is refused
// inactive_member.
func TestAttestRefusesDeletedMember(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		is := newIssuer(t)
		prof := jwksProfile(t, e, is, nil)
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		mid := e.CreateMember(org, "ada@acme.test")
		apptest.Want(t, e.Backend(http.MethodDelete, "/v1/b2b/organizations/"+org+"/members/"+mid, nil), 200, "")
		r := attest(e, map[string]any{"profile_id": prof.ProfileID, "organization_id": org,
			"token": is.token(e.Clock.Now(), "ada@acme.test", "a", nil)})
		apptest.Want(t, r, 403, "inactive_member")
	})
}

// A token that itself says its email is not verified (email_verified
// false, as Auth0, Firebase or Supabase sign for addresses nobody
// confirmed) must not log into the member who owns that address, mark the
// address verified, or provision a member: anyone who signs up at the
// issuer with someone else's address would get their session. Only true
// or "true" says verified; an absent claim is the issuer vouching, as
// before.
func TestAttestEmailVerifiedClaim(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		is := newIssuer(t)
		prof := jwksProfile(t, e, is, func(n *trustedauth.NewProfile) {
			n.AttributeMapping.OrganizationID, n.CanJITProvision = "org_id", true
		})
		org := e.CreateOrg("acme", "RESTRICTED", map[string]any{"email_allowed_domains": []string{"acme.test"}})
		ceo := e.CreateMember(org, "ceo@acme.test")
		now := e.Clock.Now()
		call := func(email, jti string, verified any) apptest.Resp { // nil: no email_verified claim
			claims := map[string]any{"org_id": org, "email_verified": verified}
			return attest(e, map[string]any{"profile_id": prof.ProfileID, "token": is.token(now, email, jti, claims)})
		}
		for i, v := range []any{false, "false", "yes", 0} {
			r := call("ceo@acme.test", "uv"+strconv.Itoa(i), v)
			apptest.Want(t, r, 401, "invalid_trusted_auth_token")
			if msg, _ := r.Body["error_message"].(string); !strings.Contains(msg, "email_verified") {
				t.Fatalf("email_verified %v: message %q does not name the claim", v, msg)
			}
		}
		// Nobody was provisioned for an unverified address the organization admits.
		apptest.Want(t, call("new@acme.test", "uv-jit", false), 401, "invalid_trusted_auth_token")
		if n := e.Count(`SELECT COUNT(*) FROM members WHERE email_address = $1`, "new@acme.test"); n != 0 {
			t.Fatalf("an unverified address was provisioned: %d members", n)
		}
		if e.MemberByID(org, ceo)["email_address_verified"] != false {
			t.Fatal("a refused token marked the member's address verified")
		}
		for i, v := range []any{true, "true", nil} {
			r := call("ceo@acme.test", "v"+strconv.Itoa(i), v)
			apptest.Want(t, r, 200, "")
			if r.Body["member_id"] != ceo {
				t.Fatalf("email_verified %v: %s", v, r.Raw)
			}
		}
		if e.MemberByID(org, ceo)["email_address_verified"] != true {
			t.Fatal("a verified token left the member's address unverified")
		}
	})
}

// jsonForm re-encodes a compact token in the JWS JSON serialization, which
// verifies as well: a trusted auth token is a JWT, and JWTs are compact.
func jsonForm(t *testing.T, compact string) string {
	t.Helper()
	parsed, err := jose.ParseSigned(compact, []jose.SignatureAlgorithm{jose.ES256})
	if err != nil {
		t.Fatal(err)
	}
	return parsed.FullSerialize()
}

// A stale session sent with an attestation is checked by
// session.Service.Check: it counts against the client's address like a
// failed session check, so with sessions/authenticate it reaches
// session.FailuresPerIP, past which attest refuses another with 429 while
// a valid session still passes.
func TestAttestSessionFailuresCounted(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		sc := newScene(t, e)
		now := e.Clock.Now()
		valid, _ := e.LoginByEmailOTP(sc.org, "ana@acme.test")
		sdkAttest := func(session, jti string) apptest.Resp {
			body := sc.body(sc.is.token(now, "ana@acme.test", jti, nil))
			body["session_token"] = session
			return e.SDK(http.MethodPost, "/b2b/sessions/attest", body, "")
		}
		for i := range session.FailuresPerIP.Limit {
			stale := fmt.Sprintf("stale-%d", i)
			if i%2 == 0 {
				apptest.Want(t, sdkAttest(stale, "t"), 404, "session_not_found")
			} else {
				apptest.Want(t, e.SDK(http.MethodPost, "/b2b/sessions/authenticate", map[string]any{}, stale), 404, "session_not_found")
			}
		}
		apptest.Want(t, sdkAttest("stale-again", "t"), 429, "too_many_requests")
		apptest.Want(t, sdkAttest(valid, "t"), 200, "")
	})
}
