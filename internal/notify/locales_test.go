package notify_test

import (
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/locale"
	"github.com/latchkey/latchkey/internal/notify"
)

// localised builds every kind of email (goldenEmails) in tag's language.
func localised(tag locale.Tag) map[string]func() (notify.Email, error) {
	to := "ada@example.com"
	link := func() notify.LinkData { d := goldenLinkData(); d.Locale = tag; return d }
	code := func() notify.CodeData { d := goldenCodeData(); d.Locale = tag; return d }
	notice := notify.NoticeData{ProjectID: "project-test-1", ProjectName: "Acme & Co's +App", Locale: tag}
	return map[string]func() (notify.Email, error){
		"magic_link_login":  func() (notify.Email, error) { return notify.MagicLinkLoginEmail(to, link()) },
		"magic_link_signup": func() (notify.Email, error) { return notify.MagicLinkSignupEmail(to, link()) },
		"magic_link_invite": func() (notify.Email, error) {
			return notify.MagicLinkInviteEmail(to, notify.InviteData{LinkData: link(), InviterName: "Bo <B>", InviterEmail: "bo@example.com"})
		},
		"magic_link_invite_anonymous": func() (notify.Email, error) {
			return notify.MagicLinkInviteEmail(to, notify.InviteData{LinkData: link()})
		},
		"email_otp":         func() (notify.Email, error) { return notify.EmailOTPEmail(to, code()) },
		"email_update_link": func() (notify.Email, error) { return notify.EmailUpdateLinkEmail(to, link()) },
		"email_update_code": func() (notify.Email, error) { return notify.EmailUpdateCodeEmail(to, code()) },
		"password_reset":    func() (notify.Email, error) { return notify.PasswordResetEmail(to, link()) },
		"password_reset_login": func() (notify.Email, error) {
			d := link()
			d.LoginURL = "https://app.example.com/login?x=1&y=2"
			return notify.PasswordResetEmail(to, d)
		},
		"password_set":        func() (notify.Email, error) { return notify.PasswordSetEmail(to, link()) },
		"password_no_account": func() (notify.Email, error) { return notify.PasswordNoAccountEmail(to, notice) },
		"login_no_access":     func() (notify.Email, error) { return notify.LoginNoAccessEmail(to, notice) },
	}
}

// The expiry each kind states, by language ("" for the notices, which
// carry no link or code).
var expiryWords = map[locale.Tag]map[string]string{
	locale.English:             {"link": "60 minutes", "code": "10 minutes"},
	locale.Spanish:             {"link": "60 minutos", "code": "10 minutos"},
	locale.French:              {"link": "60 minutes", "code": "10 minutes"},
	locale.BrazilianPortuguese: {"link": "60 minutos", "code": "10 minutos"},
}

// Every kind renders in every language: the subject and every sentence of
// both bodies are that language's (no line of the English email's text
// body survives, except the link, the code and blank lines), the expiry is
// in its words, the HTML says its lang, and the names are escaped as in
// English.
func TestEveryKindInEveryLanguage(t *testing.T) {
	t.Parallel()
	english := map[string]notify.Email{}
	for name, build := range goldenEmails() {
		e, err := build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		english[name] = e
	}
	langAttr := map[locale.Tag]string{locale.English: `<html lang="en">`, locale.Spanish: `<html lang="es">`,
		locale.French: `<html lang="fr">`, locale.BrazilianPortuguese: `<html lang="pt-BR">`}
	for _, tag := range locale.All {
		for name, build := range localised(tag) {
			e, err := build()
			if err != nil {
				t.Fatalf("%s in %s: %v", name, tag, err)
			}
			en := english[name]
			if tag == locale.English {
				if e != en {
					t.Errorf("%s: locale en differs from no locale", name)
				}
				continue
			}
			if e.Subject == en.Subject || e.To != en.To || e.Project != en.Project {
				t.Errorf("%s in %s: subject %q (English %q), to %q, project %q", name, tag, e.Subject, en.Subject, e.To, e.Project)
			}
			for _, line := range strings.Split(en.Text, "\n") {
				if line == "" || strings.HasPrefix(line, "https://") || line == "042917" {
					continue
				}
				if strings.Contains(e.Text, line) {
					t.Errorf("%s in %s: text body still says %q", name, tag, line)
				}
				if strings.Contains(e.HTML, line) {
					t.Errorf("%s in %s: HTML body still says %q", name, tag, line)
				}
			}
			if !strings.Contains(e.HTML, langAttr[tag]) {
				t.Errorf("%s in %s: HTML lacks %s", name, tag, langAttr[tag])
			}
			if strings.Contains(e.HTML, "<b>") || !strings.Contains(e.HTML, "Acme &amp; Co&#39;s &#43;App") {
				t.Errorf("%s in %s: names not escaped as in English:\n%s", name, tag, e.HTML)
			}
			if strings.HasPrefix(name, "password_no_account") || strings.HasPrefix(name, "login_no_access") {
				continue
			}
			kind := "link"
			if strings.HasSuffix(name, "_code") || name == "email_otp" {
				kind = "code"
			}
			if want := expiryWords[tag][kind]; !strings.Contains(e.Text, want) || !strings.Contains(e.HTML, want) {
				t.Errorf("%s in %s: expiry %q missing:\n%s", name, tag, want, e.Text)
			}
		}
	}
}

// Spot checks of whole sentences, so the languages are not merely
// different from English but say what they should.
func TestLocalisedSentences(t *testing.T) {
	t.Parallel()
	d := notify.LinkData{ProjectName: "Acme", OrganizationName: "Org", URL: goldenLink, ExpiresIn: 15 * 60e9, Locale: locale.Spanish}
	e, err := notify.MagicLinkLoginEmail("ada@example.com", d)
	if err != nil {
		t.Fatal(err)
	}
	if e.Subject != "Tu enlace para iniciar sesión en Org" || !hasLine(e.Text, "Este enlace caduca en 15 minutos.") ||
		!hasLine(e.Text, "Enviado por Acme.") || !strings.Contains(e.HTML, ">Iniciar sesión</a>") {
		t.Errorf("Spanish login email:\n%s\n%s\n%s", e.Subject, e.Text, e.HTML)
	}
	c := notify.CodeData{ProjectName: "Acme", OrganizationName: "Org", Code: "042917", ExpiresIn: 60e9, Locale: locale.BrazilianPortuguese}
	e, err = notify.EmailOTPEmail("ada@example.com", c)
	if err != nil {
		t.Fatal(err)
	}
	if e.Subject != "042917 é o seu código de acesso para Org" || !hasLine(e.Text, "Este código expira em 1 minuto. Nunca o compartilhe com ninguém.") {
		t.Errorf("Portuguese code email:\n%s\n%s", e.Subject, e.Text)
	}
	c.Locale = locale.French
	sms, err := notify.SMSCodeText("+33612345678", c)
	if err != nil {
		t.Fatal(err)
	}
	if sms.Body != "042917 est votre code de vérification Org. Il expire dans 1 minute. Ne le communiquez à personne." {
		t.Errorf("French SMS: %q", sms.Body)
	}
}
