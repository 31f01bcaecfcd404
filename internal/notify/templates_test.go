package notify_test

import (
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/notify"
)

const evilOrg = `<script>alert("org")</script>`

func lines(s string) []string { return strings.Split(s, "\n") }

func hasLine(text, line string) bool {
	for _, l := range lines(text) {
		if l == line {
			return true
		}
	}
	return false
}

func TestTemplates(t *testing.T) {
	t.Parallel()
	link := "https://app.example.com/authenticate?token=abc_DEF-123&stytch_token_type=magic_links"
	tests := []struct {
		name        string
		build       func() (notify.Email, error)
		subject     string
		secretLine  string // the link or code, alone on a line of the text body
		secretHTML  string // how the secret must appear in the HTML body
		expiry      string
		headingHTML string
	}{
		{
			name: "login",
			build: func() (notify.Email, error) {
				return notify.MagicLinkLoginEmail("ada@example.com", notify.LinkData{
					ProjectName: "Acme & Co", OrganizationName: evilOrg, URL: link, ExpiresIn: 60 * time.Minute})
			},
			subject:     "Your login link for " + evilOrg,
			secretLine:  link,
			secretHTML:  `href="https://app.example.com/authenticate?token=abc_DEF-123&amp;stytch_token_type=magic_links"`,
			expiry:      "This link expires in 60 minutes.",
			headingHTML: `Log in to &lt;script&gt;alert(&#34;org&#34;)&lt;/script&gt;</h1>`,
		},
		{
			name: "signup",
			build: func() (notify.Email, error) {
				return notify.MagicLinkSignupEmail("ada@example.com", notify.LinkData{
					ProjectName: "Acme & Co", OrganizationName: evilOrg, URL: link, ExpiresIn: 60 * time.Minute})
			},
			subject:     "Finish joining " + evilOrg,
			secretLine:  link,
			secretHTML:  `href="https://app.example.com/authenticate?token=abc_DEF-123&amp;stytch_token_type=magic_links"`,
			expiry:      "This link expires in 60 minutes.",
			headingHTML: `Finish joining &lt;script&gt;alert(&#34;org&#34;)&lt;/script&gt;</h1>`,
		},
		{
			name: "otp",
			build: func() (notify.Email, error) {
				return notify.EmailOTPEmail("ada@example.com", notify.CodeData{
					ProjectName: "Acme & Co", OrganizationName: evilOrg, Code: "042917", ExpiresIn: 10 * time.Minute})
			},
			subject:     "042917 is your " + evilOrg + " login code",
			secretLine:  "042917",
			secretHTML:  `>042917</p>`,
			expiry:      "This code expires in 10 minutes.",
			headingHTML: `Your &lt;script&gt;alert(&#34;org&#34;)&lt;/script&gt; login code</h1>`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			e, err := tc.build()
			if err != nil {
				t.Fatalf("build: %v", err)
			}
			if e.To != "ada@example.com" {
				t.Errorf("To = %q", e.To)
			}
			if e.Subject != tc.subject {
				t.Errorf("Subject = %q, want %q", e.Subject, tc.subject)
			}
			if !hasLine(e.Text, tc.secretLine) {
				t.Errorf("text body has no line %q:\n%s", tc.secretLine, e.Text)
			}
			if !strings.Contains(e.Text, tc.expiry) {
				t.Errorf("text body lacks %q:\n%s", tc.expiry, e.Text)
			}
			if !strings.Contains(e.Text, evilOrg) || !strings.Contains(e.Text, "Acme & Co") {
				t.Errorf("text body lacks the names verbatim:\n%s", e.Text)
			}
			for _, want := range []string{tc.secretHTML, tc.expiry, tc.headingHTML, "Sent by Acme &amp; Co.", `<html lang="en">`} {
				if !strings.Contains(e.HTML, want) {
					t.Errorf("HTML body lacks %s:\n%s", want, e.HTML)
				}
			}
			if strings.Contains(e.HTML, "<script") {
				t.Errorf("HTML body contains an unescaped <script")
			}
			if strings.Contains(e.HTML, "<style") || strings.Contains(e.HTML, "class=") {
				t.Errorf("HTML body should use inline styles only")
			}
		})
	}
}

