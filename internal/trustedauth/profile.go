package trustedauth

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/latchkey/latchkey/internal/apierr"
	"github.com/latchkey/latchkey/internal/ids"
	"github.com/latchkey/latchkey/internal/outbound"
	"github.com/latchkey/latchkey/internal/store"
)

// Public key types of a profile, as Stytch names them.
const (
	KeyTypeJWK = "jwk"
	KeyTypePEM = "pem"
)

// Limits of what one project may configure.
const (
	maxProfilesPerProject = 20
	maxPEMFiles           = 5
)

// AttributeMapping names the JWT claims that carry each member field.
// Email is required; TokenID defaults to "jti" and names the claim that
// makes a token single-use; OrganizationID, when set, names the claim
// that says which organization the member belongs to (required for JIT
// provisioning, since the request's own organization_id is not signed).
type AttributeMapping struct {
	Email          string `json:"email"`
	TokenID        string `json:"token_id,omitempty"`
	OrganizationID string `json:"organization_id,omitempty"`
	Name           string `json:"name,omitempty"`
}

// PEMFile is one public key of a pem profile.
type PEMFile struct {
	PEMFileID string `json:"pem_file_id"`
	PublicKey string `json:"public_key"`
}

// Profile is a trusted auth token profile: tokens signed by Issuer's keys
// for Audience are exchanged for sessions by b2b/sessions/attest.
type Profile struct {
	ProfileID        string           `json:"profile_id"`
	ProjectID        string           `json:"project_id"`
	Name             string           `json:"name"`
	Issuer           string           `json:"issuer"`
	Audience         string           `json:"audience"`
	PublicKeyType    string           `json:"public_key_type"`
	JWKSURL          string           `json:"jwks_url"`
	PEMFiles         []PEMFile        `json:"pem_files"`
	AttributeMapping AttributeMapping `json:"attribute_mapping"`
	CanJITProvision  bool             `json:"can_jit_provision"`
	Active           bool             `json:"active"`
	CreatedAt        time.Time        `json:"created_at"`
	UpdatedAt        time.Time        `json:"updated_at"`
}

// NewProfile is what CreateProfile needs; a JWKS URL or PEM keys, not both.
type NewProfile struct {
	ProjectID        string
	Env              ids.Env
	Name             string
	Issuer           string
	Audience         string
	JWKSURL          string
	PEMKeys          []string
	AttributeMapping AttributeMapping
	CanJITProvision  bool
	Inactive         bool
}

func invalid(msg string) error { return apierr.New(apierr.TrustedTokenProfileInvalid).WithMessage(msg) }

// validate checks a new profile and fills its defaults.
func (n *NewProfile) validate() error {
	n.Issuer, n.Audience, n.JWKSURL = strings.TrimSpace(n.Issuer), strings.TrimSpace(n.Audience), strings.TrimSpace(n.JWKSURL)
	switch {
	case n.Issuer == "":
		return invalid("issuer is required.")
	case n.Audience == "":
		return invalid("audience is required.")
	case n.JWKSURL == "" && len(n.PEMKeys) == 0:
		return invalid("A profile needs a JWKS URL or at least one PEM public key.")
	case n.JWKSURL != "" && len(n.PEMKeys) > 0:
		return invalid("A profile takes a JWKS URL or PEM public keys, not both.")
	case len(n.PEMKeys) > maxPEMFiles:
		return invalid(fmt.Sprintf("A profile takes at most %d PEM public keys.", maxPEMFiles))
	}
	if n.JWKSURL != "" {
		if err := checkFetchURL("jwks_url", n.JWKSURL); err != nil {
			return err
		}
	}
	for _, k := range n.PEMKeys {
		if _, err := parsePublicKey(k); err != nil {
			return invalid("A PEM public key could not be read: " + err.Error())
		}
	}
	m := &n.AttributeMapping
	if m.Email == "" {
		m.Email = "email"
	}
	if m.TokenID == "" {
		m.TokenID = "jti"
	}
	if n.CanJITProvision && m.OrganizationID == "" {
		return invalid("JIT provisioning needs an organization_id claim in the attribute mapping: " +
			"a new member's organization must be named by the signed token.")
	}
	if n.Name == "" {
		n.Name = n.Issuer
	}
	return nil
}

