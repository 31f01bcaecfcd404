package password_test

import (
	"context"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/config"
	"github.com/latchkey/latchkey/internal/project"
	"github.com/latchkey/latchkey/internal/store"
)

// storedPassword reads an address's stored password: its hash, and
// whether its reset is forced.
func storedPassword(e *apptest.Env, email string) (hash string, forced bool) {
	e.T.Helper()
	if err := e.App.DB.Read().QueryRowContext(context.Background(), `SELECT hash, require_reset FROM member_passwords
		WHERE project_id = $1 AND email_address = $2`, e.Project.Project.ID, email).Scan(&hash, &forced); err != nil {
		e.T.Fatalf("stored password of %s: %v", email, err)
	}
	return hash, forced
}

// storedHash is storedPassword's hash.
func storedHash(e *apptest.Env, email string) string {
	e.T.Helper()
	h, _ := storedPassword(e, email)
	return h
}

// switchProject makes a new project with the given settings the env's
// project. A new one, because the resolver caches a project for a few
// seconds of real time and tests must not sleep.
func switchProject(e *apptest.Env, u project.Update) {
	e.T.Helper()
	p := e.NewProject("Customer App " + time.Now().Format("150405.000000"))
	updated, err := e.App.Projects.Update(context.Background(), p.Project.ID, u)
	if err != nil {
		e.T.Fatal(err)
	}
	p.Project = updated
	e.Project = p
}

func TestPasswordStrengthCheck(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		wantKeys := []string{"breach_detection_on_create", "breached_password", "luds_feedback", "request_id", "score",
			"status_code", "strength_policy", "valid_password", "zxcvbn_feedback"}
		r := e.SDK(http.MethodPost, "/b2b/passwords/strength_check", map[string]any{"password": "password"}, "")
		d := r.Data()
		if r.Status != 200 || !slices.Equal(slices.Sorted(maps.Keys(d)), wantKeys) {
			t.Fatalf("strength check fields: %s", r.Raw)
		}
		fb := d["zxcvbn_feedback"].(map[string]any)
		if d["valid_password"] != false || d["score"] != 0.0 || d["breached_password"] != true || d["strength_policy"] != "zxcvbn" ||
			fb["warning"] == "" || len(fb["suggestions"].([]any)) == 0 {
			t.Fatalf("weak password verdict: %s", r.Raw)
		}
		if len(d["luds_feedback"].(map[string]any)) != 6 {
			t.Fatalf("luds_feedback fields: %v", d["luds_feedback"])
		}
		r = e.Backend(http.MethodPost, "/v1/b2b/passwords/strength_check", map[string]any{"password": apptest.StrongPassword})
		if r.Status != 200 || r.Body["valid_password"] != true || r.Body["score"].(float64) < 3 || r.Body["breached_password"] != false {
			t.Fatalf("strong password on the backend face: %s", r.Raw)
		}
		// The email makes a password built from it weak.
		r = e.SDK(http.MethodPost, "/b2b/passwords/strength_check", map[string]any{"password": "bartholomew.quillfeather",
			"email_address": "bartholomew.quillfeather@zyxcorp.test"}, "")
		if r.Data()["valid_password"] != false {
			t.Fatalf("password made of the email accepted: %s", r.Raw)
		}
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/strength_check", map[string]any{}, ""), 400, "invalid_request")

		// LUDS, and the bootstrap that tells the widget about it.
		if b := e.Do(http.MethodGet, "/sdk/v1/projects/bootstrap/"+e.Project.PublicToken, nil, nil, "", ""); b.Data()["password_config"] != nil {
			t.Fatalf("zxcvbn project has a password_config: %s", b.Raw)
		}
		luds, ten, four := project.PolicyLUDS, 10, 4
		switchProject(e, project.Update{PasswordStrengthPolicy: &luds, LUDSMinPasswordLength: &ten, LUDSMinPasswordComplexity: &four})
		b := e.Do(http.MethodGet, "/sdk/v1/projects/bootstrap/"+e.Project.PublicToken, nil, nil, "", "")
		if pc, _ := b.Data()["password_config"].(map[string]any); pc["luds_complexity"] != 4.0 || pc["luds_minimum_count"] != 10.0 {
			t.Fatalf("bootstrap password_config: %s", b.Raw)
		}
		r = e.SDK(http.MethodPost, "/b2b/passwords/strength_check", map[string]any{"password": "Abcdef1"}, "")
		lf := r.Data()["luds_feedback"].(map[string]any)
		if r.Data()["strength_policy"] != "luds" || r.Data()["valid_password"] != false || lf["missing_characters"] != 3.0 ||
			lf["missing_complexity"] != 1.0 || lf["has_symbol"] != false || lf["has_digit"] != true {
			t.Fatalf("LUDS verdict: %s", r.Raw)
		}
		// LUDS-complete but breached (offline list): never valid.
		r = e.SDK(http.MethodPost, "/b2b/passwords/strength_check", map[string]any{"password": "Password123!"}, "")
		if r.Data()["valid_password"] != false || r.Data()["breached_password"] != true {
			t.Fatalf("breached LUDS password: %s", r.Raw)
		}
		if r := e.SDK(http.MethodPost, "/b2b/passwords/strength_check", map[string]any{"password": "Abcdefgh1!"}, ""); r.Data()["valid_password"] != true {
			t.Fatalf("valid LUDS password refused: %s", r.Raw)
		}

		// The SDK face needs the passwords product.
		none := []string{"emailMagicLinks"}
		switchProject(e, project.Update{Products: &none})
		apptest.Want(t, e.SDK(http.MethodPost, "/b2b/passwords/strength_check", map[string]any{"password": "x"}, ""), 401, "endpoint_not_authorized_for_sdk")
	})
}

