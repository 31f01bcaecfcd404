package notify

import (
	"bytes"
	"embed"
	"errors"
	"fmt"
	htmltemplate "html/template"
	"net/url"
	"strings"
	"sync"
	texttemplate "text/template"
	"time"
	"unicode"

	"github.com/latchkey/latchkey/internal/displaytext"
	"github.com/latchkey/latchkey/internal/locale"
)

//go:embed templates/*.tmpl
var templateFS embed.FS

// LinkData fills the magic-link emails.
type LinkData struct {
	ProjectID        string // the Email's Project
	ProjectName      string
	OrganizationName string // empty in discovery flows: ProjectName is used instead
	URL              string // must be http or https
	ExpiresIn        time.Duration
	// LoginURL, when set, is a password reset email's second link: a
	// magic link that logs the member in without changing the password
	// (the request's login_redirect_url, or discovery_redirect_url).
	LoginURL string
	// Locale is the language the request asked for; the zero Tag is
	// English.
	Locale locale.Tag
}

// CodeData fills the one-time-code emails.
type CodeData struct {
	ProjectID        string // the Email's Project
	ProjectName      string
	OrganizationName string // empty in discovery flows: ProjectName is used instead
	Code             string
	ExpiresIn        time.Duration
	Locale           locale.Tag // the zero Tag is English
}

// emailTemplate is one kind of email in every language: its HTML (always
// escaped by html/template) and text bodies, parsed once per language
// from the embedded files and that language's catalogue, on first use:
// parsing every kind at package load cost each start about 200 KB of heap
// and half a millisecond for emails a server may not send for hours.
// TestEveryTemplateParses parses every file in every language, so a broken
// one fails the tests rather than a login.
type emailTemplate struct {
	parsed map[locale.Tag]func() parsedTemplate
}

type parsedTemplate struct {
	html *htmltemplate.Template
	text *texttemplate.Template
}

// mustTemplate names one kind of email; a parse error panics on its first
// use. The catalogue's sentences are added to the file's templates as
// templates of their own, so html/template escapes what they interpolate
// exactly as it would in the file, and leaves their literal words as
// written.
func mustTemplate(name string) emailTemplate {
	t := emailTemplate{parsed: make(map[locale.Tag]func() parsedTemplate, len(locale.All))}
	for _, tag := range locale.All {
		t.parsed[tag] = sync.OnceValue(func() parsedTemplate {
			defs := catalogues[tag].defines()
			html := htmltemplate.Must(htmltemplate.ParseFS(templateFS, "templates/layout.html.tmpl", "templates/"+name+".html.tmpl"))
			text := texttemplate.Must(texttemplate.ParseFS(templateFS, "templates/"+name+".txt.tmpl"))
			return parsedTemplate{html: htmltemplate.Must(html.Parse(defs)), text: texttemplate.Must(text.Parse(defs))}
		})
	}
	return t
}

// Never modified after parsing.
var (
	magicLinkLoginTmpl  = mustTemplate("magic_link_login")
	magicLinkSignupTmpl = mustTemplate("magic_link_signup")
	emailOTPTmpl        = mustTemplate("email_otp")
)

// view is what the template files see. Names are already reduced to one
// line of printable text.
type view struct {
	Subject, Project, Org, URL, Code, Expiry string
	LoginURL                                 string // password reset emails only; may be empty
	Inviter                                  string // invites only; may be empty
	Lang                                     string // the HTML lang attribute
	// projectID is the Email's Project, validFor its ValidFor and loc its
	// language (templates do not see them).
	projectID string
	validFor  time.Duration
	loc       locale.Tag
}

// MagicLinkLoginEmail builds the email carrying a login magic link.
func MagicLinkLoginEmail(to string, d LinkData) (Email, error) {
	v, err := linkView(d)
	if err != nil {
		return Email{}, fmt.Errorf("notify: login email: %w", err)
	}
	return render(magicLinkLoginTmpl, "login.subject", to, v)
}

// MagicLinkSignupEmail builds the email carrying a signup magic link.
func MagicLinkSignupEmail(to string, d LinkData) (Email, error) {
	v, err := linkView(d)
	if err != nil {
		return Email{}, fmt.Errorf("notify: signup email: %w", err)
	}
	return render(magicLinkSignupTmpl, "signup.subject", to, v)
}

// EmailOTPEmail builds the email carrying a one-time login code. The code is
// in the subject too, so it can be read from a notification without opening
// the message.
func EmailOTPEmail(to string, d CodeData) (Email, error) {
	v, err := baseView(d.ProjectName, d.OrganizationName, d.ExpiresIn, d.Locale)
	if err != nil {
		return Email{}, fmt.Errorf("notify: code email: %w", err)
	}
	v.Code, v.projectID = strings.TrimSpace(d.Code), d.ProjectID
	if v.Code == "" || strings.ContainsFunc(v.Code, unicode.IsSpace) {
		return Email{}, errors.New("notify: code email: empty or malformed code")
	}
	return render(emailOTPTmpl, "otp.subject", to, v)
}

