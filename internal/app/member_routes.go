package app

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/password"
)

// deleteMemberSubresource serves the backend's
// DELETE /v1/b2b/organizations/{organization_id}/members/{a}/{b}. ServeMux
// cannot hold .../members/passwords/{member_password_id} and
// .../members/{member_id}/totp side by side (neither is more specific for
// .../members/passwords/totp), so one pattern takes them all and the
// literal segment decides: passwords/{id} deletes a password, anything
// else is an MFA factor (mfa.Handlers.DeleteMemberFactor).
func deleteMemberSubresource(pw password.Handlers, factors mfa.Handlers) httpapi.HandlerFunc {
	return func(r *http.Request) (any, error) {
		if r.PathValue("a") == "passwords" {
			r.SetPathValue("member_password_id", r.PathValue("b"))
			return pw.BackendDelete(r)
		}
		return factors.DeleteMemberFactor(r)
	}
}
