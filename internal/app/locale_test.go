package app_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/notify"
)

// mailbox is every message captured for to, newest first.
func mailbox(t *testing.T, e *apptest.Env, to string) []notify.Message {
	t.Helper()
	msgs, err := e.App.Outbox.List(context.Background(), to, 50)
	if err != nil {
		t.Fatalf("outbox of %s: %v", to, err)
	}
	return msgs
}

// newest is the newest message to to, which must exist.
func newest(t *testing.T, e *apptest.Env, to string) notify.Message {
	t.Helper()
	msgs := mailbox(t, e, to)
	if len(msgs) == 0 {
		t.Fatalf("nothing sent to %s", to)
	}
	return msgs[0]
}

// wantSaid fails unless the message says every one of says (in its
// subject or text body) and its HTML says lang.
func wantSaid(t *testing.T, m notify.Message, lang string, says ...string) {
	t.Helper()
	for _, s := range says {
		if !strings.Contains(m.Subject+"\n"+m.Text, s) {
			t.Errorf("message to %s lacks %q:\n%s\n%s", m.Recipient, s, m.Subject, m.Text)
		}
	}
	if m.Channel == "email" && !strings.Contains(m.HTML, `<html lang="`+lang+`">`) {
		t.Errorf("message to %s is not lang %s", m.Recipient, lang)
	}
}

// Every send route takes the four languages the API family documents, in
// any spelling of the tag (case, "_", a region), and the email or text it
// sends is written in it; any other language is refused before anything
// is sent.
func TestSendsInTheRequestLocale(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateVerifiedMember(org, "ada@acme.test")

		// A login link in Spanish, Portuguese (pt-BR), English (EN-us).
		apptest.Want(t, e.SendLink(org, "ada@acme.test", map[string]any{"locale": "es"}), 200, "")
		wantSaid(t, newest(t, e, "ada@acme.test"), "es", "Tu enlace para iniciar sesión en Acme",
			"Usa este enlace para iniciar sesión.", "minutos")
		apptest.Want(t, e.SendLink(org, "ada@acme.test", map[string]any{"locale": "pt-BR"}), 200, "")
		wantSaid(t, newest(t, e, "ada@acme.test"), "pt-BR", "Seu link de acesso para Acme", "Use este link para entrar.")
		apptest.Want(t, e.SendLink(org, "ada@acme.test", map[string]any{"locale": "EN-us"}), 200, "")
		wantSaid(t, newest(t, e, "ada@acme.test"), "en", "Your login link for Acme", "Use this link to log in.")

		// An email code, the same way.
		code := func(loc string) apptest.Resp {
			return e.SDK(http.MethodPost, "/b2b/otps/email/login_or_signup",
				map[string]any{"email_address": "ada@acme.test", "organization_id": org, "locale": loc}, "")
		}
		apptest.Want(t, code("es"), 200, "")
		wantSaid(t, newest(t, e, "ada@acme.test"), "es", "es tu código para iniciar sesión en Acme",
			"Este código caduca en 10 minutos.")
		apptest.Want(t, code("pt_br"), 200, "")
		wantSaid(t, newest(t, e, "ada@acme.test"), "pt-BR", "é o seu código de acesso para Acme",
			"Este código expira em 10 minutos.")
		apptest.Want(t, code("EN-us"), 200, "")
		wantSaid(t, newest(t, e, "ada@acme.test"), "en", "is your Acme login code", "This code expires in 10 minutes.")

		// German is not written: refused, naming locale and the tags that
		// are, and nothing is sent by either route.
		before := len(mailbox(t, e, "ada@acme.test"))
		for _, r := range []apptest.Resp{code("de"), e.SendLink(org, "ada@acme.test", map[string]any{"locale": "de-DE"})} {
			apptest.Want(t, r, http.StatusBadRequest, "unsupported_parameter")
			if msg, _ := r.Body["error_message"].(string); !strings.HasPrefix(msg, "locale ") || !strings.Contains(msg, "en, es, fr, pt-br") {
				t.Fatalf("refusal message: %v", r.Body)
			}
		}
		if after := len(mailbox(t, e, "ada@acme.test")); after != before {
			t.Fatalf("%d messages sent for refused locales", after-before)
		}

		// A deleted member's address gets the no-access notice instead, in
		// the request's language too.
		e.DeleteMember(org, e.CreateVerifiedMember(org, "gone@acme.test"))
		apptest.Want(t, e.SendLink(org, "gone@acme.test", map[string]any{"locale": "fr"}), 200, "")
		wantSaid(t, newest(t, e, "gone@acme.test"), "fr", "Demande de connexion sur ", "rien n'a changé.")

		// Discovery: a link in French, a code in Spanish.
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/magic_links/email/discovery/send",
			map[string]any{"email_address": "bo@acme.test", "locale": "fr-CA"}, ""), 200, "")
		wantSaid(t, newest(t, e, "bo@acme.test"), "fr", "Votre lien de connexion à", "Ce lien expire dans 60 minutes.")
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/email/discovery/send",
			map[string]any{"email_address": "bo@acme.test", "locale": "es-MX"}, ""), 200, "")
		wantSaid(t, newest(t, e, "bo@acme.test"), "es", "Tu código para iniciar sesión es:")

		// An invitation and a password reset start in Portuguese.
		apptest.Want(t, e.Backend(http.MethodPost, "/v1/b2b/magic_links/email/invite",
			map[string]any{"organization_id": org, "email_address": "cy@acme.test", "locale": "pt"}), 200, "")
		wantSaid(t, newest(t, e, "cy@acme.test"), "pt-BR", "Convite para participar de Acme")
		apptest.Want(t, e.ResetStart(org, "ada@acme.test", map[string]any{"locale": "pt-BR"}), 200, "")
		wantSaid(t, newest(t, e, "ada@acme.test"), "pt-BR", "Verifique seu e-mail para criar uma senha em Acme")
	})
}