// The link is the first URL of the text body, before any customer-chosen
// name, so a name that looks like a URL cannot be mistaken for it.
func TestTemplateLinkComesBeforeNames(t *testing.T) {
	t.Parallel()
	link := "https://app.example.com/m?t=1"
	e, err := notify.MagicLinkLoginEmail("ada@example.com", notify.LinkData{
		ProjectName: "Proj", OrganizationName: "https://evil.example/phish", URL: link, ExpiresIn: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if i, j := strings.Index(e.Text, link), strings.Index(e.Text, "https://evil.example"); i < 0 || j < i {
		t.Errorf("link at %d, org name at %d; the link must come first:\n%s", i, j, e.Text)
	}
}

func TestTemplateNames(t *testing.T) {
	t.Parallel()
	// A line break in a name must not reach the subject header.
	e, err := notify.MagicLinkLoginEmail("ada@example.com", notify.LinkData{
		ProjectName: "Proj", OrganizationName: "Acme\r\nBcc: victim@example.com", URL: "https://x.example/", ExpiresIn: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	if e.Subject != "Your login link for Acme Bcc: victim@example.com" {
		t.Errorf("Subject = %q", e.Subject)
	}
	// Discovery flows have no organization yet: the project name stands in.
	e, err = notify.EmailOTPEmail("ada@example.com", notify.CodeData{ProjectName: "Proj", Code: "123456", ExpiresIn: time.Minute})
	if err != nil {
		t.Fatal(err)
	}
	if e.Subject != "123456 is your Proj login code" || !strings.Contains(e.Text, "This code expires in 1 minute.") {
		t.Errorf("Subject = %q, text:\n%s", e.Subject, e.Text)
	}
}

func TestTemplateExpiryWording(t *testing.T) {
	t.Parallel()
	for d, want := range map[time.Duration]string{
		30 * time.Second:   "30 seconds",
		time.Minute:        "1 minute",
		90 * time.Second:   "1 minute",
		10 * time.Minute:   "10 minutes",
		time.Hour:          "60 minutes",
		90 * time.Minute:   "90 minutes",
		2 * time.Hour:      "2 hours",
		24 * time.Hour:     "24 hours",
		7 * 24 * time.Hour: "7 days",
	} {
		e, err := notify.MagicLinkSignupEmail("a@example.com", notify.LinkData{ProjectName: "P", URL: "https://x.example/", ExpiresIn: d})
		if err != nil {
			t.Fatalf("%v: %v", d, err)
		}
		if s := "This link expires in " + want + "."; !strings.Contains(e.Text, s) || !strings.Contains(e.HTML, s) {
			t.Errorf("%v: bodies lack %q:\n%s", d, s, e.Text)
		}
	}
}

func TestTemplateRejects(t *testing.T) {
	t.Parallel()
	ok := notify.LinkData{ProjectName: "P", OrganizationName: "O", URL: "https://x.example/", ExpiresIn: time.Hour}
	for name, d := range map[string]notify.LinkData{
		"javascript URL": {ProjectName: "P", URL: "javascript:alert(1)", ExpiresIn: time.Hour},
		"relative URL":   {ProjectName: "P", URL: "/authenticate?t=1", ExpiresIn: time.Hour},
		"URL with space": {ProjectName: "P", URL: "https://x.example/a b", ExpiresIn: time.Hour},
		"no names":       {URL: "https://x.example/", ExpiresIn: time.Hour},
		"zero expiry":    {ProjectName: "P", URL: "https://x.example/"},
	} {
		if _, err := notify.MagicLinkLoginEmail("a@example.com", d); err == nil {
			t.Errorf("%s: no error", name)
		}
	}
	if _, err := notify.MagicLinkLoginEmail(" ", ok); err == nil {
		t.Error("empty recipient: no error")
	}
	for _, code := range []string{"", "12 34"} {
		if _, err := notify.EmailOTPEmail("a@example.com", notify.CodeData{ProjectName: "P", Code: code, ExpiresIn: time.Minute}); err == nil {
			t.Errorf("code %q: no error", code)
		}
	}
}

// Links must be absolute http(s) URLs, whatever else they look like: a
// javascript: or ftp: URL with a host passes a host check, and the text
// body (unlike html/template) would carry it as it is. The password reset
// email's second link (LoginURL) is held to the same rule.
func TestTemplateRejectsNonHTTPLinks(t *testing.T) {
	t.Parallel()
	for _, u := range []string{"javascript://x.example/%0aalert(1)", "ftp://files.example/x", "data://x.example/,hi"} {
		if _, err := notify.MagicLinkLoginEmail("a@example.com", notify.LinkData{ProjectName: "P", URL: u, ExpiresIn: time.Hour}); err == nil {
			t.Errorf("link %q: no error", u)
		}
		if _, err := notify.PasswordResetEmail("a@example.com", notify.LinkData{ProjectName: "P", URL: "https://x.example/reset",
			LoginURL: u, ExpiresIn: time.Hour}); err == nil {
			t.Errorf("login URL %q: no error", u)
		}
	}
}

// Customer-chosen names lose every control character, not only line
// breaks: an escape sequence or NUL in an organization name must not reach
// the subject header or the text body.
func TestTemplateNamesLoseControlCharacters(t *testing.T) {
	t.Parallel()
	e, err := notify.MagicLinkLoginEmail("a@example.com", notify.LinkData{ProjectName: "P", OrganizationName: "Acme\x1b[31m\x00Corp\x7f",
		URL: "https://x.example/", ExpiresIn: time.Hour})
	if err != nil {
		t.Fatal(err)
	}
	for _, part := range []string{e.Subject, e.Text} {
		if strings.ContainsAny(part, "\x1b\x00\x7f") {
			t.Errorf("control character kept: %q", part)
		}
	}
	if !strings.Contains(e.Subject, "Acme [31m Corp") {
		t.Errorf("subject = %q", e.Subject)
	}
}

// Names stored before bidirectional formatting characters were refused
// lose them: a right-to-left override in a subject makes it read other
// words than the name holds. A name with nothing visible left is none, as
// a blank one is, and the project's name stands in; joiners inside a
// visible name stay (emoji sequences, Persian words need them).
func TestTemplateNamesLoseBidiControls(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ org, inviter, subject, sender string }{
		{"Acme\u202egnp.exe", "Ada\u2067 Lovelace\u2069", "You are invited to join Acmegnp.exe", "Ada Lovelace (ada@example.com)"},
		{"\u200b\u200b", "\u200e\u200f", "You are invited to join Project", "ada@example.com"},
		{"\u202e \u00ad", "👩\u200d💻 Ada", "You are invited to join Project", "👩\u200d💻 Ada (ada@example.com)"},
		{"می\u200cخواهم", "", "You are invited to join می\u200cخواهم", "ada@example.com"},
	} {
		e, err := notify.MagicLinkInviteEmail("b@example.com", notify.InviteData{LinkData: notify.LinkData{ProjectName: "Project",
			OrganizationName: tc.org, URL: "https://x.example/", ExpiresIn: time.Hour}, InviterName: tc.inviter, InviterEmail: "ada@example.com"})
		if err != nil {
			t.Fatal(err)
		}
		if e.Subject != tc.subject {
			t.Errorf("org %q: subject = %q, want %q", tc.org, e.Subject, tc.subject)
		}
		for _, part := range []string{e.Subject, e.Text, e.HTML} {
			if strings.ContainsAny(part, "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c") {
				t.Errorf("org %q, inviter %q: bidi control kept: %q", tc.org, tc.inviter, part)
			}
		}
		if !strings.Contains(e.Text, tc.sender) {
			t.Errorf("inviter %q: text does not name %q:\n%s", tc.inviter, tc.sender, e.Text)
		}
	}
}
