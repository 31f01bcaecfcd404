package magiclink_test

import (
	"context"
	"maps"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// backendLink is apptest.Env.SendLink on the backend face.
func backendLink(e *apptest.Env, org, email string, extra map[string]any) apptest.Resp {
	body := map[string]any{"email_address": email, "organization_id": org}
	maps.Copy(body, extra)
	return e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/login_or_signup", body)
}

// mails is how many messages the dev outbox holds for to.
func mails(e *apptest.Env, to string) int {
	e.T.Helper()
	msgs, err := e.App.Outbox.List(context.Background(), to, 0)
	if err != nil {
		e.T.Fatal(err)
	}
	return len(msgs)
}

// A magic-link send is one transaction: each successful send stores one
// link and queues one mail; a refused send leaves nothing behind (no
// member, no link, no mail) even when it is refused after the member was
// found or created, and still counts against the client address.
func TestMagicLinkSendLimitsAndAtomicity(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		for i := range magiclink.SendPerEmail.Limit {
			if r := e.SendLink(org, "many@acme.test", nil); r.Status != 200 {
				t.Fatalf("send %d: %s", i+1, r.Raw)
			}
			if n := mails(e, "many@acme.test"); n != i+1 {
				t.Fatalf("after send %d: %d mails, want %d", i+1, n, i+1)
			}
		}
		apptest.Want(t, e.SendLink(org, "many@acme.test", nil), 429, "too_many_requests")
		if n := mails(e, "many@acme.test"); n != magiclink.SendPerEmail.Limit {
			t.Fatalf("%d mails, want %d: a refused send mailed a link", n, magiclink.SendPerEmail.Limit)
		}
		if n := e.Count(`SELECT COUNT(*) FROM magic_links`); n != magiclink.SendPerEmail.Limit {
			t.Fatalf("%d links stored, want %d", n, magiclink.SendPerEmail.Limit)
		}

		// Refused once the new member is known (on the backend face, a
		// signup link needs a signup URL, and the project has none): the
		// member JIT would have created is not kept.
		if err := e.App.Projects.RemoveRedirectURL(t.Context(), e.Project.Project.ID, apptest.Page,
			[]project.RedirectType{project.RedirectSignup}); err != nil {
			t.Fatal(err)
		}
		apptest.Want(t, backendLink(e, org, "new@acme.test", nil), 400, "no_signup_redirect_urls_set")
		if m := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address=new@acme.test", nil); m.Status != 404 {
			t.Fatalf("a refused send left a member behind: %s", m.Raw)
		}
		if n := e.Count(`SELECT COUNT(*) FROM magic_links`); n != magiclink.SendPerEmail.Limit {
			t.Fatalf("%d links stored after a refused send, want %d", n, magiclink.SendPerEmail.Limit)
		}
		if n := mails(e, "new@acme.test"); n != 0 {
			t.Fatalf("a refused send mailed %d links", n)
		}

		// Every SDK send so far counted against the client address, refused
		// ones included (the backend's did not: ratelimit.OnBehalf), and
		// so do sends refused before the member is looked up: the address
		// runs out at its limit.
		bad := map[string]any{"login_redirect_url": "https://unregistered.test/login"}
		for i := magiclink.SendPerEmail.Limit + 1; i < magiclink.SendPerIP.Limit; i++ {
			apptest.Want(t, e.SendLink(org, "new@acme.test", bad), 400, "no_match_for_provided_magic_link_url")
		}
		apptest.Want(t, e.SendLink(org, "other@acme.test", nil), 429, "too_many_requests")
		if n := mails(e, "other@acme.test"); n != 0 {
			t.Fatalf("a send over the address limit mailed %d links", n)
		}
	})
}

