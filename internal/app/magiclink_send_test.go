package app_test

import (
	"context"
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

// count runs a COUNT(*) query and fails the test on error.
func (e *env) count(query string, args ...any) int {
	e.t.Helper()
	var n int
	if err := e.app.DB.Read().QueryRowContext(context.Background(), query, args...).Scan(&n); err != nil {
		e.t.Fatalf("%s: %v", query, err)
	}
	return n
}

// mails is how many messages the dev outbox holds for to.
func (e *env) mails(to string) int {
	e.t.Helper()
	msgs, err := e.app.Outbox.List(context.Background(), to, 0)
	if err != nil {
		e.t.Fatal(err)
	}
	return len(msgs)
}

// A magic-link send is one transaction: each successful send stores one
// link and queues one mail; a refused send leaves nothing behind (no
// member, no link, no mail) even when it is refused after the member was
// found or created, and still counts against the client address.
func TestMagicLinkSendLimitsAndAtomicity(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		org := e.createOrg("acme", "ALL_ALLOWED")
		for i := range magiclink.SendPerEmail.Limit {
			if r := e.sendLink(org, "many@acme.test", nil); r.Status != 200 {
				t.Fatalf("send %d: %s", i+1, r.Raw)
			}
			if n := e.mails("many@acme.test"); n != i+1 {
				t.Fatalf("after send %d: %d mails, want %d", i+1, n, i+1)
			}
		}
		want(t, e.sendLink(org, "many@acme.test", nil), 429, "too_many_requests")
		if n := e.mails("many@acme.test"); n != magiclink.SendPerEmail.Limit {
			t.Fatalf("%d mails, want %d: a refused send mailed a link", n, magiclink.SendPerEmail.Limit)
		}
		if n := e.count(`SELECT COUNT(*) FROM magic_links`); n != magiclink.SendPerEmail.Limit {
			t.Fatalf("%d links stored, want %d", n, magiclink.SendPerEmail.Limit)
		}

		// Refused once the new member is known (its signup page is not
		// registered): the member JIT would have created is not kept.
		bad := map[string]any{"signup_redirect_url": "https://unregistered.test/signup"}
		want(t, e.sendLink(org, "new@acme.test", bad), 400, "redirect_url_not_registered")
		if m := e.backend(http.MethodGet, "/v1/b2b/organizations/"+org+"/member?email_address=new@acme.test", nil); m.Status != 404 {
			t.Fatalf("a refused send left a member behind: %s", m.Raw)
		}
		if n := e.count(`SELECT COUNT(*) FROM magic_links`); n != magiclink.SendPerEmail.Limit {
			t.Fatalf("%d links stored after a refused send, want %d", n, magiclink.SendPerEmail.Limit)
		}
		if n := e.mails("new@acme.test"); n != 0 {
			t.Fatalf("a refused send mailed %d links", n)
		}

		// Every send so far counted against the client address, refused
		// ones included: the address runs out at its limit.
		for i := magiclink.SendPerEmail.Limit + 2; i < magiclink.SendPerIP.Limit; i++ {
			want(t, e.sendLink(org, "new@acme.test", bad), 400, "redirect_url_not_registered")
		}
		want(t, e.sendLink(org, "other@acme.test", nil), 429, "too_many_requests")
		if n := e.mails("other@acme.test"); n != 0 {
			t.Fatalf("a send over the address limit mailed %d links", n)
		}
	})
}

// A discovery link send is one transaction too: a refused send stores no
// link and queues no mail.
func TestDiscoveryLinkSendLimitsAndAtomicity(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		send := func(email string, extra map[string]any) resp {
			body := map[string]any{"email_address": email}
			for k, v := range extra {
				body[k] = v
			}
			return e.sdk("/b2b/magic_links/email/discovery/send", body, "")
		}
		for i := range discovery.SendPerEmail.Limit {
			if r := send("ada@corp.test", nil); r.Status != 200 {
				t.Fatalf("send %d: %s", i+1, r.Raw)
			}
		}
		want(t, send("ada@corp.test", nil), 429, "too_many_requests")
		if n := e.mails("ada@corp.test"); n != discovery.SendPerEmail.Limit {
			t.Fatalf("%d mails, want %d: a refused send mailed a link", n, discovery.SendPerEmail.Limit)
		}
		if n := e.count(`SELECT COUNT(*) FROM discovery_magic_links`); n != discovery.SendPerEmail.Limit {
			t.Fatalf("%d links stored, want %d", n, discovery.SendPerEmail.Limit)
		}
		want(t, send("bob@corp.test", map[string]any{"discovery_redirect_url": "https://unregistered.test/d"}), 400,
			"redirect_url_not_registered")
		if n := e.count(`SELECT COUNT(*) FROM discovery_magic_links`); n != discovery.SendPerEmail.Limit {
			t.Fatalf("%d links stored after a refused send, want %d", n, discovery.SendPerEmail.Limit)
		}
		if n := e.mails("bob@corp.test"); n != 0 {
			t.Fatalf("a refused send mailed %d links", n)
		}
		if r := send("bob@corp.test", nil); r.Status != 200 || e.mails("bob@corp.test") != 1 {
			t.Fatalf("send after a refusal: %s, %d mails", r.Raw, e.mails("bob@corp.test"))
		}
	})
}

