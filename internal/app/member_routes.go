package app

import (
	"net/http"

	"github.com/latchkey/latchkey/internal/httpapi"
	"github.com/latchkey/latchkey/internal/mfa"
	"github.com/latchkey/latchkey/internal/organization"
	"github.com/latchkey/latchkey/internal/password"
)

// deleteMemberSubresource serves the backend's
// DELETE /v1/b2b/organizations/{organization_id}/members/{a}/{b}. ServeMux
// cannot hold .../members/passwords/{member_password_id} and
// .../members/{member_id}/totp side by side (neither is more specific for
// .../members/passwords/totp), so one pattern takes them all and the
// literal segment decides: passwords/{id} deletes a password, anything
// else is an MFA factor (mfa.Handlers.DeleteMemberFactor).
//
// The member segment may be an external id like any backend member_id:
// aliases resolves it (its {organization_id} is resolved by the wrapping
// AliasEdge.Wrap already).
func deleteMemberSubresource(pw password.Handlers, factors mfa.Handlers, aliases organization.AliasEdge) httpapi.HandlerFunc {
	return func(r *http.Request) (any, error) {
		a, b := r.PathValue("a"), r.PathValue("b")
		if a == "passwords" {
			r.SetPathValue("member_password_id", b)
			return pw.BackendDelete(r)
		}
		// The member's segment as mfa.Handlers.DeleteMemberFactor reads it.
		segment := ""
		switch {
		case a == "mfa_phone_numbers" && b != "":
			segment = "b"
		case b == "totp":
			segment = "a"
		}
		if segment != "" {
			if err := aliases.MemberPathValue(r, segment); err != nil {
				return nil, err
			}
		}
		return factors.DeleteMemberFactor(r)
	}
}
