package devmode_test

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	"github.com/latchkey/latchkey/internal/clock"
	"github.com/latchkey/latchkey/internal/devmode"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/store"
	"github.com/latchkey/latchkey/internal/store/storetest"
)

var t0 = time.Date(2026, 11, 22, 10, 0, 0, 0, time.UTC)

// seed captures three messages a minute apart through the real outbox and
// returns a server mounting the handler the way the app does.
func seed(t *testing.T, db *store.DB) *httptest.Server {
	t.Helper()
	ctx := context.Background()
	clk := clock.NewFake(t0)
	ob := notify.NewOutbox(db, clk)
	for _, m := range []notify.Email{
		{To: "alice@example.com", Subject: "Oldest subject", Text: "Hello alice, nothing to click."},
		{To: "bob@example.com", Subject: `<img src=x onerror=alert(1)>`,
			Text: "Evil javascript:alert(1) and data:text/html,hi\nGood:\nhttps://ok.example/a?x=1&y=2\n"},
		{To: "Alice@Example.com", Subject: "123456 is your login code", Text: "Your code:\n\n123456\n"},
	} {
		if err := ob.Send(ctx, m); err != nil {
			t.Fatalf("Send: %v", err)
		}
		clk.Advance(time.Minute)
	}
	mux := http.NewServeMux()
	h := devmode.MailboxHandler(ob)
	mux.Handle("GET /dev/mailbox", h)
	mux.Handle("GET /dev/mailbox/messages", h)
	srv := httptest.NewServer(mux)
	t.Cleanup(srv.Close)
	return srv
}

func get(t *testing.T, rawURL string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Get(rawURL)
	if err != nil {
		t.Fatalf("GET %s: %v", rawURL, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("read %s: %v", rawURL, err)
	}
	return resp, string(b)
}

func TestMailboxPage(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		srv := seed(t, db)
		resp, body := get(t, srv.URL+"/dev/mailbox")
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("status %d: %s", resp.StatusCode, body)
		}
		if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "text/html") {
			t.Errorf("Content-Type = %q", ct)
		}
		if cc := resp.Header.Get("Cache-Control"); cc != "no-store" {
			t.Errorf("Cache-Control = %q, want no-store", cc)
		}
		for _, want := range []string{
			`<meta http-equiv="refresh" content="5">`,
			`<h1>Dev mailbox</h1>`,
			// The malicious subject is text, not markup.
			`<h2>&lt;img src=x onerror=alert(1)&gt;</h2>`,
			// The http(s) link is a real anchor, same tab, & escaped in the attribute.
			`<a href="https://ok.example/a?x=1&amp;y=2">https://ok.example/a?x=1&amp;y=2</a>`,
			`<li class="code">123456</li>`,
			`<dd>Alice@Example.com</dd>`,
			`<time datetime="2026-11-22T10:02:00Z">2026-11-22 10:02:00 UTC</time>`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("page lacks %s", want)
			}
		}
		for _, bad := range []string{"<img", `href="javascript:`, `href="data:`, "target="} {
			if strings.Contains(body, bad) {
				t.Errorf("page contains %q", bad)
			}
		}
		// Anchors: the single http(s) link only (plus none from the filter form when unfiltered).
		if n := strings.Count(body, "<a href="); n != 1 {
			t.Errorf("page has %d anchors, want 1", n)
		}
		newest := strings.Index(body, "123456 is your login code")
		middle := strings.Index(body, "&lt;img")
		oldest := strings.Index(body, "Oldest subject")
		if newest < 0 || middle < 0 || oldest < 0 || !(newest < middle && middle < oldest) {
			t.Errorf("order: newest@%d middle@%d oldest@%d, want newest first", newest, middle, oldest)
		}
	})
}

func TestMailboxPageFilter(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		srv := seed(t, db)
		_, body := get(t, srv.URL+"/dev/mailbox?to="+url.QueryEscape("ALICE@example.com"))
		if !strings.Contains(body, "Oldest subject") || !strings.Contains(body, "123456 is your login code") {
			t.Error("filtered page lacks alice's messages")
		}
		if strings.Contains(body, "onerror") {
			t.Error("filtered page shows bob's message")
		}
		if !strings.Contains(body, `value="ALICE@example.com"`) || !strings.Contains(body, `<a href="/dev/mailbox">Show all</a>`) {
			t.Error("filter form does not keep the filter or lacks Show all")
		}

		_, body = get(t, srv.URL+"/dev/mailbox?to="+url.QueryEscape(`"><script>alert(1)</script>`))
		if strings.Contains(body, "<script>") {
			t.Error("filter value is not escaped")
		}
		if !strings.Contains(body, "No messages to") {
			t.Error("empty result has no empty-state text")
		}
	})
}

type jsonMessage struct {
	ID        string   `json:"id"`
	Channel   string   `json:"channel"`
	To        []string `json:"to"`
	Subject   string   `json:"subject"`
	Text      string   `json:"text"`
	HTML      string   `json:"html"`
	Links     []string `json:"links"`
	Codes     []string `json:"codes"`
	CreatedAt string   `json:"created_at"`
}

func getMessages(t *testing.T, rawURL string) []jsonMessage {
	t.Helper()
	resp, body := get(t, rawURL)
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET %s: status %d: %s", rawURL, resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
		t.Errorf("Content-Type = %q", ct)
	}
	var out struct {
		Messages []jsonMessage `json:"messages"`
	}
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&out); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	if out.Messages == nil {
		t.Fatalf("messages is null or absent: %s", body)
	}
	return out.Messages
}

