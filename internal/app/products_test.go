package app_test

import (
	"net/http"
	"testing"

	"github.com/latchkey/latchkey/internal/apptest"
)

// A product the project has not enabled is refused on the SDK face with
// endpoint_not_authorized_for_sdk, while enabled products and the backend face (the
// operator's own) go on working.
func TestDisabledProductIsRefused(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		// Switch email OTP off before the first SDK call, so the public-token
		// cache has not seen the project yet.
		if _, err := e.App.DB.ExecContext(t.Context(), `UPDATE projects SET products = $1 WHERE project_id = $2`,
			`["emailMagicLinks"]`, e.Project.Project.ID); err != nil {
			t.Fatal(err)
		}
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		r := e.SendCode(org, "a@acme.test")
		apptest.Want(t, r, 401, "endpoint_not_authorized_for_sdk")
		if r.Body["error_details"].(map[string]any)["product"] != "emailOtp" {
			t.Fatalf("details = %v", r.Body["error_details"])
		}
		if r := e.SendLink(org, "a@acme.test", nil); r.Status != 200 {
			t.Fatalf("enabled product refused: %s", r.Raw)
		}
		// The backend face is the operator's own and is not gated.
		r = e.Backend(http.MethodPost, "/v1/b2b/otps/email/login_or_signup", map[string]any{"organization_id": org, "email_address": "a@acme.test"})
		if r.Status != 200 {
			t.Fatalf("backend send: %s", r.Raw)
		}
	})
}
