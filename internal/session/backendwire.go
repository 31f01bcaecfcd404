package session

import "github.com/latchkey/latchkey/internal/httpapi"

// Backend wire types of authentication answers. AuthResponse is the
// SDK's B2BAuthenticateResponseWithMFA; the Node client declares a
// narrower type for many backend calls (no organization_id, no
// intermediate fields, no primary_required), and the backend answer of
// such a call leaves out what its type lacks
// (internal/apptest/backend_wire.json). The full AuthResponse stays the
// answer of the calls whose type declares it all (the email and password
// logins, OAuth, SSO).

// Declares names the optional fields of an authentication answer that a
// call's Node client response type declares.
type Declares uint8

const (
	// DeclaresOrganizationID: organization_id.
	DeclaresOrganizationID Declares = 1 << iota
	// DeclaresIntermediate: intermediate_session_token,
	// member_authenticated and mfa_required.
	DeclaresIntermediate
	// DeclaresPrimaryRequired: primary_required.
	DeclaresPrimaryRequired
)

// BackendAuthResponse is an authentication answer on the backend face:
// the session answer and the optional fields its call declares (a nil
// field is left out).
type BackendAuthResponse struct {
	*SessionResponse
	OrganizationID           *string `json:"organization_id,omitempty"`
	IntermediateSessionToken *string `json:"intermediate_session_token,omitempty"`
	MemberAuthenticated      *bool   `json:"member_authenticated,omitempty"`
	MFARequired              *any    `json:"mfa_required,omitempty"`
	PrimaryRequired          *any    `json:"primary_required,omitempty"`
}

// Backend returns the answer as a call declaring d answers it.
func (r *AuthResponse) Backend(d Declares) *BackendAuthResponse {
	out := &BackendAuthResponse{SessionResponse: &r.SessionResponse}
	if d&DeclaresOrganizationID != 0 {
		out.OrganizationID = &r.OrganizationID
	}
	if d&DeclaresIntermediate != 0 {
		out.IntermediateSessionToken, out.MemberAuthenticated, out.MFARequired =
			&r.IntermediateSessionToken, &r.MemberAuthenticated, &r.MFARequired
	}
	if d&DeclaresPrimaryRequired != 0 {
		out.PrimaryRequired = &r.PrimaryRequired
	}
	return out
}

// BackendWire implements httpapi.BackendWirer: a step that always ends in
// a session declares none of the optional fields.
func (c Completed) BackendWire() any { return c.AuthResponse.Backend(0) }

// Declared answers an authentication call whose Node client type
// declares only d of the optional fields; the SDK face answers as r does.
func Declared(r *AuthResponse, d Declares) any { return declared{r, d} }

type declared struct {
	*AuthResponse // the SDK form and the audit subject
	d             Declares
}

// BackendWire implements httpapi.BackendWirer.
func (x declared) BackendWire() any { return x.AuthResponse.Backend(x.d) }

var (
	_ httpapi.BackendWirer = Completed{}
	_ httpapi.BackendWirer = declared{}
	_ httpapi.SDKWirer     = declared{}
	_ httpapi.Subjecter    = declared{}
)

// Declaring is Declared for a service call's result, as handlers return
// it: Declaring(d)(h.Service.Exchange(...)). An error passes unchanged.
func Declaring(d Declares) func(*AuthResponse, error) (any, error) {
	return func(r *AuthResponse, err error) (any, error) {
		if err != nil {
			return nil, err
		}
		return Declared(r, d), nil
	}
}