func TestMailboxJSON(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		srv := seed(t, db)
		got := getMessages(t, srv.URL+"/dev/mailbox/messages")
		want := []jsonMessage{
			{Channel: "email", To: []string{"Alice@Example.com"}, Subject: "123456 is your login code",
				Text: "Your code:\n\n123456\n", Links: []string{}, Codes: []string{"123456"}, CreatedAt: "2026-11-22T10:02:00.000Z"},
			{Channel: "email", To: []string{"bob@example.com"}, Subject: `<img src=x onerror=alert(1)>`,
				Text:  "Evil javascript:alert(1) and data:text/html,hi\nGood:\nhttps://ok.example/a?x=1&y=2\n",
				Links: []string{"https://ok.example/a?x=1&y=2"}, Codes: []string{}, CreatedAt: "2026-11-22T10:01:00.000Z"},
			{Channel: "email", To: []string{"alice@example.com"}, Subject: "Oldest subject",
				Text: "Hello alice, nothing to click.", Links: []string{}, Codes: []string{}, CreatedAt: "2026-11-22T10:00:00.000Z"},
		}
		if diff := cmp.Diff(want, got, cmpopts.IgnoreFields(jsonMessage{}, "ID")); diff != "" {
			t.Errorf("messages (-want +got):\n%s", diff)
		}
		for _, m := range got {
			if !strings.HasPrefix(m.ID, "message-test-") {
				t.Errorf("id %q lacks the message-test- prefix", m.ID)
			}
			if _, err := time.Parse(time.RFC3339, m.CreatedAt); err != nil {
				t.Errorf("created_at %q is not RFC 3339: %v", m.CreatedAt, err)
			}
		}

		filtered := getMessages(t, srv.URL+"/dev/mailbox/messages?to="+url.QueryEscape("alice@EXAMPLE.com"))
		if len(filtered) != 2 || filtered[0].Subject != "123456 is your login code" || filtered[1].Subject != "Oldest subject" {
			t.Errorf("filter by alice: got %+v", filtered)
		}
		if one := getMessages(t, srv.URL+"/dev/mailbox/messages?limit=1"); len(one) != 1 || one[0].Subject != want[0].Subject {
			t.Errorf("limit=1: got %+v", one)
		}
		if all := getMessages(t, srv.URL+"/dev/mailbox/messages?limit=100000"); len(all) != 3 {
			t.Errorf("huge limit: got %d messages, want 3 (clamped, not rejected)", len(all))
		}
		if none := getMessages(t, srv.URL+"/dev/mailbox/messages?to=nobody@example.com"); len(none) != 0 {
			t.Errorf("unknown recipient: got %+v", none)
		}
		for _, bad := range []string{"0", "-3", "ten"} {
			if resp, body := get(t, srv.URL+"/dev/mailbox/messages?limit="+bad); resp.StatusCode != http.StatusBadRequest {
				t.Errorf("limit=%s: status %d, want 400: %s", bad, resp.StatusCode, body)
			}
		}
	})
}

func TestMailboxMethodsAndPaths(t *testing.T) {
	t.Parallel()
	srv := seed(t, storetest.SQLite(t))
	// Directly against the handler, as a mux with a broader mount would route.
	h := devmode.MailboxHandler(notify.NewOutbox(storetest.SQLite(t), clock.Real{}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodPost, "/dev/mailbox", nil))
	if rec.Code != http.StatusMethodNotAllowed || rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("POST: status %d Allow %q", rec.Code, rec.Header().Get("Allow"))
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/dev/mailbox/other", nil))
	if rec.Code != http.StatusNotFound {
		t.Errorf("unknown path: status %d", rec.Code)
	}
	rec = httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/dev/mailbox", nil))
	if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "No messages yet.") {
		t.Errorf("empty mailbox: status %d body %s", rec.Code, rec.Body.String())
	}
	resp, err := http.Head(srv.URL + "/dev/mailbox/messages")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Errorf("HEAD: status %d", resp.StatusCode)
	}
}

func TestMailboxShowsSMS(t *testing.T) {
	t.Parallel()
	storetest.Each(t, func(t *testing.T, db *store.DB) {
		ob := notify.NewOutbox(db, clock.NewFake(t0))
		if err := ob.SendSMS(context.Background(), notify.SMS{To: "+14155552671",
			Body: "604218 is your Acme verification code. It expires in 2 minutes."}); err != nil {
			t.Fatal(err)
		}
		srv := httptest.NewServer(devmode.MailboxHandler(ob))
		t.Cleanup(srv.Close)
		_, body := get(t, srv.URL+"/dev/mailbox?to="+url.QueryEscape("+14155552671"))
		for _, want := range []string{`<h2>Text message</h2>`, `<dd>sms</dd>`, `<li class="code">604218</li>`, `<dd>&#43;14155552671</dd>`} {
			if !strings.Contains(body, want) {
				t.Errorf("page lacks %s", want)
			}
		}
		_, raw := get(t, srv.URL+"/dev/mailbox/messages?to="+url.QueryEscape("+14155552671"))
		var got struct{ Messages []jsonMessage }
		if err := json.Unmarshal([]byte(raw), &got); err != nil || len(got.Messages) != 1 {
			t.Fatalf("json: %v %s", err, raw)
		}
		if m := got.Messages[0]; m.Channel != "sms" || len(m.Codes) != 1 || m.Codes[0] != "604218" {
			t.Fatalf("json message = %+v", m)
		}
	})
}