func linkView(d LinkData) (view, error) {
	v, err := baseView(d.ProjectName, d.OrganizationName, d.ExpiresIn, d.Locale)
	if err != nil {
		return view{}, err
	}
	// Only absolute http(s) URLs: html/template would neutralise a
	// javascript: URL anyway, but the text body has no such protection.
	u, err := url.Parse(d.URL)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" ||
		strings.ContainsFunc(d.URL, unicode.IsSpace) {
		return view{}, errors.New("link URL must be an absolute http(s) URL")
	}
	v.URL, v.projectID = d.URL, d.ProjectID
	if d.LoginURL != "" {
		if !httpURL(d.LoginURL) {
			return view{}, errors.New("login URL must be an absolute http(s) URL")
		}
		v.LoginURL = d.LoginURL
	}
	return v, nil
}

func httpURL(s string) bool {
	u, err := url.Parse(s)
	return err == nil && (u.Scheme == "https" || u.Scheme == "http") && u.Host != "" && !strings.ContainsFunc(s, unicode.IsSpace)
}

func baseView(project, org string, expiresIn time.Duration, loc locale.Tag) (view, error) {
	v := newView(project, loc)
	v.Org = oneLine(org)
	if v.Org == "" {
		v.Org = v.Project
	}
	if v.Org == "" {
		return view{}, errors.New("neither organization nor project name given")
	}
	if v.Project == "" {
		v.Project = v.Org
	}
	if expiresIn <= 0 {
		return view{}, fmt.Errorf("non-positive expiry %v", expiresIn)
	}
	v.Expiry, v.validFor = humanDuration(expiresIn, v.loc), expiresIn
	return v, nil
}

// newView starts a view in loc's language (English for the zero Tag).
func newView(project string, loc locale.Tag) view {
	loc = loc.Or()
	return view{Project: oneLine(project), Lang: loc.HTMLLang(), loc: loc}
}

// render fills v.Subject from the catalogue's subjectKey, then builds the
// email in v's language.
func render(tmpl emailTemplate, subjectKey, to string, v view) (Email, error) {
	if strings.TrimSpace(to) == "" {
		return Email{}, errors.New("notify: render: empty recipient")
	}
	subject, err := say(v, subjectKey)
	if err != nil {
		return Email{}, err
	}
	v.Subject = subject
	t := tmpl.parsed[v.loc.Or()]()
	var html, text bytes.Buffer
	if err := t.html.ExecuteTemplate(&html, "layout", v); err != nil {
		return Email{}, fmt.Errorf("notify: render html: %w", err)
	}
	if err := t.text.Execute(&text, v); err != nil {
		return Email{}, fmt.Errorf("notify: render text: %w", err)
	}
	return Email{To: strings.TrimSpace(to), Subject: v.Subject, Text: text.String(), HTML: html.String(), Project: v.projectID,
		ValidFor: v.validFor}, nil
}

// oneLine collapses control characters and runs of spaces, because names are
// customer-chosen and end up in a header line (the subject) where a line
// break would inject headers or break the layout. It drops bidirectional
// formatting characters, which would make the subject read other words
// than the name holds, and a name with nothing visible left is none (the
// callers fall back to the project's): the names are checked with the
// same rule (displaytext) when set, this covers the ones stored before.
func oneLine(s string) string {
	s = strings.Map(func(r rune) rune {
		if unicode.IsControl(r) || unicode.IsSpace(r) {
			return ' '
		}
		return r
	}, s)
	return strings.Join(strings.Fields(displaytext.Clean(s)), " ")
}

// humanDuration renders an expiry the way people say it, in loc's words:
// "60 minutes" (an hour is clearer in minutes in a login email), "2
// hours", "7 days".
func humanDuration(d time.Duration, loc locale.Tag) string {
	switch {
	case d >= 48*time.Hour && d%(24*time.Hour) == 0:
		return plural(int64(d/(24*time.Hour)), "day", loc)
	case d >= 2*time.Hour && d%time.Hour == 0:
		return plural(int64(d/time.Hour), "hour", loc)
	case d >= time.Minute:
		// Whole minutes, rounded down: understating a lifetime is the safe
		// direction (the reader acts sooner, never too late).
		return plural(int64(d/time.Minute), "minute", loc)
	default:
		return plural(max(int64(d/time.Second), 1), "second", loc)
	}
}

// plural writes n units. All four languages put the number first and use
// the singular for exactly one (n is never 0 here, where French would
// also say the singular).
func plural(n int64, unit string, loc locale.Tag) string {
	form := "other"
	if n == 1 {
		form = "one"
	}
	return fmt.Sprintf("%d %s", n, catalogues[loc.Or()]["unit."+unit+"."+form])
}
