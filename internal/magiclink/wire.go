package magiclink

import "github.com/latchkey/latchkey/internal/session"

// SDK wire types: only what @stytch/vanilla-js declares for each call (see
// internal/apptest/sdk_wire.json). Sends answer
// organization.LoginSendResponse and invites organization.MemberResponse,
// which have their own.

// SDKWire implements httpapi.SDKWirer: B2BMagicLinksAuthenticateResponse
// is the login answer with method_id (reset_sessions is the backend's).
func (r *AuthResponse) SDKWire() any {
	return session.WithMethodID{AuthResponse: r.AuthResponse}.SDKWire()
}