// A discovery link send is one transaction too: a refused send stores no
// link and queues no mail.
func TestDiscoveryLinkSendLimitsAndAtomicity(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		send := func(email string, extra map[string]any) apptest.Resp {
			body := map[string]any{"email_address": email}
			for k, v := range extra {
				body[k] = v
			}
			return e.SDK(http.MethodPost, "/b2b/magic_links/email/discovery/send", body, "")
		}
		for i := range discovery.SendPerEmail.Limit {
			if r := send("ada@corp.test", nil); r.Status != 200 {
				t.Fatalf("send %d: %s", i+1, r.Raw)
			}
		}
		apptest.Want(t, send("ada@corp.test", nil), 429, "too_many_requests")
		if n := mails(e, "ada@corp.test"); n != discovery.SendPerEmail.Limit {
			t.Fatalf("%d mails, want %d: a refused send mailed a link", n, discovery.SendPerEmail.Limit)
		}
		if n := e.Count(`SELECT COUNT(*) FROM discovery_magic_links`); n != discovery.SendPerEmail.Limit {
			t.Fatalf("%d links stored, want %d", n, discovery.SendPerEmail.Limit)
		}
		apptest.Want(t, send("bob@corp.test", map[string]any{"discovery_redirect_url": "https://unregistered.test/d"}), 400,
			"no_match_for_provided_magic_link_url")
		if n := e.Count(`SELECT COUNT(*) FROM discovery_magic_links`); n != discovery.SendPerEmail.Limit {
			t.Fatalf("%d links stored after a refused send, want %d", n, discovery.SendPerEmail.Limit)
		}
		if n := mails(e, "bob@corp.test"); n != 0 {
			t.Fatalf("a refused send mailed %d links", n)
		}
		if r := send("bob@corp.test", nil); r.Status != 200 || mails(e, "bob@corp.test") != 1 {
			t.Fatalf("send after a refusal: %s, %d mails", r.Raw, mails(e, "bob@corp.test"))
		}
	})
}

// A mailer that is not transactional (here: no delivery configured) runs
// after the send's commit; when it fails, the link or code it would have
// carried is spent, so no live secret exists that nobody received. Every
// login email goes out through notify.SendCounted; this covers each caller.
func TestMagicLinkSendWithoutDeliveryLeavesNoLiveLink(t *testing.T) {
	apptest.Schema.Each(t, func(t *testing.T, db *store.DB) {
		e := apptest.New(t, db, func(c *config.Config) {
			c.Dev, c.SMTPURL, c.EncryptionKey = false, "", apptest.TestEncryptionKey
		})
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		apptest.Want(t, e.SendLink(org, "ada@acme.test", nil), 503, "email_delivery_failed")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/discovery/send", map[string]any{"email_address": "ada@acme.test"}, ""),
			503, "email_delivery_failed")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/email/discovery/send", map[string]any{"email_address": "ada@acme.test"}, ""),
			503, "email_delivery_failed")
		apptest.Want(t, e.SendCode(org, "ada@acme.test"), 503, "email_delivery_failed")
		if n := e.Count(`SELECT COUNT(*) FROM discovery_email_otps WHERE used_at IS NULL`); n != 0 {
			t.Fatalf("%d live discovery codes after a failed delivery", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM email_otps WHERE used_at IS NULL`); n != 0 {
			t.Fatalf("%d live email codes after a failed delivery", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM email_otps`); n != 1 {
			t.Fatalf("%d email codes stored, want the spent one", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM magic_links WHERE used_at IS NULL`); n != 0 {
			t.Fatalf("%d live links after failed deliveries", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM discovery_magic_links WHERE used_at IS NULL`); n != 0 {
			t.Fatalf("%d live discovery links after failed deliveries", n)
		}
		if n := e.Count(`SELECT COUNT(*) FROM magic_links`) + e.Count(`SELECT COUNT(*) FROM discovery_magic_links`); n != 2 {
			t.Fatalf("%d links stored, want the 2 spent ones", n)
		}
	})
}

