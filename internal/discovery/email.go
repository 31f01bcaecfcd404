package discovery

import (
	"context"
	"fmt"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/emailotp"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/locale"
	"github.com/latchkey/latchkey/internal/magiclink"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// LinkParams is a discovery magic-link send.
type LinkParams struct {
	Project           *project.Project
	ClientIP          string
	Email             string
	RedirectURL       string
	ExpirationMinutes int
	PKCECodeChallenge string
	Locale            locale.Tag // the email's language
}

// SendLink emails a discovery link to the project's discovery redirect URL.
// It answers the same whether or not the address belongs to anyone.
//
// The send is one short transaction, as with email codes: both limits, the
// link and its queued email are written together or not at all, and SMTP
// happens later, off the request path (notify.Queue). The challenge is
// required as project.EmailMagicLinkPKCERequired says for the caller in
// ctx.
func (s *Service) SendLink(ctx context.Context, p LinkParams) error {
	if err := flowtoken.StartChallenge("pkce_code_challenge", p.PKCECodeChallenge,
		project.EmailMagicLinkPKCERequired(ctx, p.Project)); err != nil {
		return err
	}
	email, err := emailaddr.Normalize(p.Email)
	if err != nil {
		return err
	}
	ipKey := p.Project.ID + "|" + p.ClientIP
	var linkID string
	return notify.SendCounted(ctx, s.d.DB, s.d.Mailer, notify.AddressLimit{Limiter: s.d.Limiter, Rule: SendPerIP, Key: ipKey},
		func(q store.Querier) (notify.Email, error) {
			if err := s.d.Limiter.AllowIn(ctx, q, SendPerEmail, p.Project.ID+"|"+email); err != nil {
				return notify.Email{}, err
			}
			minutes := p.ExpirationMinutes
			if minutes == 0 {
				minutes = magiclink.DefaultExpiryMinutes
			}
			if minutes < magiclink.MinExpiryMinutes || minutes > magiclink.MaxExpiryMinutes {
				return notify.Email{}, apierr.Invalid("discovery_expiration_minutes", fmt.Sprintf("Expiration must be between %d and %d minutes.",
					magiclink.MinExpiryMinutes, magiclink.MaxExpiryMinutes))
			}
			target, err := s.d.Projects.ResolveRedirect(ctx, p.Project.ID, project.RedirectDiscovery, p.RedirectURL)
			if err != nil {
				return notify.Email{}, err
			}
			var link string
			if link, linkID, err = s.issueLinkIn(ctx, q, p.Project, email, p.PKCECodeChallenge, minutes, target); err != nil {
				return notify.Email{}, err
			}
			msg, err := notify.MagicLinkLoginEmail(email, notify.LinkData{ProjectID: p.Project.ID, ProjectName: p.Project.Name, URL: link,
				ExpiresIn: time.Duration(minutes) * time.Minute, Locale: p.Locale})
			if err != nil {
				return notify.Email{}, apierr.Wrap(apierr.EmailDeliveryFailed, err)
			}
			return msg, nil
		},
		// A link nobody received is spent.
		func(ctx context.Context) { s.BurnLink(ctx, linkID) })
}

// IssueLink stores a discovery magic link for email and returns its URL
// on target (a resolved discovery redirect URL) and its id. SendLink mails
// one; a discovery password reset email carries one as its "log in
// without a password" link, stored through q, the reset start's one
// transaction.
func (s *Service) IssueLink(ctx context.Context, q store.Querier, p *project.Project, email, challenge string, minutes int,
	target string) (link, id string, err error) {
	return s.issueLinkIn(ctx, q, p, email, challenge, minutes, target)
}

// issueLinkIn is IssueLink through q, which may be the send's transaction.
func (s *Service) issueLinkIn(ctx context.Context, q store.Querier, p *project.Project, email, challenge string, minutes int,
	target string) (link, id string, err error) {
	token, id := ids.Token(), ids.New("discovery-magic-link", p.Env)
	if link, err = flowtoken.TokenLink(target, TokenType, token, nil); err != nil {
		return "", "", fmt.Errorf("discovery: redirect url: %w", err)
	}
	now := s.d.Clock.Now()
	if _, err := q.ExecContext(ctx, `INSERT INTO discovery_magic_links (discovery_magic_link_id, project_id, email_address,
		token_hash, pkce_code_challenge, created_at, expires_at) VALUES ($1,$2,$3,$4,$5,$6,$7)`, id, p.ID, email,
		ids.Hash(token), challenge, store.Millis(now), store.Millis(now.Add(time.Duration(minutes)*time.Minute))); err != nil {
		return "", "", fmt.Errorf("discovery: store link: %w", err)
	}
	return link, id, nil
}

// BurnLink spends an issued link whose email could not be sent.
func (s *Service) BurnLink(ctx context.Context, id string) {
	_, _ = s.d.DB.ExecContext(ctx, `UPDATE discovery_magic_links SET used_at = $1 WHERE discovery_magic_link_id = $2`,
		store.Millis(s.d.Clock.Now()), id)
}

// AuthenticateLink redeems a discovery link: an IST and the organizations.
func (s *Service) AuthenticateLink(ctx context.Context, p *project.Project, ip, token, verifier string) (*Response, error) {
	if token == "" {
		return nil, apierr.Invalid("discovery_magic_links_token", "discovery_magic_links_token is required.")
	}
	attempt, err := s.d.Limiter.Reserve(ctx, ratelimit.For(magiclink.RedeemPerIP, p.ID+"|"+ip))
	if err != nil {
		return nil, err
	}
	var out *Response
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		now := s.d.Clock.Now()
		var id, email, challenge string
		var expires int64
		var used *int64
		err := q.QueryRowContext(ctx, `SELECT discovery_magic_link_id, email_address, pkce_code_challenge, expires_at, used_at
			FROM discovery_magic_links WHERE token_hash = $1 AND project_id = $2`, ids.Hash(token), p.ID).
			Scan(&id, &email, &challenge, &expires, &used)
		if err != nil {
			return apierr.Wrap(apierr.UnableToAuthMagicLink, store.MapError(err))
		}
		if used != nil || !now.Before(store.Time(expires)) {
			return apierr.New(apierr.UnableToAuthMagicLink)
		}
		if err := flowtoken.CheckPKCE(challenge, verifier, "link"); err != nil {
			return err
		}
		res, err := q.ExecContext(ctx, `UPDATE discovery_magic_links SET used_at = $1 WHERE discovery_magic_link_id = $2 AND used_at IS NULL`,
			store.Millis(now), id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return apierr.New(apierr.UnableToAuthMagicLink)
		}
		out, err = s.DiscoveredTx(ctx, q, p, email, session.Factor{DeliveryMethod: "email", Type: "magic_link",
			EmailFactor: &session.EmailFactor{EmailAddress: email}})
		return err
	})
	return out, publicErr(attempt.Settle(ctx, err, ratelimit.LinkFailure), "authenticate link")
}

