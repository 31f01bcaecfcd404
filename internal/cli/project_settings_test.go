package cli

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"
)

type redirectLine struct {
	URL     string `json:"url"`
	Type    string `json:"type"`
	Default bool   `json:"default"`
}

func redirectLines(t *testing.T, db, id string) []redirectLine {
	t.Helper()
	code, out, errs := runCLI(t, db, "project", "redirect-urls", "--project", id)
	if code != 0 {
		t.Fatalf("redirect-urls: exit %d: %s", code, errs)
	}
	var list []redirectLine
	dec := json.NewDecoder(strings.NewReader(out))
	for dec.More() {
		var l redirectLine
		if err := dec.Decode(&l); err != nil {
			t.Fatal(err)
		}
		list = append(list, l)
	}
	return list
}

// defaults maps each type to its default URL.
func defaults(list []redirectLine) map[string]string {
	out := map[string]string{}
	for _, l := range list {
		if l.Default {
			out[l.Type] = l.URL
		}
	}
	return out
}

// Redirect URLs can be listed with their types and defaults, a URL can be
// made its types' default, and removed from some types or all; removing a
// default makes the type's oldest remaining URL the default.
func TestRedirectURLCommands(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "redir.db")
	code, out, errs := runCLI(t, db, "project", "create", "--name", "Shop", "--redirect-url", "https://shop.test/auth")
	if code != 0 {
		t.Fatalf("create: %s", errs)
	}
	var p map[string]string
	_ = json.Unmarshal([]byte(out), &p)
	id := p["project_id"]
	list := redirectLines(t, db, id)
	if len(list) != 5 || list[0] != (redirectLine{"https://shop.test/auth", "login", true}) {
		t.Fatalf("after create: %+v", list)
	}
	run := func(args ...string) {
		t.Helper()
		if code, _, errs := runCLI(t, db, args...); code != 0 {
			t.Fatalf("%v: exit %d: %s", args, code, errs)
		}
	}
	run("project", "add-redirect-url", "--project", id, "--url", "https://shop.test/join", "--type", "signup", "--type", "login")
	if d := defaults(redirectLines(t, db, id)); d["login"] != "https://shop.test/auth" || d["signup"] != "https://shop.test/auth" {
		t.Fatalf("a later URL became a default: %v", d)
	}
	run("project", "add-redirect-url", "--project", id, "--url", "https://shop.test/join", "--type", "signup", "--default")
	if d := defaults(redirectLines(t, db, id)); d["signup"] != "https://shop.test/join" || d["login"] != "https://shop.test/auth" {
		t.Fatalf("--default for signup: %v", d)
	}
	run("project", "remove-redirect-url", "--project", id, "--url", "https://shop.test/auth", "--type", "login")
	list = redirectLines(t, db, id)
	if d := defaults(list); d["login"] != "https://shop.test/join" || d["discovery"] != "https://shop.test/auth" || len(list) != 6 {
		t.Fatalf("after removing the login default: %+v", list)
	}
	run("project", "remove-redirect-url", "--project", id, "--url", "https://shop.test/auth")
	list = redirectLines(t, db, id)
	if len(list) != 2 || list[0].URL != "https://shop.test/join" || list[1].URL != "https://shop.test/join" {
		t.Fatalf("after removing the URL from every type: %+v", list)
	}
	for _, bad := range [][]string{
		{"project", "remove-redirect-url", "--project", id, "--url", "https://shop.test/auth"},
		{"project", "remove-redirect-url", "--project", id, "--url", "https://shop.test/join", "--type", "invite"},
		{"project", "remove-redirect-url", "--project", id, "--url", "https://shop.test/join", "--type", "nope"},
		{"project", "remove-redirect-url", "--project", id},
	} {
		if code, _, errs := runCLI(t, db, bad...); code == 0 || errs == "" {
			t.Errorf("%v: exit %d, stderr %q; want a failure with a message", bad, code, errs)
		}
	}
	if got := redirectLines(t, db, id); len(got) != 2 {
		t.Fatalf("a refused removal removed: %+v", got)
	}
}