// checkFetchURL wants an absolute https URL for something this server
// fetches and trusts (keys, userinfo); plain http is allowed only to a
// loopback host (outbound.CheckURL, the rule SSO and OAuth share).
func checkFetchURL(field, s string) error {
	if err := outbound.CheckURL(s); err != nil {
		return apierr.Invalid(field, field+" "+err.Error()+".")
	}
	return nil
}

// Also is work a caller joins to a change of a profile or of the migration
// settings, run in the change's transaction: the CLI files its audit
// event there, so the change and its record commit together or not at all.
type Also func(q store.Querier) error

func runAlso(q store.Querier, also []Also) error {
	for _, f := range also {
		if err := f(q); err != nil {
			return err
		}
	}
	return nil
}

// CreateProfile stores a new profile, running also in its transaction.
func (s *Service) CreateProfile(ctx context.Context, n NewProfile, also ...Also) (*Profile, error) {
	if err := n.validate(); err != nil {
		return nil, err
	}
	now := s.d.Clock.Now().Truncate(time.Millisecond)
	p := &Profile{ProfileID: ids.New("trusted-auth-token-profile", n.Env), ProjectID: n.ProjectID, Name: n.Name,
		Issuer: n.Issuer, Audience: n.Audience, JWKSURL: n.JWKSURL, PEMFiles: []PEMFile{},
		AttributeMapping: n.AttributeMapping, CanJITProvision: n.CanJITProvision, Active: !n.Inactive,
		CreatedAt: now, UpdatedAt: now, PublicKeyType: KeyTypeJWK}
	if len(n.PEMKeys) > 0 {
		p.PublicKeyType = KeyTypePEM
		for _, k := range n.PEMKeys {
			p.PEMFiles = append(p.PEMFiles, PEMFile{PEMFileID: ids.New("trusted-auth-token-pem-file", n.Env),
				PublicKey: strings.TrimSpace(k) + "\n"})
		}
	}
	pems, err := json.Marshal(p.PEMFiles)
	if err != nil {
		return nil, fmt.Errorf("trustedauth: encode pem files: %w", err)
	}
	mapping, err := json.Marshal(p.AttributeMapping)
	if err != nil {
		return nil, fmt.Errorf("trustedauth: encode attribute mapping: %w", err)
	}
	err = s.d.DB.Tx(ctx, func(q store.Querier) error {
		// The project's row is held while counting, so concurrent creates
		// count one after another: on PostgreSQL they would otherwise all
		// see the same count and all insert, past the cap.
		if err := s.d.DB.LockRow(ctx, q, "projects", "project_id", p.ProjectID); err != nil {
			return fmt.Errorf("trustedauth: %w", err)
		}
		var count int
		if err := q.QueryRowContext(ctx, `SELECT COUNT(*) FROM trusted_auth_token_profiles WHERE project_id = $1`,
			p.ProjectID).Scan(&count); err != nil {
			return fmt.Errorf("trustedauth: count profiles: %w", err)
		}
		if count >= maxProfilesPerProject {
			return invalid(fmt.Sprintf("A project may have at most %d trusted auth token profiles.", maxProfilesPerProject))
		}
		_, err := q.ExecContext(ctx, `INSERT INTO trusted_auth_token_profiles (profile_id, project_id, name, issuer, audience,
			public_key_type, jwks_url, pem_files, attribute_mapping, can_jit_provision, active, created_at, updated_at)
			VALUES ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11,$12,$12)`, p.ProfileID, p.ProjectID, p.Name, p.Issuer, p.Audience,
			p.PublicKeyType, p.JWKSURL, string(pems), string(mapping), p.CanJITProvision, p.Active, store.Millis(now))
		if err != nil {
			return fmt.Errorf("trustedauth: insert profile: %w", store.MapError(err))
		}
		return runAlso(q, also)
	})
	if err != nil {
		return nil, err
	}
	return p, nil
}

const profileColumns = `profile_id, project_id, name, issuer, audience, public_key_type, jwks_url, pem_files,
	attribute_mapping, can_jit_provision, active, created_at, updated_at`

