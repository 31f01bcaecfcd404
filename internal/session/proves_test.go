package session

import "testing"

// Only a link or code sent to the address proves it to every organization.
func TestProvesInbox(t *testing.T) {
	t.Parallel()
	const email = "ada@acme.test"
	inbox := func(kind, delivery, addr string) Factor {
		return Factor{Type: kind, DeliveryMethod: delivery, EmailFactor: &EmailFactor{EmailID: "email-1", EmailAddress: addr}}
	}
	cases := []struct {
		name string
		f    Factor
		want bool
	}{
		{"magic link", inbox("magic_link", "email", email), true},
		{"email code", inbox("otp", "email", email), true},
		{"another case", inbox("otp", "email", "Ada@ACME.test"), true},
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
	if AnyProvesAddress([]Factor{{Type: "sso"}, inbox("otp", "email", "eve@acme.test")}, email) ||
		!AnyProvesAddress([]Factor{{Type: "sso"}, inbox("otp", "email", email)}, email) {
		t.Error("AnyProvesAddress")
	}
}
