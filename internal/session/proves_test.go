package session

import (
	"strings"
	"testing"
)

// Only a link or code sent to the address proves it to every organization.
func TestProvesInbox(t *testing.T) {
	t.Parallel()
	const email = "kate@acme.test"
	inbox := func(kind, delivery, addr string) Factor {
		return Factor{Type: kind, DeliveryMethod: delivery, EmailFactor: &EmailFactor{EmailID: "email-1", EmailAddress: addr}}
	}
	cases := []struct {
		name string
		f    Factor
		want bool
	}{
		{"magic link", inbox("magic_link", "email", email), true},
		{"email code", inbox(EmailOTPType, "email", email), true},
		{"another case", inbox(EmailOTPType, "email", "Kate@ACME.test"), true},
		// Unicode folding is no match: the Kelvin sign is not k.
		{"another letter that folds alike", inbox(EmailOTPType, "email", "\u212Aate@acme.test"), false},
		{"another address", inbox("magic_link", "email", "eve@acme.test"), false},
		{"no address", Factor{Type: "magic_link", DeliveryMethod: "email"}, false},
		{"sms code", Factor{Type: "otp", DeliveryMethod: "sms", PhoneNumberFactor: &PhoneNumberFactor{}}, false},
		{"password", inbox("password", "knowledge", email), false},
		{"sso", Factor{Type: "sso", DeliveryMethod: "sso_oidc", OIDCSSOFactor: &SSOFactor{}}, false},
		{"oauth", inbox("oauth", "oauth_google", email), false},
	}
	for _, c := range cases {
		if got := c.f.ProvesInbox(email); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if got := c.f.ProvesAddress(email); got != (c.want || c.name == "password") {
			t.Errorf("%s: ProvesAddress %v", c.name, got)
		}
	}
	// A password proves only the address it was checked for.
	if (Factor{Type: "password", DeliveryMethod: "knowledge", EmailFactor: &EmailFactor{EmailAddress: "eve@acme.test"}}).ProvesAddress(email) {
		t.Error("a password login for another address proves this one")
	}
	if AnyProvesAddress([]Factor{{Type: "sso"}, inbox(EmailOTPType, "email", "eve@acme.test")}, email) ||
		!AnyProvesAddress([]Factor{{Type: "sso"}, inbox(EmailOTPType, "email", email)}, email) {
		t.Error("AnyProvesAddress")
	}
}

// What sessions/exchange carries: a primary factor that proved the
// address, by the inbox or by an OAuth provider that verified it.
func TestCarries(t *testing.T) {
	t.Parallel()
	const email = "ada@acme.test"
	google := func(verified string) Factor {
		return Factor{Type: "oauth", DeliveryMethod: "oauth_google", SequenceOrder: Primary,
			GoogleOAuthFactor: &OAuthFactor{ID: "reg-1", ProviderSubject: "g-ada"}}.WithVerifiedEmail(verified)
	}
	primary := func(f Factor) Factor { f.SequenceOrder = Primary; return f }
	cases := []struct {
		name string
		f    Factor
		want bool
	}{
		{"email code", primary(Factor{Type: EmailOTPType, DeliveryMethod: "email", EmailFactor: &EmailFactor{EmailAddress: email}}), true},
		{"email code as a second factor", Factor{Type: EmailOTPType, DeliveryMethod: "email", SequenceOrder: Secondary,
			EmailFactor: &EmailFactor{EmailAddress: email}}, false},
		{"oauth, address verified by the provider", google(email), true},
		{"oauth, verified in another case", google("Ada@ACME.test"), true},
		{"oauth, verified with a letter that folds alike", google("Ada@acme.te\u017Ft"), false},
		{"oauth, another address verified", google("ada@gmail.test"), false},
		{"oauth, nothing verified", google(""), false},
		{"sso claiming a verified address", primary(Factor{Type: "sso", DeliveryMethod: "sso_oidc", OIDCSSOFactor: &SSOFactor{}}.WithVerifiedEmail(email)), false},
		{"access token exchange claiming a verified address", primary(Factor{Type: "oauth", DeliveryMethod: "oauth_access_token_exchange",
			OAuthAccessTokenExchangeFactor: &OAuthAccessTokenExchangeFactor{ClientID: "c"}}.WithVerifiedEmail(email)), false},
		{"password", primary(Factor{Type: "password", DeliveryMethod: "knowledge", EmailFactor: &EmailFactor{EmailAddress: email}}), false},
	}
	for _, c := range cases {
		if got := c.f.Carries(email); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if got := AnyCarries([]Factor{{Type: "sso"}, c.f}, email); got != c.want {
			t.Errorf("%s: AnyCarries %v", c.name, got)
		}
	}
	// A provider's verification does not let the session set the
	// address's password (ProvesAddress), which every organization that
	// accepts passwords would then accept.
	if google(email).ProvesAddress(email) || google(email).ProvesInbox(email) {
		t.Error("a verified OAuth login proves the address for passwords")
	}
}

