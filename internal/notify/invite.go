package notify

import "fmt"

// InviteData fills the invitation email.
type InviteData struct {
	LinkData
	InviterName  string // the inviting member, when an SDK member invited; may be empty
	InviterEmail string
}

var magicLinkInviteTmpl = mustTemplate("magic_link_invite")

// MagicLinkInviteEmail builds the email inviting someone to an
// organization; its link accepts the invitation and logs them in.
func MagicLinkInviteEmail(to string, d InviteData) (Email, error) {
	v, err := linkView(d.LinkData)
	if err != nil {
		return Email{}, fmt.Errorf("notify: invite email: %w", err)
	}
	switch name, email := oneLine(d.InviterName), oneLine(d.InviterEmail); {
	case name != "" && email != "":
		v.Inviter = name + " (" + email + ")"
	case name != "":
		v.Inviter = name
	default:
		v.Inviter = email
	}
	return render(magicLinkInviteTmpl, "invite.subject", to, v)
}
