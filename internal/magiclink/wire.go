package magiclink

import (
	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/session"
)

// SDK wire types: only what @stytch/vanilla-js declares for each call (see
// internal/apptest/sdk_wire.json). Invites answer organization.MemberResponse,
// which has its own.

// SDKWire implements httpapi.SDKWirer: the SDK declares ResponseCommon for
// login_or_signup, so a caller holding the public token learns nothing
// about whether the address belongs to a member.
func (r *SendResponse) SDKWire() any { return &httpapi.Common{} }

// SDKWire implements httpapi.SDKWirer: B2BMagicLinksAuthenticateResponse
// is the login answer with method_id (reset_sessions is the backend's).
func (r *AuthResponse) SDKWire() any {
	return session.WithMethodID{AuthResponse: r.AuthResponse}.SDKWire()
}