// A discovery code send is one transaction: each send stores one code and
// queues one mail, a refused one neither, and refusals count against the
// client address.
func TestDiscoveryCodeSendLimitsAndAtomicity(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		send := func(email string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/otps/email/discovery/send", map[string]any{"email_address": email}, "")
		}
		for i := range discovery.SendPerEmail.Limit {
			if r := send("ada@corp.test"); r.Status != 200 {
				t.Fatalf("send %d: %s", i+1, r.Raw)
			}
		}
		apptest.Want(t, send("ada@corp.test"), 429, "too_many_requests")
		if n := mails(e, "ada@corp.test"); n != discovery.SendPerEmail.Limit {
			t.Fatalf("%d mails, want %d: a refused send mailed a code", n, discovery.SendPerEmail.Limit)
		}
		if n := e.Count(`SELECT COUNT(*) FROM discovery_email_otps`); n != discovery.SendPerEmail.Limit {
			t.Fatalf("%d codes stored, want %d", n, discovery.SendPerEmail.Limit)
		}
		for range discovery.SendPerIP.Limit - discovery.SendPerEmail.Limit - 1 {
			apptest.Want(t, send("ada@corp.test"), 429, "too_many_requests")
		}
		apptest.Want(t, send("bob@corp.test"), 429, "too_many_requests")
		if n := mails(e, "bob@corp.test"); n != 0 {
			t.Fatalf("a send over the address limit mailed %d codes", n)
		}
	})
}

// Whether an address is an active member decides which half of a
// login_or_signup send (login or signup URL and lifetime) is used, but not
// which fields are checked: every redirect URL the request names and both
// lifetimes are checked before the member is looked up, so a refusal reads
// the same for a member and a stranger on either face, and a stranger's
// refused send mails nothing and creates no member.
func TestMagicLinkSendRefusalsDoNotTellMembers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		faces := map[string]func(email string, extra map[string]any) apptest.Resp{
			"sdk":     func(email string, extra map[string]any) apptest.Resp { return e.SendLink(org, email, extra) },
			"backend": func(email string, extra map[string]any) apptest.Resp { return backendLink(e, org, email, extra) },
		}
		cases := []struct {
			name    string
			extra   map[string]any
			errType string
			field   string // error_details.field of an invalid_request
		}{
			{"unregistered login url", map[string]any{"login_redirect_url": "https://unregistered.test/login"},
				"no_match_for_provided_magic_link_url", ""},
			{"unregistered signup url", map[string]any{"signup_redirect_url": "https://unregistered.test/signup"},
				"no_match_for_provided_magic_link_url", ""},
			{"login lifetime out of range", map[string]any{"login_expiration_minutes": magiclink.MinExpiryMinutes - 1},
				"invalid_request", "login_expiration_minutes"},
			{"signup lifetime out of range", map[string]any{"signup_expiration_minutes": magiclink.MaxExpiryMinutes + 1},
				"invalid_request", "signup_expiration_minutes"},
		}
		for face, send := range faces {
			for _, c := range cases {
				for _, email := range []string{"ada@acme.test", "stranger@acme.test"} {
					r := send(email, c.extra)
					if r.Status != 400 || r.ErrType() != c.errType {
						t.Errorf("%s, %s, to %s: got %d %q, want 400 %q: %s", face, c.name, email, r.Status, r.ErrType(), c.errType, r.Raw)
					}
					if d, _ := r.Body["error_details"].(map[string]any); c.field != "" && d["field"] != c.field {
						t.Errorf("%s, %s, to %s: error_details %v, want field %s", face, c.name, email, d, c.field)
					}
				}
			}
		}
		if n := mails(e, "ada@acme.test") + mails(e, "stranger@acme.test"); n != 0 {
			t.Fatalf("refused sends mailed %d links", n)
		}
		if m := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address=stranger@acme.test", nil); m.Status != 404 {
			t.Fatalf("a refused send left a member behind: %s", m.Raw)
		}
	})
}

