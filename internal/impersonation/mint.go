package impersonation

import (
	"context"
	"fmt"
	"time"
	"unicode/utf8"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/displaytext"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/flowtoken"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// MintParams names the member to impersonate and who impersonates them.
type MintParams struct {
	ProjectID      string
	OrganizationID string
	MemberID       string
	// ImpersonatorEmail is the operator's address; ImpersonatorID their id
	// in the operator's own directory ("" uses the address). Both land in
	// the session's impersonated_factor and in the audit log.
	ImpersonatorEmail string
	ImpersonatorID    string
	// RedirectURL must exactly match one of the project's login redirect
	// URLs; "" uses the default one.
	RedirectURL string
}

// MaxImpersonatorID bounds MintParams.ImpersonatorID, in characters, as
// other names someone types are bounded.
const MaxImpersonatorID = 256

// MaxReason bounds the reason an operator gives for impersonating (the
// CLI's --reason, a ticket number or a sentence), in characters.
const MaxReason = 1024

// Minted is a fresh token and the login URL that carries it.
type Minted struct {
	TokenID                  string    `json:"impersonation_token_id"`
	Token                    string    `json:"impersonation_token"`
	LoginURL                 string    `json:"login_url"`
	ExpiresAt                time.Time `json:"expires_at"`
	OrganizationID           string    `json:"organization_id"`
	MemberID                 string    `json:"member_id"`
	ImpersonatorID           string    `json:"impersonator_id"`
	ImpersonatorEmailAddress string    `json:"impersonator_email_address"`
}

// Also is work a caller joins to minting, run in its transaction with
// what was minted: the CLI files its audit event there, so a token is
// never issued unrecorded. It must not keep or log t.Token.
type Also func(q store.Querier, t *Minted) error

// Mint issues a token for an active member, with also in the same
// transaction.
func (s *Service) Mint(ctx context.Context, m MintParams, also ...Also) (*Minted, error) {
	email, err := emailaddr.Normalize(m.ImpersonatorEmail)
	if err != nil {
		return nil, apierr.Invalid("impersonator", "The impersonator's email address is invalid.")
	}
	impersonatorID, err := checkImpersonatorID(m.ImpersonatorID, email)
	if err != nil {
		return nil, err
	}
	p, err := s.d.Projects.ByID(ctx, m.ProjectID)
	if err != nil {
		return nil, fmt.Errorf("impersonation: project %s: %w", m.ProjectID, err)
	}
	target, err := s.d.Projects.ResolveRedirect(ctx, p.ID, project.RedirectLogin, m.RedirectURL)
	if err != nil {
		return nil, err
	}
	token := ids.Token()
	link, err := flowtoken.TokenLink(target, TokenType, token, nil)
	if err != nil {
		return nil, fmt.Errorf("impersonation: login url: %w", err)
	}
	now := s.d.Clock.Now()
	out := &Minted{TokenID: ids.New("impersonation-token", p.Env), Token: token, LoginURL: link,
		ExpiresAt: now.Add(TokenTTL).Truncate(time.Millisecond), OrganizationID: m.OrganizationID, MemberID: m.MemberID,
		ImpersonatorID: impersonatorID, ImpersonatorEmailAddress: email}
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		if _, _, err := s.activeMember(ctx, q, p.ID, m.OrganizationID, m.MemberID); err != nil {
			return err
		}
		if _, err := q.ExecContext(ctx, `INSERT INTO impersonation_tokens (token_id, project_id, organization_id, member_id,
			impersonator_id, impersonator_email, token_hash, created_at, expires_at) VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9)`,
			out.TokenID, p.ID, m.OrganizationID, m.MemberID, impersonatorID, email, ids.Hash(token),
			store.Millis(now), store.Millis(out.ExpiresAt)); err != nil {
			return fmt.Errorf("impersonation: insert token: %w", err)
		}
		for _, f := range also {
			if err := f(q, out); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkImpersonatorID is the impersonator id to record: id as the
// operator gave it (trimmed), or email when they gave none. The id is free
// text copied into the session's impersonated_factor (which the customer's
// backend reads) and the audit log (which an operator reads in a
// terminal), so it is refused, as a name someone types is
// (displaytext.Line), when it holds nothing visible, is over
// MaxImpersonatorID characters, or holds a control or bidirectional
// formatting character: a line break forges a second log line, an escape
// sequence rewrites the terminal, and a blank id names nobody.
func checkImpersonatorID(id, email string) (string, error) {
	v, err := optionalLine("impersonator_id", id, MaxImpersonatorID, "the impersonator's email address")
	if v == "" && err == nil {
		return email, nil
	}
	return v, err
}

// CheckReason is the reason to record in the audit event of a mint
// (trimmed; "" when none was given). It is free text an operator reads
// in a terminal, as the impersonator id is, and is refused by the same
// rule (checkLine), bounded by MaxReason: a line break in it forged a
// second line of the audit log, an escape sequence rewrote the terminal
// of whoever read it, and a reason that holds nothing visible (an unset
// shell variable in quotes and a space) records no reason while seeming
// to.
func CheckReason(reason string) (string, error) {
	return optionalLine("reason", reason, MaxReason, "none")
}

// optionalLine is v as checkLine takes it, "" when v was left out, and
// refused when v was given but holds nothing visible: leaving it out
// records instead, which the refusal names.
func optionalLine(field, v string, max int, instead string) (string, error) {
	if v == "" {
		return "", nil
	}
	v, err := checkLine(field, v, max)
	if err == nil && v == "" {
		err = apierr.Invalid(field, field+" must not be blank; leave it out to record "+instead+".")
	}
	return v, err
}

// checkLine is v trimmed, "" when nothing in it is visible, or the
// refusal of v as displaytext.Line refuses a name someone types, and
// when it is not UTF-8.
func checkLine(field, v string, max int) (string, error) {
	if !utf8.ValidString(v) {
		return "", apierr.Invalid(field, field+" must be valid UTF-8.")
	}
	v, why := displaytext.Line(field, v, max)
	if why != "" {
		return "", apierr.Invalid(field, why)
	}
	return v, nil
}

// activeMember is member memberID of organization orgID, refused unless
// active: a pending or invited member has never logged in, and a deleted
// one's sessions would not authenticate (session.Service.Authenticate).
func (s *Service) activeMember(ctx context.Context, q store.Querier, projectID, orgID, memberID string) (
	*organization.Organization, *organization.Member, error) {
	org, err := s.d.Orgs.GetIn(ctx, q, projectID, orgID)
	if err != nil {
		return nil, nil, organization.NotFound(err, apierr.OrganizationNotFound)
	}
	mem, err := s.d.Orgs.Member(ctx, q, projectID, memberID)
	if err != nil {
		return nil, nil, organization.NotFound(err, apierr.MemberNotFound)
	}
	if mem.OrganizationID != org.OrganizationID {
		return nil, nil, apierr.New(apierr.MemberNotFound)
	}
	if mem.Status != organization.StatusActive {
		return nil, nil, apierr.New(apierr.InactiveMember)
	}
	return org, mem, nil
}