// SendCode emails a discovery code, in loc's language. It answers the same whether or not
// the address belongs to anyone.
//
// The send is one short transaction, like every email send: the
// per-address limit, the code, its queued email and, last, the
// per-client-address limit are written together or not at all.
func (s *Service) SendCode(ctx context.Context, p *project.Project, ip, rawEmail string, expiryMinutes int, loc locale.Tag) error {
	expiry := emailotp.DefaultExpiry
	if expiryMinutes != 0 {
		if expiryMinutes < 2 || expiryMinutes > 15 {
			return apierr.Invalid("discovery_expiration_minutes", "Expiration must be between 2 and 15 minutes.")
		}
		expiry = time.Duration(expiryMinutes) * time.Minute
	}
	email, err := emailaddr.Normalize(rawEmail)
	if err != nil {
		return err
	}
	ipKey := p.ID + "|" + ip
	return notify.SendCounted(ctx, s.d.DB, s.d.Mailer, notify.AddressLimit{Limiter: s.d.Limiter, Rule: SendPerIP, Key: ipKey},
		func(q store.Querier) (notify.Email, error) {
			if err := s.d.Limiter.AllowIn(ctx, q, SendPerEmail, p.ID+"|"+email); err != nil {
				return notify.Email{}, err
			}
			code, err := s.codes.Issue(ctx, q, p.Env, p.ID, email, expiry, nil)
			if err != nil {
				return notify.Email{}, err
			}
			msg, err := notify.EmailOTPEmail(email, notify.CodeData{ProjectID: p.ID, ProjectName: p.Name, Code: code, ExpiresIn: expiry, Locale: loc})
			if err != nil {
				return notify.Email{}, apierr.Wrap(apierr.EmailDeliveryFailed, err)
			}
			return msg, nil
		},
		// A failed delivery spends the code.
		func(ctx context.Context) { s.codes.Retire(ctx, s.d.DB, p.ID, email) })
}

// AuthenticateCode checks a discovery code: an IST and the organizations.
func (s *Service) AuthenticateCode(ctx context.Context, p *project.Project, ip, rawEmail, code string) (*Response, error) {
	if !codeOK(code) {
		return nil, apierr.New(apierr.InvalidCode)
	}
	email, err := emailaddr.Normalize(rawEmail)
	if err != nil {
		return nil, err
	}
	attempt, err := s.d.Limiter.Reserve(ctx, ratelimit.For(CheckPerIP, p.ID+"|"+ip), ratelimit.For(CheckPerEmail, p.ID+"|"+email))
	if err != nil {
		return nil, err
	}
	var out *Response
	miss := false
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		matched, err := s.codes.Check(ctx, q, p.ID, email, code)
		if err != nil || !matched {
			miss = !matched
			return err
		}
		out, err = s.DiscoveredTx(ctx, q, p, email, session.Factor{DeliveryMethod: "email", Type: session.EmailOTPType,
			EmailFactor: &session.EmailFactor{EmailAddress: email}})
		return err
	})
	if err == nil && miss {
		err = apierr.New(apierr.OTPCodeNotFound)
	}
	return out, publicErr(attempt.Settle(ctx, err, ratelimit.FailureOf(apierr.OTPCodeNotFound)), "authenticate code")
}

func codeOK(code string) bool {
	if len(code) != emailotp.CodeLength {
		return false
	}
	for _, c := range code {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}