// A mailer that is not transactional (here: no delivery configured) runs
// after the send's commit; when it fails, the link or code it would have
// carried is spent, so no live secret exists that nobody received. Every
// login email goes out through notify.SendCounted; this covers each caller.
func TestMagicLinkSendWithoutDeliveryLeavesNoLiveLink(t *testing.T) {
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		e := newEnvWith(t, db, func(c *config.Config) {
			c.Dev, c.SMTPURL, c.EncryptionKey = false, "", apptest.TestEncryptionKey
		})
		org := e.createOrg("acme", "ALL_ALLOWED")
		e.createMember(org, "ada@acme.test")
		want(t, e.sendLink(org, "ada@acme.test", nil), 503, "email_delivery_failed")
		want(t, e.sdk("/b2b/magic_links/email/discovery/send", map[string]any{"email_address": "ada@acme.test"}, ""),
			503, "email_delivery_failed")
		want(t, e.sdk("/b2b/otps/email/discovery/send", map[string]any{"email_address": "ada@acme.test"}, ""),
			503, "email_delivery_failed")
		want(t, e.sendCode(org, "ada@acme.test"), 503, "email_delivery_failed")
		if n := e.count(`SELECT COUNT(*) FROM discovery_email_otps WHERE used_at IS NULL`); n != 0 {
			t.Fatalf("%d live discovery codes after a failed delivery", n)
		}
		if n := e.count(`SELECT COUNT(*) FROM email_otps WHERE used_at IS NULL`); n != 0 {
			t.Fatalf("%d live email codes after a failed delivery", n)
		}
		if n := e.count(`SELECT COUNT(*) FROM email_otps`); n != 1 {
			t.Fatalf("%d email codes stored, want the spent one", n)
		}
		if n := e.count(`SELECT COUNT(*) FROM magic_links WHERE used_at IS NULL`); n != 0 {
			t.Fatalf("%d live links after failed deliveries", n)
		}
		if n := e.count(`SELECT COUNT(*) FROM discovery_magic_links WHERE used_at IS NULL`); n != 0 {
			t.Fatalf("%d live discovery links after failed deliveries", n)
		}
		if n := e.count(`SELECT COUNT(*) FROM magic_links`) + e.count(`SELECT COUNT(*) FROM discovery_magic_links`); n != 2 {
			t.Fatalf("%d links stored, want the 2 spent ones", n)
		}
	})
}

// A discovery code send is one transaction: each send stores one code and
// queues one mail, a refused one neither, and refusals count against the
// client address.
func TestDiscoveryCodeSendLimitsAndAtomicity(t *testing.T) {
	eachEnv(t, func(t *testing.T, e *env) {
		send := func(email string) resp {
			return e.sdk("/b2b/otps/email/discovery/send", map[string]any{"email_address": email}, "")
		}
		for i := range discovery.SendPerEmail.Limit {
			if r := send("ada@corp.test"); r.Status != 200 {
				t.Fatalf("send %d: %s", i+1, r.Raw)
			}
		}
		want(t, send("ada@corp.test"), 429, "too_many_requests")
		if n := e.mails("ada@corp.test"); n != discovery.SendPerEmail.Limit {
			t.Fatalf("%d mails, want %d: a refused send mailed a code", n, discovery.SendPerEmail.Limit)
		}
		if n := e.count(`SELECT COUNT(*) FROM discovery_email_otps`); n != discovery.SendPerEmail.Limit {
			t.Fatalf("%d codes stored, want %d", n, discovery.SendPerEmail.Limit)
		}
		for range discovery.SendPerIP.Limit - discovery.SendPerEmail.Limit - 1 {
			want(t, send("ada@corp.test"), 429, "too_many_requests")
		}
		want(t, send("bob@corp.test"), 429, "too_many_requests")
		if n := e.mails("bob@corp.test"); n != 0 {
			t.Fatalf("a send over the address limit mailed %d codes", n)
		}
	})
}
