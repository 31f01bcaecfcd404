package notify_test

import (
	"flag"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/notify"
)

var updateGolden = flag.Bool("update-golden", false, "rewrite testdata/golden from the current English output")

// goldenLink and the names below hold the characters escaping treats
// specially (& ' " < > +), so a change in how a sentence reaches the
// HTML body (literal template text versus an escaped value) shows.
const goldenLink = "https://app.example.com/authenticate?token=abc_DEF-123&stytch_token_type=magic_links"

func goldenLinkData() notify.LinkData {
	return notify.LinkData{ProjectID: "project-test-1", ProjectName: "Acme & Co's +App", OrganizationName: `<b>"Org" 'O' +1</b>`,
		URL: goldenLink, ExpiresIn: 60 * time.Minute}
}

func goldenCodeData() notify.CodeData {
	return notify.CodeData{ProjectID: "project-test-1", ProjectName: "Acme & Co's +App", OrganizationName: `<b>"Org" 'O' +1</b>`,
		Code: "042917", ExpiresIn: 10 * time.Minute}
}

// goldenEmails are the English emails of every kind, built without a
// locale: what every email said before emails had languages.
func goldenEmails() map[string]func() (notify.Email, error) {
	to := "ada@example.com"
	notice := notify.NoticeData{ProjectID: "project-test-1", ProjectName: "Acme & Co's +App"}
	return map[string]func() (notify.Email, error){
		"magic_link_login":  func() (notify.Email, error) { return notify.MagicLinkLoginEmail(to, goldenLinkData()) },
		"magic_link_signup": func() (notify.Email, error) { return notify.MagicLinkSignupEmail(to, goldenLinkData()) },
		"magic_link_invite": func() (notify.Email, error) {
			return notify.MagicLinkInviteEmail(to, notify.InviteData{LinkData: goldenLinkData(), InviterName: "Bo <B>", InviterEmail: "bo@example.com"})
		},
		"magic_link_invite_anonymous": func() (notify.Email, error) {
			return notify.MagicLinkInviteEmail(to, notify.InviteData{LinkData: goldenLinkData()})
		},
		"email_otp":         func() (notify.Email, error) { return notify.EmailOTPEmail(to, goldenCodeData()) },
		"email_update_link": func() (notify.Email, error) { return notify.EmailUpdateLinkEmail(to, goldenLinkData()) },
		"email_update_code": func() (notify.Email, error) { return notify.EmailUpdateCodeEmail(to, goldenCodeData()) },
		"password_reset":    func() (notify.Email, error) { return notify.PasswordResetEmail(to, goldenLinkData()) },
		"password_reset_login": func() (notify.Email, error) {
			d := goldenLinkData()
			d.LoginURL = "https://app.example.com/login?x=1&y=2"
			return notify.PasswordResetEmail(to, d)
		},
		"password_set":        func() (notify.Email, error) { return notify.PasswordSetEmail(to, goldenLinkData()) },
		"password_no_account": func() (notify.Email, error) { return notify.PasswordNoAccountEmail(to, notice) },
		"login_no_access":     func() (notify.Email, error) { return notify.LoginNoAccessEmail(to, notice) },
	}
}

func goldenText(e notify.Email) string {
	return "To: " + e.To + "\nSubject: " + e.Subject + "\nProject: " + e.Project + "\n--- text\n" + e.Text + "\n--- html\n" + e.HTML
}

// English output is byte for byte what it was before the strings moved
// into per-language tables; testdata/golden was written by the code that
// had English in the template files.
func TestEnglishGolden(t *testing.T) {
	t.Parallel()
	for name, build := range goldenEmails() {
		e, err := build()
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		checkGolden(t, name, goldenText(e))
	}
	sms, err := notify.SMSCodeText("+15555550100", goldenCodeData())
	if err != nil {
		t.Fatalf("sms: %v", err)
	}
	checkGolden(t, "sms_code", "To: "+sms.To+"\n"+sms.Body)
}

func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "golden", name+".golden")
	if *updateGolden {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if got != string(want) {
		t.Errorf("%s: English output changed:\n--- got\n%s\n--- want\n%s", name, got, want)
	}
}
