package organization

import "time"

// Member statuses.
const (
	StatusActive  = "active"
	StatusPending = "pending"
	StatusInvited = "invited"
	StatusDeleted = "deleted"
)

// RoleSource says why a member has a role.
type RoleSource struct {
	Type    string         `json:"type"`
	Details map[string]any `json:"details"`
}

// MemberRole is a role assignment.
type MemberRole struct {
	RoleID  string       `json:"role_id"`
	Sources []RoleSource `json:"sources"`
}

// DefaultRole is held by every member.
const DefaultRole = "stytch_member"

// AdminRole administers the organization (the rbac package's built-in
// policy); is_admin reports whether a member holds it, from any source.
const AdminRole = "stytch_admin"

// SSORegistration links a member to their identity at one SSO connection
// (written by the SSO module, which keeps the members column in step).
type SSORegistration struct {
	ConnectionID   string         `json:"connection_id"`
	ExternalID     string         `json:"external_id"`
	RegistrationID string         `json:"registration_id"`
	SSOAttributes  map[string]any `json:"sso_attributes"`
}

// SCIMRegistration links a member to their identity at the organization's
// SCIM connection (filled by the SCIM module's member decorator).
// SCIMAttributes is the user as the identity provider last described it,
// in the wire's SCIMAttributes shape.
type SCIMRegistration struct {
	ConnectionID   string         `json:"connection_id"`
	RegistrationID string         `json:"registration_id"`
	ExternalID     string         `json:"external_id,omitempty"`
	SCIMAttributes map[string]any `json:"scim_attributes,omitempty"`
}

// Member is the wire shape of a member.
type Member struct {
	OrganizationID         string            `json:"organization_id"`
	MemberID               string            `json:"member_id"`
	EmailAddress           string            `json:"email_address"`
	EmailAddressVerified   bool              `json:"email_address_verified"`
	RetiredEmailAddresses  []RetiredEmail    `json:"retired_email_addresses"`
	Status                 string            `json:"status"`
	Name                   string            `json:"name"`
	TrustedMetadata        map[string]any    `json:"trusted_metadata"`
	UntrustedMetadata      map[string]any    `json:"untrusted_metadata"`
	CreatedAt              time.Time         `json:"created_at"`
	UpdatedAt              time.Time         `json:"updated_at"`
	SSORegistrations       []SSORegistration `json:"sso_registrations"`
	IsBreakglass           bool              `json:"is_breakglass"`
	IsAdmin                bool              `json:"is_admin"`
	IsLocked               bool              `json:"is_locked"`                 // a lockout about the address runs (see memberSelect)
	LockCreatedAt          *time.Time        `json:"lock_created_at,omitempty"` // the running lockouts' earliest start, if known
	LockExpiresAt          *time.Time        `json:"lock_expires_at,omitempty"` // and latest end (absent when none runs)
	MemberPasswordID       string            `json:"member_password_id"`
	MFAEnrolled            bool              `json:"mfa_enrolled"`
	MFAPhoneNumber         string            `json:"mfa_phone_number"`
	MFAPhoneNumberVerified bool              `json:"mfa_phone_number_verified"`
	Roles                  []MemberRole      `json:"roles"`
	DefaultMFAMethod       string            `json:"default_mfa_method"`
	TOTPRegistrationID     string            `json:"totp_registration_id"`
	OAuthRegistrations     []any             `json:"oauth_registrations"`
	ExternalID             string            `json:"external_id"`
	// SCIMRegistration is set for a member the organization's identity
	// provider provisioned (backend face only: the browser SDK does not
	// declare it).
	SCIMRegistration *SCIMRegistration `json:"scim_registration,omitempty"`

	EmailID   string `json:"-"`
	projectID string
	// explicit are the directly assigned roles (the members.roles column);
	// emailAssignments the organization's email assignments as read with
	// the member; implicit the grants of the registered ImplicitRoleSources.
	// Roles and IsAdmin are computed from them (computeRoles).
	explicit         []string
	emailAssignments []RoleAssignment
	implicit         []RoleGrant
}

// ProjectID returns the owning project.
func (m *Member) ProjectID() string { return m.projectID }

// RoleIDs lists the ids of every role the member holds, from any source.
func (m *Member) RoleIDs() []string {
	out := make([]string, 0, len(m.Roles))
	for _, r := range m.Roles {
		out = append(out, r.RoleID)
	}
	return out
}
