package organization

import (
	"testing"

	"github.com/latchkey/latchkey/internal/apierr"
)

// The organization's email policies decide who may join by email (JIT)
// and who may be invited: RESTRICTED admits only the allowed domains,
// NOT_ALLOWED (and anything unset) admits nobody, each refusal with its
// own type. The domain is compared whole: a subdomain or a look-alike of
// an allowed domain is refused.
func TestEmailPoliciesAdmitOnlyWhatTheyName(t *testing.T) {
	domains := []string{"acme.test"}
	type check struct {
		name   string
		policy string
		email  string
		want   apierr.Type
	}
	jit := []check{
		{"all allowed", AllAllowed, "ana@else.test", ""},
		{"restricted, allowed domain", Restricted, "ana@acme.test", ""},
		{"restricted, other domain", Restricted, "ana@else.test", apierr.InvalidEmailForJITProvisioning},
		{"restricted, subdomain", Restricted, "ana@x.acme.test", apierr.InvalidEmailForJITProvisioning},
		{"restricted, suffix look-alike", Restricted, "ana@evilacme.test", apierr.InvalidEmailForJITProvisioning},
		{"not allowed", NotAllowed, "ana@acme.test", apierr.EmailJITProvisioningNotAllowed},
		{"unset", "", "ana@acme.test", apierr.EmailJITProvisioningNotAllowed},
	}
	for _, c := range jit {
		o := &Organization{EmailJITProvisioning: c.policy, EmailAllowedDomains: domains}
		wantErr(t, "jit "+c.name, o.CheckEmailJIT(c.email), c.want)
	}
	invite := []check{
		{"all allowed", AllAllowed, "ana@else.test", ""},
		{"restricted, allowed domain", Restricted, "ana@acme.test", ""},
		{"restricted, other domain", Restricted, "ana@else.test", apierr.InvalidEmailForInvites},
		{"restricted, subdomain", Restricted, "ana@x.acme.test", apierr.InvalidEmailForInvites},
		{"not allowed", NotAllowed, "ana@acme.test", apierr.EmailInvitesNotAllowed},
	}
	for _, c := range invite {
		o := &Organization{EmailInvites: c.policy, EmailAllowedDomains: domains}
		wantErr(t, "invite "+c.name, o.CheckEmailInvite(c.email), c.want)
	}
}

// A RESTRICTED auth_methods list admits only the methods it names; any
// other setting admits every method.
func TestAllowsAuthMethodHonoursTheRestrictedList(t *testing.T) {
	o := &Organization{AuthMethods: Restricted, AllowedAuthMethods: []string{"sso"}}
	if !o.AllowsAuthMethod("sso") || o.AllowsAuthMethod("magic_link") || o.AllowsAuthMethod("password") {
		t.Fatalf("RESTRICTED to sso: sso %v, magic_link %v, password %v",
			o.AllowsAuthMethod("sso"), o.AllowsAuthMethod("magic_link"), o.AllowsAuthMethod("password"))
	}
	if o.AllowsAuthMethodFor(&Member{}, "magic_link") || !o.AllowsAuthMethodFor(&Member{IsBreakglass: true}, "magic_link") {
		t.Fatal("only a break-glass member is exempt from the list")
	}
	open := &Organization{AuthMethods: AllAllowed}
	if !open.AllowsAuthMethod("magic_link") {
		t.Fatal("ALL_ALLOWED refused magic_link")
	}
}

func wantErr(t *testing.T, what string, err error, want apierr.Type) {
	t.Helper()
	switch {
	case want == "" && err != nil:
		t.Errorf("%s: refused: %v", what, err)
	case want != "" && !apierr.Is(err, want):
		t.Errorf("%s: got %v, want %s", what, err, want)
	}
}