// Origins can be listed and removed; an origin given with its scheme's
// default port is stored as a browser sends it, without the port.
func TestOriginCommands(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "origins.db")
	id, _ := createProject(t, db)
	for _, o := range []string{"https://admin.shop.test:443", "http://LOCALHOST:80/", "https://shop.test:8443"} {
		if code, _, errs := runCLI(t, db, "project", "add-origin", "--project", id, "--origin", o); code != 0 {
			t.Fatalf("add-origin %s: %s", o, errs)
		}
	}
	code, out, errs := runCLI(t, db, "project", "origins", "--project", id)
	want := `{"origin":"http://localhost"}` + "\n" + `{"origin":"https://admin.shop.test"}` + "\n" + `{"origin":"https://shop.test:8443"}` + "\n"
	if code != 0 || out != want {
		t.Fatalf("origins: exit %d %s\n%s\nwant\n%s", code, errs, out, want)
	}
	if code, _, errs := runCLI(t, db, "project", "remove-origin", "--project", id, "--origin", "https://admin.shop.test:443"); code != 0 {
		t.Fatalf("remove-origin: %s", errs)
	}
	if code, _, errs := runCLI(t, db, "project", "remove-origin", "--project", id, "--origin", "https://admin.shop.test"); code != 1 ||
		!strings.Contains(errs, "not") {
		t.Fatalf("removing an origin twice: exit %d %s", code, errs)
	}
	if _, out, _ := runCLI(t, db, "project", "origins", "--project", id); strings.Contains(out, "admin") {
		t.Fatalf("after remove-origin: %s", out)
	}
}

// A failing update changes nothing: the bad IdP URL used to be checked
// after the products and PKCE settings had been written.
func TestProjectUpdateIsAllOrNothing(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "upd.db")
	id, _ := createProject(t, db)
	code, _, errs := runCLI(t, db, "project", "update", "--project", id, "--products", "emailOtp,passwords", "--pkce-sso", "true",
		"--idp-authorization-url", "bad")
	if code != 1 || errs == "" {
		t.Fatalf("update with a bad URL: exit %d %s", code, errs)
	}
	_, p := openStore(t, db)
	got, err := p.ByID(context.Background(), id)
	if err != nil || len(got.Products) != 5 || got.PKCERequiredForSSO {
		t.Fatalf("a failed update wrote: %+v %v", got, err)
	}
}

// CLI output is JSON that can be pasted: & < > stay as they are.
func TestJSONOutputIsNotHTMLEscaped(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "esc.db")
	if code, _, errs := runCLI(t, db, "project", "create", "--name", "Fish & <Chips>"); code != 0 {
		t.Fatal(errs)
	}
	if _, out, _ := runCLI(t, db, "project", "list"); !strings.Contains(out, `"name":"Fish & <Chips>"`) {
		t.Fatalf("list: %s", out)
	}
}

// --sdk-max-session-duration sets the SDK face's longest session on
// create and update, within the API family's range; update shows it.
func TestSDKMaxSessionDurationFlag(t *testing.T) {
	t.Parallel()
	db := filepath.Join(t.TempDir(), "sdkmax.db")
	for _, bad := range []string{"0", "4", "527041"} {
		if code, _, errs := runCLI(t, db, "project", "create", "--name", "Bad", "--sdk-max-session-duration", bad); code != 2 ||
			!strings.Contains(errs, "--sdk-max-session-duration") {
			t.Errorf("create --sdk-max-session-duration %s: exit %d: %s", bad, code, errs)
		}
	}
	code, out, errs := runCLI(t, db, "project", "create", "--name", "Shop", "--sdk-max-session-duration", "90")
	if code != 0 {
		t.Fatalf("create: exit %d: %s", code, errs)
	}
	var p map[string]string
	_ = json.Unmarshal([]byte(out), &p)
	shown := func(args ...string) float64 {
		t.Helper()
		code, out, errs := runCLI(t, db, append([]string{"project", "update", "--project", p["project_id"]}, args...)...)
		if code != 0 {
			t.Fatalf("update %v: exit %d: %s", args, code, errs)
		}
		var settings map[string]any
		if err := json.Unmarshal([]byte(out), &settings); err != nil {
			t.Fatal(err)
		}
		v, _ := settings["sdk_max_session_duration_minutes"].(float64)
		return v
	}
	if got := shown(); got != 90 {
		t.Fatalf("after create with 90: %v", got)
	}
	if got := shown("--sdk-max-session-duration", "10080"); got != 10080 {
		t.Fatalf("after update to 10080: %v", got)
	}
	if code, _, errs := runCLI(t, db, "project", "update", "--project", p["project_id"], "--sdk-max-session-duration", "4"); code == 0 ||
		!strings.Contains(errs, "5 to 527040") {
		t.Fatalf("update to 4: exit %d: %s", code, errs)
	}
	if got := shown(); got != 10080 {
		t.Fatalf("a refused update changed it: %v", got)
	}
	code, out, _ = runCLI(t, db, "project", "create", "--name", "Default")
	_ = json.Unmarshal([]byte(out), &p)
	if got := shown(); code != 0 || got != 1440 {
		t.Fatalf("a project created without the flag: %v", got)
	}
}