func scanProfile(row interface{ Scan(...any) error }) (*Profile, error) {
	var p Profile
	var pems, mapping string
	var created, updated int64
	if err := row.Scan(&p.ProfileID, &p.ProjectID, &p.Name, &p.Issuer, &p.Audience, &p.PublicKeyType, &p.JWKSURL,
		&pems, &mapping, &p.CanJITProvision, &p.Active, &created, &updated); err != nil {
		return nil, err
	}
	if err := json.Unmarshal([]byte(pems), &p.PEMFiles); err != nil {
		return nil, fmt.Errorf("trustedauth: decode pem files: %w", err)
	}
	if err := json.Unmarshal([]byte(mapping), &p.AttributeMapping); err != nil {
		return nil, fmt.Errorf("trustedauth: decode attribute mapping: %w", err)
	}
	p.CreatedAt, p.UpdatedAt = store.Time(created), store.Time(updated)
	return &p, nil
}

// Profile loads a profile of the project; another project's profile is
// indistinguishable from a missing one.
func (s *Service) Profile(ctx context.Context, projectID, profileID string) (*Profile, error) {
	p, err := scanProfile(s.d.DB.Read().QueryRowContext(ctx, `SELECT `+profileColumns+`
		FROM trusted_auth_token_profiles WHERE profile_id = $1 AND project_id = $2`, profileID, projectID))
	if errors.Is(err, sql.ErrNoRows) {
		return nil, apierr.Wrap(apierr.TrustedTokenProfileNotFound, store.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("trustedauth: profile %s: %w", profileID, err)
	}
	return p, nil
}

// Profiles lists the project's profiles, oldest first.
func (s *Service) Profiles(ctx context.Context, projectID string) ([]*Profile, error) {
	rows, err := s.d.DB.Read().QueryContext(ctx, `SELECT `+profileColumns+`
		FROM trusted_auth_token_profiles WHERE project_id = $1 ORDER BY created_at, profile_id`, projectID)
	if err != nil {
		return nil, fmt.Errorf("trustedauth: list profiles: %w", err)
	}
	defer rows.Close()
	out := []*Profile{}
	for rows.Next() {
		p, err := scanProfile(rows)
		if err != nil {
			return nil, fmt.Errorf("trustedauth: list profiles: %w", err)
		}
		out = append(out, p)
	}
	return out, rows.Err()
}

// SetActive turns a profile on or off; an inactive profile vouches for no
// token. also runs in the change's transaction.
func (s *Service) SetActive(ctx context.Context, projectID, profileID string, active bool, also ...Also) (*Profile, error) {
	err := s.d.DB.Tx(ctx, func(q store.Querier) error {
		res, err := q.ExecContext(ctx, `UPDATE trusted_auth_token_profiles SET active = $1, updated_at = $2
			WHERE profile_id = $3 AND project_id = $4`, active, store.Millis(s.d.Clock.Now()), profileID, projectID)
		if err != nil {
			return fmt.Errorf("trustedauth: update profile: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apierr.Wrap(apierr.TrustedTokenProfileNotFound, store.ErrNotFound)
		}
		return runAlso(q, also)
	})
	if err != nil {
		return nil, err
	}
	return s.Profile(ctx, projectID, profileID)
}

// DeleteProfile removes a profile. The tokens spent through it stay spent
// (they are the project's and the issuer's, see spend): a profile created
// again for the same issuer must not take them a second time.
//
// also runs in the deletion's transaction.
func (s *Service) DeleteProfile(ctx context.Context, projectID, profileID string, also ...Also) error {
	err := s.d.DB.Tx(ctx, func(q store.Querier) error {
		res, err := q.ExecContext(ctx, `DELETE FROM trusted_auth_token_profiles WHERE profile_id = $1 AND project_id = $2`,
			profileID, projectID)
		if err != nil {
			return fmt.Errorf("trustedauth: delete profile: %w", err)
		}
		if n, _ := res.RowsAffected(); n == 0 {
			return apierr.Wrap(apierr.TrustedTokenProfileNotFound, store.ErrNotFound)
		}
		return runAlso(q, also)
	})
	if err != nil {
		return err
	}
	s.keys.forget(profileID)
	return nil
}