// rangeAPI is a local server speaking the Pwned Passwords range protocol.
func rangeAPI(t *testing.T, breached ...string) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		prefix := r.URL.Path[len("/range/"):]
		for _, pw := range breached {
			if d := sha1Upper(pw); d[:5] == prefix {
				_, _ = w.Write([]byte(d[5:] + ":42\r\n"))
			}
		}
		_, _ = w.Write([]byte("0000000000000000000000000000000000A:0\r\n"))
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestPasswordBreachAPI(t *testing.T) {
	const leaked = "Tangerine-Walrus-Ledger-61" // strong, but "leaked" by the fake API only
	apptest.Schema.Each(t, func(t *testing.T, db *store.DB) {
		api := rangeAPI(t, leaked)
		e := apptest.New(t, db, func(c *config.Config) { c.BreachAPIURL = api.URL })
		r := e.SDK(http.MethodPost, "/b2b/passwords/strength_check", map[string]any{"password": leaked}, "")
		if r.Data()["breached_password"] != true || r.Data()["valid_password"] != false || r.Data()["score"].(float64) < 3 {
			t.Fatalf("API-breached password: %s", r.Raw)
		}
		if r := e.SDK(http.MethodPost, "/b2b/passwords/strength_check", map[string]any{"password": apptest.StrongPassword}, ""); r.Data()["valid_password"] != true {
			t.Fatalf("clean password: %s", r.Raw)
		}
		// A password that became breached after it was set forces a reset
		// at the next correct login, and from then on.
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", leaked)
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", leaked), 400, "reset_password")
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", "wrong-"+leaked), 401, "unauthorized_credentials")

		// With the API gone, the shipped list still answers.
		api.Close()
		if r := e.SDK(http.MethodPost, "/b2b/passwords/strength_check", map[string]any{"password": "Summer2024!"}, ""); r.Data()["breached_password"] != true {
			t.Fatalf("offline list: %s", r.Raw)
		}
	})
}