// The SMS code is written in the request's language: one asked for with
// otps/sms/send, and one a login sends by itself when the organization
// wants MFA of a member with a phone (the login's own locale). The email
// update's email follows start_email_update's.
func TestCodesByTextAndEmailUpdatesInTheRequestLocale(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org, mid := e.MFAMember()
		ist, _ := e.MFALogin(org, "ada@secure.test")
		const num = "+14155550177"
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/otps/sms/send", map[string]any{"organization_id": org, "member_id": mid,
			"intermediate_session_token": ist, "mfa_phone_number": num, "locale": "fr"}, ""), 200, "")
		sms := newest(t, e, num)
		wantSaid(t, sms, "", "est votre code de vérification Secure. Il expire dans 2 minutes. Ne le communiquez à personne.")
		apptest.Want(t, e.SMSAuth(org, mid, ist, e.LastSMS(num), nil), 200, "")

		// A magic-link login redeemed in Spanish texts its code in Spanish.
		apptest.Want(t, e.SendLink(org, "ada@secure.test", nil), 200, "")
		links, _ := e.LastMail("ada@secure.test")
		r := e.RedeemLink(apptest.MagicLinkToken(t, links[0]), map[string]any{"locale": "es"})
		apptest.Want(t, r, 200, "")
		if req, _ := r.Data()["mfa_required"].(map[string]any); req == nil || req["secondary_auth_initiated"] != "sms_otp" {
			t.Fatalf("login did not text a code: %v", r.Data())
		}
		wantSaid(t, newest(t, e, num), "", "es tu código de verificación de Secure. Caduca en 2 minutos.")

		// start_email_update in French, by link and by code.
		e.SetMFA(org, "OPTIONAL")
		tok, _, _ := e.Login(org, "ada@secure.test")
		apptest.Want(t, e.StartEmailUpdate(tok, mid, map[string]any{"email_address": "ada.new@secure.test", "locale": "fr"}), 200, "")
		wantSaid(t, newest(t, e, "ada.new@secure.test"), "fr", "Confirmez votre nouvelle adresse e-mail pour Secure")
		apptest.Want(t, e.StartEmailUpdate(tok, mid, map[string]any{"email_address": "ada.other@secure.test", "locale": "fr",
			"delivery_method": "EMAIL_OTP"}), 200, "")
		wantSaid(t, newest(t, e, "ada.other@secure.test"), "fr", "Votre code pour confirmer votre nouvelle adresse e-mail est")
	})
}