// What discovery's create and email JIT accept as verifying the address
// as it happened: what carries, and a password just set through a reset
// link emailed to the address; not a returning password, nor SSO.
func TestVerifiesAddress(t *testing.T) {
	t.Parallel()
	const email = "ada@acme.test"
	primary := func(kind, delivery, addr string) Factor {
		return Factor{Type: kind, DeliveryMethod: delivery, SequenceOrder: Primary, EmailFactor: &EmailFactor{EmailAddress: addr}}
	}
	google := Factor{Type: "oauth", DeliveryMethod: "oauth_google", SequenceOrder: Primary,
		GoogleOAuthFactor: &OAuthFactor{ProviderSubject: "g-ada"}}
	cases := []struct {
		name string
		f    Factor
		want bool
	}{
		{"magic link", primary("magic_link", "email", email), true},
		{"email code", primary(EmailOTPType, "email", email), true},
		{"oauth, address verified by the provider", google.WithVerifiedEmail(email), true},
		{"oauth, nothing verified", google, false},
		{"password set by a reset link", primary("password", "email", email), true},
		{"password set by a reset link for another address", primary("password", "email", "eve@acme.test"), false},
		{"returning password", primary("password", "knowledge", email), false},
		{"reset password as a second factor", Factor{Type: "password", DeliveryMethod: "email", SequenceOrder: Secondary,
			EmailFactor: &EmailFactor{EmailAddress: email}}, false},
		{"sso", Factor{Type: "sso", DeliveryMethod: "sso_saml", SequenceOrder: Primary, SAMLSSOFactor: &SSOFactor{}}, false},
	}
	for _, c := range cases {
		if got := c.f.VerifiesAddress(email); got != c.want {
			t.Errorf("%s: %v, want %v", c.name, got, c.want)
		}
		if got := AnyVerifiesAddress([]Factor{primary("password", "knowledge", email), c.f}, email); got != c.want {
			t.Errorf("%s: AnyVerifiesAddress %v", c.name, got)
		}
	}
}

// The provenance is stored beside the wire objects, never in them, and
// rows without it (factor_proofs '[]') prove nothing.
func TestFactorProofsStoredBesideTheFactors(t *testing.T) {
	t.Parallel()
	const email = "ada@acme.test"
	code := Factor{Type: "otp", DeliveryMethod: "sms", SequenceOrder: Secondary, PhoneNumberFactor: &PhoneNumberFactor{PhoneID: "p"}}
	google := Factor{Type: "oauth", DeliveryMethod: "oauth_google", SequenceOrder: Primary,
		GoogleOAuthFactor: &OAuthFactor{ID: "reg-1", ProviderSubject: "g-ada"}}
	wire, proofs, err := encodeFactors([]Factor{google.WithVerifiedEmail(email), code})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(wire, email) || strings.Contains(wire, "verified") {
		t.Fatalf("provenance in the wire objects: %s", wire)
	}
	got, err := decodeFactors(wire, proofs)
	if err != nil || len(got) != 2 || !got[0].Carries(email) || got[1].verifiedEmail != "" {
		t.Fatalf("decoded %+v, %v (proofs %s)", got, err, proofs)
	}
	wire, proofs, err = encodeFactors([]Factor{google, code})
	if err != nil || proofs != "[]" {
		t.Fatalf("proofs of factors that proved nothing: %q, %v", proofs, err)
	}
	got, err = decodeFactors(wire, `[]`)
	if err != nil || len(got) != 2 || got[0].Carries(email) {
		t.Fatalf("a row without proofs: %+v, %v", got, err)
	}
	if _, err := decodeFactors(wire, `{`); err == nil {
		t.Fatal("a corrupt factor_proofs column decoded")
	}
}