// On the backend face, whose caller holds the project secret and may ask
// who is a member, only the half a send uses needs a default redirect URL:
// a project with no signup URL still sends members their login links, and
// a URL the request names for the other half must be registered all the
// same.
func TestMagicLinkSendDefaultsOnlyForTheHalfUsed(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		if err := e.App.Projects.RemoveRedirectURL(t.Context(), e.Project.Project.ID, apptest.Page,
			[]project.RedirectType{project.RedirectSignup}); err != nil {
			t.Fatal(err)
		}
		if r := backendLink(e, org, "ada@acme.test", map[string]any{"login_redirect_url": apptest.Page}); r.Status != 200 {
			t.Fatalf("login link without signup URLs: %s", r.Raw)
		}
		if links, _ := e.LastMail("ada@acme.test"); !strings.HasPrefix(links[0], apptest.Page+"?") {
			t.Fatalf("login link %q does not go to %s", links[0], apptest.Page)
		}
		apptest.Want(t, backendLink(e, org, "new@acme.test", nil), 400, "no_signup_redirect_urls_set")
		for _, email := range []string{"ada@acme.test", "new@acme.test"} {
			apptest.Want(t, backendLink(e, org, email, map[string]any{"signup_redirect_url": apptest.Page}), 400, "no_signup_redirect_urls_set")
		}
	})
}

// On the SDK face, whose caller holds only the public token, a send needs
// a URL for both halves (named, or the type's default) before the member
// is looked up: a project with login URLs only (or signup URLs only)
// refuses an active member, a pending one and a stranger alike, with the
// missing type's error, and sends nothing. Checking only the half the
// member's status picks told active members (200) from everyone else
// (no_signup_redirect_urls_set).
func TestMagicLinkSDKSendNeedsBothHalves(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		// A pending member: a stranger's earlier send created them.
		if r := e.SendLink(org, "pat@acme.test", nil); r.Status != 200 {
			t.Fatalf("send to a stranger: %s", r.Raw)
		}
		before := mails(e, "pat@acme.test")
		addresses := []string{"ada@acme.test", "pat@acme.test", "stranger@acme.test"}
		for _, c := range []struct {
			missing project.RedirectType
			errType string
		}{
			{project.RedirectSignup, "no_signup_redirect_urls_set"},
			{project.RedirectLogin, "no_login_redirect_urls_set"},
		} {
			if err := e.App.Projects.RemoveRedirectURL(t.Context(), e.Project.Project.ID, apptest.Page,
				[]project.RedirectType{c.missing}); err != nil {
				t.Fatal(err)
			}
			for _, extra := range []map[string]any{nil, {"login_redirect_url": apptest.Page}, {"signup_redirect_url": apptest.Page}} {
				if extra[string(c.missing)+"_redirect_url"] != nil {
					continue // names an unregistered URL: refused for everyone anyway
				}
				for _, email := range addresses {
					r := e.SendLink(org, email, extra)
					if r.Status != 400 || r.ErrType() != c.errType {
						t.Errorf("no %s URL, %v, to %s: got %d %q, want 400 %q: %s", c.missing, extra, email, r.Status, r.ErrType(),
							c.errType, r.Raw)
					}
				}
			}
			if err := e.App.Projects.AddRedirectURL(t.Context(), e.Project.Project.ID, apptest.Page,
				[]project.RedirectType{c.missing}); err != nil {
				t.Fatal(err)
			}
		}
		if n := mails(e, "ada@acme.test") + mails(e, "pat@acme.test") - before + mails(e, "stranger@acme.test"); n != 0 {
			t.Fatalf("refused sends mailed %d links", n)
		}
		if m := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address=stranger@acme.test", nil); m.Status != 404 {
			t.Fatalf("a refused send left a member behind: %s", m.Raw)
		}
		// Both halves there: everyone is sent a link.
		for _, email := range addresses {
			if r := e.SendLink(org, email, nil); r.Status != 200 {
				t.Fatalf("send to %s: %s", email, r.Raw)
			}
		}
	})
}
