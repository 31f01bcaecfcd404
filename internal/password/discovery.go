package password

import (
	"context"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/discovery"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/notify"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Discoverer lists the organizations of a verified email and issues the
// discovery IST (the discovery service).
type Discoverer interface {
	DiscoveredTx(ctx context.Context, q store.Querier, p *project.Project, email string, factor session.Factor) (*discovery.Response, error)
	// IssueLink and BurnLink make the discovery magic link of a reset
	// email's "log in without password" button.
	// IssueLink writes through q (the reset start's transaction).
	IssueLink(ctx context.Context, q store.Querier, p *project.Project, email, challenge string, minutes int,
		target string) (link, id string, err error)
	BurnLink(ctx context.Context, id string)
}

// discoveryFactor is the factor a discovery IST carries after a password.
func discoveryFactor(email, delivery string) session.Factor {
	return session.Factor{DeliveryMethod: delivery, Type: "password", EmailFactor: &session.EmailFactor{EmailAddress: email}}
}

// DiscoveryAuthParams is a passwords/discovery/authenticate request.
type DiscoveryAuthParams struct {
	Project  *project.Project
	ClientIP string
	Email    string
	Password string
}

// DiscoveryAuthenticate checks the password of an address and answers its
// discovered organizations with a discovery IST. The same lockout, dummy
// hashing, forced reset and upgrade rules apply as for an organization
// login.
func (s *Service) DiscoveryAuthenticate(ctx context.Context, a DiscoveryAuthParams) (*discovery.Response, error) {
	email, err := emailaddr.Normalize(a.Email)
	if err != nil {
		return nil, err
	}
	if a.Password == "" {
		return nil, apierr.Invalid("password", "password is required.")
	}
	var out *discovery.Response
	err = s.verify(ctx, a.Project, a.ClientIP, email, a.Password, true, func(v verified) error {
		return s.loginTx(ctx, a.Project, v, a.Password, func(q store.Querier) (err error) {
			out, err = s.d.Discovery.DiscoveredTx(ctx, q, a.Project, email, discoveryFactor(email, "knowledge"))
			return err
		})
	})
	if err != nil {
		return nil, wrap("discovery authenticate", err)
	}
	return out, nil
}

// StartDiscoveryReset handles the discovery reset start: a link that lets
// the owner of the address set its password, then lists its organizations.
// With or without a password the link is the same kind (only the email's
// wording differs), and the response is always the same.
//
// So is the work: after the send limits, one write transaction
// (notify.SendOnce) reads whether the address has a password and stores
// the reset token, the "log in without password" link when it has one,
// and the queued email. Stored one by one, the link cost an address with
// a password one more write than a stranger, which a holder of the public
// token could time (as the organization's start once did, see
// StartEmailReset).
func (s *Service) StartDiscoveryReset(ctx context.Context, a StartParams) error {
	email, target, minutes, err := s.checkStart(ctx, a, "discovery", "pkce_code_challenge")
	if err != nil {
		return err
	}
	loginTarget, err := s.loginTarget(ctx, a.Project, project.RedirectDiscovery, a.DiscoveryRedirectURL)
	if err != nil {
		return err
	}
	var resetID, linkID string
	build := func(q store.Querier) (notify.Email, error) {
		resetID, linkID = "", "" // a retried transaction starts over
		// Only an address with a password gets the "log in without
		// password" link: the other email's link is the way in.
		build, hasPassword := notify.PasswordSetEmail, false
		if _, err := s.credential(ctx, q, a.Project.ID, email); err == nil {
			build, hasPassword = notify.PasswordResetEmail, true
		} else if !isNotFound(err) {
			return notify.Email{}, err
		}
		token, id, err := s.issueReset(ctx, q, a.Project, "", "", email, a.CodeChallenge, minutes)
		if err != nil {
			return notify.Email{}, err
		}
		resetID = id
		data := notify.LinkData{ProjectID: a.Project.ID, ProjectName: a.Project.Name,
			ExpiresIn: time.Duration(minutes) * time.Minute, Locale: a.Locale}
		if data.URL, err = resetLink(target, TokenTypeDiscoveryReset, token); err != nil {
			return notify.Email{}, err
		}
		if loginTarget != "" && hasPassword {
			if data.LoginURL, linkID, err = s.d.Discovery.IssueLink(ctx, q, a.Project, email, a.CodeChallenge, minutes,
				loginTarget); err != nil {
				return notify.Email{}, err
			}
		}
		return buildMail(email, data, build)
	}
	// A mailer that talks to a server failed after the commit: no live
	// token nobody received.
	undo := func(ctx context.Context) {
		if resetID != "" {
			s.burnReset(ctx, resetID)
		}
		if linkID != "" {
			s.d.Discovery.BurnLink(ctx, linkID)
		}
	}
	return notify.SendOnce(ctx, s.d.DB, s.d.Mailer, build, undo, nil)
}

// ResetDiscovery spends a discovery reset token, sets the password, and
// answers the address's discovered organizations with a discovery IST, all
// in one transaction.
func (s *Service) ResetDiscovery(ctx context.Context, a ResetParams) (*discovery.Response, error) {
	return s.resetDiscovery(ctx, s.d.DB, a)
}

// resetDiscovery is ResetDiscovery with its spend's transaction run by db
// (see spender).
func (s *Service) resetDiscovery(ctx context.Context, db spender, a ResetParams) (*discovery.Response, error) {
	t, hash, err := s.prepareReset(ctx, a, true)
	if err != nil {
		return nil, err
	}
	var out *discovery.Response
	err = db.Tx(ctx, func(q store.Querier) error {
		if err := s.consumeReset(ctx, q, t.ID); err != nil {
			return err
		}
		if err := s.changePassword(ctx, q, a.Project, t.Email, hash, ""); err != nil {
			return err
		}
		out, err = s.d.Discovery.DiscoveredTx(ctx, q, a.Project, t.Email, discoveryFactor(t.Email, "email"))
		return err
	})
	if err != nil {
		return nil, wrap("discovery reset", err)
	}
	return out, nil
}
