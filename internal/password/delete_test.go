package password_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/apptest"
	"github.com/latchkey/latchkey/internal/stepup"
)

// The backend password deletion acting for a member session (the
// X-Stytch-Member-Session header) needs a recent factor, as the SDK's
// deletion and the backend's start_email_update do, with the same answer;
// a fresh session may delete, and the project secret alone needs none.
func TestBackendDeletePasswordForAStaleMemberSession(t *testing.T) {
	apptest.Each(t, func(t *testing.T, e *apptest.Env) {
		f := e.NewMeFixture()
		e.SetPassword(f.Acme, "ada@acme.test", apptest.StrongPassword)
		e.SetPassword(f.Acme, "bob@acme.test", apptest.StrongPassword)
		adaPW, bobPW := e.PasswordID(f.Acme, f.AdminID), e.PasswordID(f.Acme, f.PlainID)
		asMember := func(method, path string, body any, session string) apptest.Resp {
			return e.Do(method, path, body, http.Header{"X-Stytch-Member-Session": {session}}, e.Project.Project.ID, e.Project.Secret)
		}
		passwords := "/v1/b2b/organizations/" + f.Acme + "/members/passwords/"

		e.Clock.Advance(stepup.Window + time.Minute)
		apptest.Want(t, asMember(http.MethodPost, "/v1/b2b/organizations/"+f.Acme+"/members/"+f.PlainID+"/start_email_update",
			map[string]any{"email_address": "bob2@acme.test"}, f.Admin), 403, "session_too_old")
		apptest.Want(t, asMember(http.MethodDelete, passwords+bobPW, nil, f.Admin), 403, "session_too_old")
		apptest.Want(t, asMember(http.MethodDelete, passwords+bobPW, nil, f.Plain), 403, "session_too_old")
		if e.PasswordID(f.Acme, f.PlainID) != bobPW {
			t.Fatal("a refused deletion removed the password")
		}

		// A fresh login allows it.
		fresh := e.SessionFor(f.Acme, "ada@acme.test")
		if r := asMember(http.MethodDelete, passwords+bobPW, nil, fresh); r.Status != 200 || e.PasswordID(f.Acme, f.PlainID) != "" {
			t.Fatalf("deletion with a fresh session: %s", r.Raw)
		}

		// The project secret alone is no session to step up.
		if r := e.Backend(http.MethodDelete, passwords+adaPW, nil); r.Status != 200 {
			t.Fatalf("deletion with the project secret: %s", r.Raw)
		}
	})
}
