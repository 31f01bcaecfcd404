package trustedauth

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/emailaddr"
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/ratelimit"
	"github.com/latchkey/latchkey/internal/session"
	"github.com/latchkey/latchkey/internal/store"
)

// Factor names of a migrated session. They are the session package's,
// which decides that such a factor is no recent authentication.
const (
	MigratedFactorType     = session.MigratedType
	MigratedDeliveryMethod = session.MigratedDeliveryMethod
)

// maxUserinfoBytes bounds the previous provider's userinfo answer.
const maxUserinfoBytes = 256 << 10

// SetMigrationUserinfoURL sets (or, with "", clears) the userinfo endpoint
// of the provider sessions are migrated from (b2b/sessions/migrate),
// running also in the same transaction.
func (s *Service) SetMigrationUserinfoURL(ctx context.Context, projectID, u string, also ...Also) error {
	if u == "" {
		return s.d.DB.Tx(ctx, func(q store.Querier) error {
			if _, err := q.ExecContext(ctx, `DELETE FROM session_migration_settings WHERE project_id = $1`, projectID); err != nil {
				return fmt.Errorf("trustedauth: clear migration settings: %w", err)
			}
			return runAlso(q, also)
		})
	}
	if err := checkFetchURL("userinfo_url", u); err != nil {
		return err
	}
	return s.d.DB.Tx(ctx, func(q store.Querier) error {
		_, err := q.ExecContext(ctx, `INSERT INTO session_migration_settings (project_id, userinfo_url, updated_at)
			VALUES ($1, $2, $3) ON CONFLICT (project_id) DO UPDATE SET userinfo_url = $2, updated_at = $3`,
			projectID, u, store.Millis(s.d.Clock.Now()))
		if err != nil {
			return fmt.Errorf("trustedauth: save migration settings: %w", store.MapError(err))
		}
		return runAlso(q, also)
	})
}

// MigrationUserinfoURL is the project's migration endpoint ("" if none).
func (s *Service) MigrationUserinfoURL(ctx context.Context, projectID string) (string, error) {
	var u string
	err := s.d.DB.Read().QueryRowContext(ctx, `SELECT userinfo_url FROM session_migration_settings WHERE project_id = $1`,
		projectID).Scan(&u)
	if errors.Is(err, sql.ErrNoRows) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("trustedauth: migration settings: %w", err)
	}
	return u, nil
}

type migrateRequest struct {
	SessionToken           string `json:"session_token"`
	OrganizationID         string `json:"organization_id"`
	SessionDurationMinutes *int   `json:"session_duration_minutes"`
	session.ClaimsField
}

// Migrate handles POST /v1/b2b/sessions/migrate: a session (an OAuth
// access token) of the provider a project moves from is presented to that
// provider's userinfo endpoint; the email it answers names an existing
// member of the organization, who gets a session here. Members are never
// created: they are imported first. The login goes through the completion
// seam, so MFA and auth-method policies apply.
func (h Handlers) Migrate(r *http.Request) (any, error) {
	var req migrateRequest
	if err := httpapi.Decode(r, &req); err != nil {
		return nil, err
	}
	for _, f := range [][2]string{{"session_token", req.SessionToken}, {"organization_id", req.OrganizationID}} {
		if err := httpapi.Required(f[0], f[1]); err != nil {
			return nil, err
		}
	}
	claims, err := req.Claims(r)
	if err != nil {
		return nil, err
	}
	ctx := r.Context()
	p := project.CallerFrom(ctx).Project
	duration, err := session.DurationMinutes(r.Context(), p, req.SessionDurationMinutes)
	if err != nil {
		return nil, err
	}
	s := h.s
	endpoint, err := s.MigrationUserinfoURL(ctx, p.ID)
	if err != nil {
		return nil, err
	}
	if endpoint == "" {
		return nil, apierr.New(apierr.MigrateMissingUserinfo)
	}
	var resp *session.AuthResponse
	err = s.d.Limiter.GuardUnguessable(ctx, func() error {
		email, err := s.userinfoEmail(ctx, endpoint, req.SessionToken)
		if err != nil {
			return err
		}
		return s.d.DB.Tx(ctx, func(q store.Querier) error {
			org, err := s.d.Orgs.GetIn(ctx, q, p.ID, req.OrganizationID)
			if err != nil {
				return organization.NotFound(err, apierr.OrganizationNotFound)
			}
			m, err := s.d.Orgs.MemberByEmail(ctx, q, org.OrganizationID, email)
			if errors.Is(err, store.ErrNotFound) {
				return apierr.Wrap(apierr.MigrateEmailDoesNotExist, err)
			}
			if err != nil {
				return err
			}
			if m.Status != organization.StatusActive {
				return apierr.New(apierr.InactiveMember)
			}
			resp, err = s.d.Sessions.Complete(ctx, q, session.CompleteParams{Project: p, Organization: org, Member: m,
				DurationMinutes: duration, Factor: session.Factor{Type: MigratedFactorType, DeliveryMethod: MigratedDeliveryMethod,
					EmailFactor: &session.EmailFactor{EmailID: m.EmailID, EmailAddress: m.EmailAddress}},
				CustomClaims: claims})
			return err
		})
	}, ratelimit.FailureOf(apierr.MigrateUnexpectedResponse), ratelimit.For(MigratePerIP, p.ID+"|"+httpapi.ClientIP(r)))
	if err != nil {
		return nil, err
	}
	// As attest: B2BSessionsMigrateResponse has no IST fields, kept since
	// the login goes through the usual completion (MFA applies; README,
	// sessions/migrate), and no organization_id.
	return session.Declared(resp, session.DeclaresIntermediate|session.DeclaresPrimaryRequired), nil
}

// userinfoEmail asks the previous provider who the session belongs to.
func (s *Service) userinfoEmail(ctx context.Context, endpoint, token string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, fetchTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, endpoint, nil)
	if err != nil {
		return "", fmt.Errorf("trustedauth: userinfo request: %w", err)
	}
	req.Header.Set("Authorization", "Bearer "+token)
	req.Header.Set("Accept", "application/json")
	res, err := s.userinfo.Do(req)
	if err != nil {
		return "", apierr.Wrap(apierr.MigrateUserinfoUnavailable, err)
	}
	defer res.Body.Close()
	unexpected := func(msg string) error {
		return apierr.New(apierr.MigrateUnexpectedResponse).WithMessage("The previous provider's userinfo endpoint " + msg)
	}
	if res.StatusCode != http.StatusOK {
		return "", unexpected(fmt.Sprintf("refused the session token (status %d).", res.StatusCode))
	}
	body, err := io.ReadAll(io.LimitReader(res.Body, maxUserinfoBytes))
	if err != nil {
		return "", unexpected("answer could not be read.")
	}
	info, err := decodeClaims(body)
	if err != nil {
		return "", unexpected("did not answer a JSON object.")
	}
	raw := info.text("email")
	if strings.TrimSpace(raw) == "" {
		return "", unexpected("answered no email.")
	}
	if !info.emailVerified() {
		return "", unexpected("says the email is not verified (email_verified is not true).")
	}
	email, err := emailaddr.Normalize(raw)
	if err != nil {
		return "", unexpected("answered an invalid email.")
	}
	return email, nil
}
