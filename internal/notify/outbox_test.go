package notify_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

var t0 = time.Date(2026, 11, 22, 9, 30, 0, 123_000_000, time.UTC)

func TestOutboxRoundTrip(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		clk := clock.NewFake(t0)
		ob := notify.NewOutbox(db, clk)
		var _ notify.Mailer = ob

		send := func(e notify.Email) {
			t.Helper()
			if err := ob.Send(ctx, e); err != nil {
				t.Fatalf("Send: %v", err)
			}
		}
		send(notify.Email{To: "alice@example.com", Subject: "First", Text: "no links, no codes; 1234567 and 12345 are not codes", HTML: "<p>first</p>"})
		clk.Advance(time.Second)
		send(notify.Email{To: "bob@example.com", Subject: "654321 is your code",
			Text: "Open https://a.example/x?t=1&u=2, or (https://b.example/y).\n" +
				"Again: https://a.example/x?t=1&u=2\njavascript:alert(1) ftp://f.example/ x123456 " +
				"https://c.example/?code=111111\nCode: 654321. Backup 222222",
		})
		// Same instant as the previous message: order must still follow sending order.
		send(notify.Email{To: "ALICE@Example.COM", Subject: "Third", Text: "https://app.example.com/authenticate?token=abc\n"})

		got, err := ob.List(ctx, "", 0)
		if err != nil {
			t.Fatalf("List: %v", err)
		}
		want := []notify.Message{
			{Channel: "email", Recipient: "ALICE@Example.COM", Subject: "Third",
				Text:      "https://app.example.com/authenticate?token=abc\n",
				CreatedAt: t0.Add(time.Second + time.Millisecond),
				Links:     []string{"https://app.example.com/authenticate?token=abc"}, Codes: []string{}},
			{Channel: "email", Recipient: "bob@example.com", Subject: "654321 is your code",
				Text: "Open https://a.example/x?t=1&u=2, or (https://b.example/y).\n" +
					"Again: https://a.example/x?t=1&u=2\njavascript:alert(1) ftp://f.example/ x123456 " +
					"https://c.example/?code=111111\nCode: 654321. Backup 222222",
				CreatedAt: t0.Add(time.Second),
				Links:     []string{"https://a.example/x?t=1&u=2", "https://b.example/y", "https://c.example/?code=111111"},
				Codes:     []string{"654321", "222222"}},
			{Channel: "email", Recipient: "alice@example.com", Subject: "First",
				Text: "no links, no codes; 1234567 and 12345 are not codes", HTML: "<p>first</p>",
				CreatedAt: t0, Links: []string{}, Codes: []string{}},
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(notify.Message{}, "ID")); diff != "" {
			t.Errorf("List (-want +got):\n%s", diff)
		}
		seen := map[string]bool{}
		for _, m := range got {
			if !strings.HasPrefix(m.ID, "message-test-") || seen[m.ID] {
				t.Errorf("bad or repeated id %q", m.ID)
			}
			seen[m.ID] = true
		}

		alice, err := ob.List(ctx, "  Alice@example.com ", 10)
		if err != nil {
			t.Fatalf("List alice: %v", err)
		}
		if len(alice) != 2 || alice[0].Subject != "Third" || alice[1].Subject != "First" {
			t.Errorf("case-insensitive filter: got %+v", alice)
		}
		one, err := ob.List(ctx, "", 1)
		if err != nil || len(one) != 1 || one[0].Subject != "Third" {
			t.Errorf("limit 1: got %+v, %v", one, err)
		}
		none, err := ob.List(ctx, "carol@example.com", 10)
		if err != nil || len(none) != 0 {
			t.Errorf("unknown recipient: got %+v, %v", none, err)
		}
		if err := ob.Send(ctx, notify.Email{To: " ", Subject: "x", Text: "x"}); err == nil {
			t.Error("Send with empty recipient: no error")
		}
	})
}

// A rendered template read back through the outbox yields exactly its link
// or code: the contract browser tests rely on.
func TestOutboxExtractsFromTemplates(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ctx := context.Background()
		ob := notify.NewOutbox(db, clock.NewFake(t0))
		link := "http://localhost:8080/authenticate?token=Zm9v_YmFy-00&stytch_token_type=multi_tenant_magic_links"
		e, err := notify.MagicLinkLoginEmail("dev@example.com", notify.LinkData{
			ProjectName: "Demo 2026", OrganizationName: "Org 123456", URL: link, ExpiresIn: time.Hour})
		if err != nil {
			t.Fatal(err)
		}
		otp, err := notify.EmailOTPEmail("dev@example.com", notify.CodeData{
			ProjectName: "Demo", OrganizationName: "Org", Code: "987654", ExpiresIn: 10 * time.Minute})
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range []notify.Email{e, otp} {
			if err := ob.Send(ctx, m); err != nil {
				t.Fatal(err)
			}
		}
		got, err := ob.List(ctx, "dev@example.com", 5)
		if err != nil {
			t.Fatal(err)
		}
		if len(got) != 2 {
			t.Fatalf("got %d messages", len(got))
		}
		if diff := cmp.Diff([]string{"987654"}, got[0].Codes); diff != "" || len(got[0].Links) != 0 {
			t.Errorf("otp codes (-want +got):\n%s links %v", diff, got[0].Links)
		}
		if diff := cmp.Diff([]string{link}, got[1].Links); diff != "" {
			t.Errorf("login links (-want +got):\n%s", diff)
		}
		if got[1].HTML != e.HTML || got[1].Text != e.Text || got[1].Subject != e.Subject {
			t.Error("stored bodies differ from the rendered email")
		}
	})
}