func TestPasswordAuthenticate(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		org := e.CreateOrg("acme", "ALL_ALLOWED", nil)
		other := e.CreateOrg("other", "ALL_ALLOWED", nil)
		e.CreateMember(org, "ada@acme.test")
		e.CreateMember(org, "nopass@acme.test")
		e.CreateMember(other, "ada@acme.test")
		e.SetPassword(org, "ada@acme.test", apptest.StrongPassword)

		r := e.PasswordLogin(org, "Ada@Acme.test", apptest.StrongPassword)
		d := r.Data()
		if r.Status != 200 || d["member_authenticated"] != true || d["session_token"] == "" {
			t.Fatalf("login: %s", r.Raw)
		}
		f := d["member_session"].(map[string]any)["authentication_factors"].([]any)[0].(map[string]any)
		if f["type"] != "password" || f["delivery_method"] != "knowledge" {
			t.Fatalf("factor = %v", f)
		}
		if m := d["member"].(map[string]any); m["member_password_id"] == "" || m["email_address_verified"] != true {
			t.Fatalf("member = %v", m)
		}
		// The password belongs to the address: the same person logs in to
		// their other organization with it.
		if r := e.PasswordLogin(other, "ada@acme.test", apptest.StrongPassword); r.Status != 200 {
			t.Fatalf("other organization: %s", r.Raw)
		}

		// Wrong password, unknown email, member without a password and a
		// stranger with a real password of another organization all look
		// the same.
		outsider := e.CreateOrg("outsider", "ALL_ALLOWED", nil)
		var bodies []map[string]any
		for _, c := range []struct{ org, email, pw string }{{org, "ada@acme.test", "Wrong-" + apptest.StrongPassword},
			{org, "nobody@acme.test", apptest.StrongPassword}, {org, "nopass@acme.test", apptest.StrongPassword},
			{outsider, "ada@acme.test", apptest.StrongPassword}} {
			r := e.PasswordLogin(c.org, c.email, c.pw)
			apptest.Want(t, r, 401, "unauthorized_credentials")
			delete(r.Body, "request_id")
			bodies = append(bodies, r.Body)
		}
		for _, b := range bodies[1:] {
			if !maps.EqualFunc(b, bodies[0], func(a, b any) bool { return a == b }) {
				t.Fatalf("failures differ: %v vs %v", b, bodies[0])
			}
		}
		apptest.Want(t, e.PasswordLogin("organization-test-nope", "ada@acme.test", apptest.StrongPassword), 404, "organization_not_found")
		apptest.Want(t, e.PasswordLogin(org, "not-an-email", apptest.StrongPassword), 400, "invalid_email")
		apptest.Want(t, e.PasswordLogin(org, "ada@acme.test", ""), 400, "invalid_request")

		// Backend face, same rules.
		r = e.Backend(http.MethodPost, "/v1/b2b/passwords/authenticate", map[string]any{"organization_id": org,
			"email_address": "ada@acme.test", "password": apptest.StrongPassword})
		if r.Status != 200 || r.Body["member_session"] == nil {
			t.Fatalf("backend login: %s", r.Raw)
		}

		// Isolation: another project knows neither the organization nor the
		// password.
		p2 := e.NewProject("Other")
		r = e.Do(http.MethodPost, "/sdk/v1/b2b/passwords/authenticate", map[string]any{"organization_id": org,
			"email_address": "ada@acme.test", "password": apptest.StrongPassword}, http.Header{"Origin": {apptest.Origin}}, p2.PublicToken, p2.PublicToken)
		apptest.Want(t, r, 404, "organization_not_found")
	})
}

// TestPasswordIDOnMembers: member_password_id is the address's password,
// so a membership created after the password was set shows it too, and
// the member search filter and the widget's member lookup agree.
func TestPasswordIDOnMembers(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		alpha := e.CreateOrg("alpha", "NOT_ALLOWED", nil)
		beta := e.CreateOrg("beta", "NOT_ALLOWED", nil)
		e.CreateMember(alpha, "ada@corp.test")
		e.CreateMember(alpha, "bob@corp.test")
		e.SetPassword(alpha, "ada@corp.test", apptest.StrongPassword)
		e.CreateMember(beta, "ada@corp.test") // after the password

		r := e.Backend(http.MethodGet, "/v1/b2b/organizations/"+beta+"/member?email_address=ada@corp.test", nil)
		id, _ := r.Body["member"].(map[string]any)["member_password_id"].(string)
		if r.Status != 200 || !strings.HasPrefix(id, "member-password-test-") {
			t.Fatalf("member in the later organization: %s", r.Raw)
		}
		q := apptest.Query("AND", apptest.Filter("member_password_exists", true))
		q["organization_ids"] = []string{alpha, beta}
		got, _ := e.EmailsOf(q)
		if !slices.Equal(got, []string{"ada@corp.test", "ada@corp.test"}) {
			t.Fatalf("member_password_exists: %v", got)
		}
		r = e.SDK(http.MethodPost, "/b2b/organizations/members/search", map[string]any{"email_address": "ada@corp.test", "organization_id": beta}, "")
		if m, _ := r.Data()["member"].(map[string]any); r.Status != 200 || m["member_password_id"] != id {
			t.Fatalf("widget member lookup: %s", r.Raw)
		}
	})
}
