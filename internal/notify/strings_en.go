package notify

// english is every word the emails and SMS codes say, in English. The
// template files hold only structure; each key here is a template of its
// own, which may use the view's fields ({{.Org}}, {{.Project}},
// {{.Expiry}}, {{.Code}}, {{.Inviter}}) and nothing else. Every other
// language has the same keys (TestCataloguesComplete).
var english = catalogue{
	"layout.footer": "If you did not ask for this email, you can safely ignore it. Sent by {{.Project}}.",
	"sent_by":       "Sent by {{.Project}}.",
	"link.expires":  "This link expires in {{.Expiry}}.",
	"link.fallback": "If the button does not work, paste this link into your browser:",
	"code.expires":  "This code expires in {{.Expiry}}. Never share it with anyone.",

	"login.subject":   "Your login link for {{.Org}}",
	"login.heading":   "Log in to {{.Org}}",
	"login.lead_html": "Use the button below to log in. The link works once.",
	"login.button":    "Log in",
	"login.lead_text": "Use this link to log in. It works once:",
	"login.why":       "You asked to log in to {{.Org}}. If you did not, you can safely ignore this email.",

	"signup.subject":   "Finish joining {{.Org}}",
	"signup.heading":   "Finish joining {{.Org}}",
	"signup.lead_html": "Use the button below to confirm your email address and finish creating your account. The link works once.",
	"signup.button":    "Finish joining",
	"signup.lead_text": "Use this link to confirm your email address and finish creating your account. It works once:",
	"signup.why":       "You asked to join {{.Org}}. If you did not, you can safely ignore this email.",

	"invite.subject":        "You are invited to join {{.Org}}",
	"invite.heading":        "You are invited to join {{.Org}}",
	"invite.by_html":        "{{.Inviter}} invited you to {{.Org}}.",
	"invite.lead_html":      "Use the button below to accept the invitation and log in. The link works once.",
	"invite.button":         "Accept invitation",
	"invite.lead_text":      "Use this link to accept your invitation and log in. It works once:",
	"invite.by_text":        "{{.Inviter}} invited you to join {{.Org}}.",
	"invite.anonymous_text": "You are invited to join {{.Org}}.",
	"invite.why":            "If you do not want to join, you can safely ignore this email.",

	"otp.subject":   "{{.Code}} is your {{.Org}} login code",
	"otp.heading":   "Your {{.Org}} login code",
	"otp.lead_html": "Enter this code to log in:",
	"otp.lead_text": "Your login code is:",

	"email_update.heading":        "Confirm your new email for {{.Org}}",
	"email_update_code.subject":   "{{.Code}} is your code to confirm your new {{.Org}} email address",
	"email_update_code.lead_html": "Enter this code to confirm this address as your new email:",
	"email_update_code.lead_text": "Your code to confirm your new email address is:",
	"email_update_code.why":       "Someone asked to make this address the email of an account in {{.Org}}. If it was not you, you can safely ignore this email: nothing changes unless the code is used.",
	"email_update_link.subject":   "Confirm your new email address for {{.Org}}",
	"email_update_link.lead_html": "Someone asked to make this address the email of an account in {{.Org}}. Use the button below to confirm it is yours; it becomes the account's email and logs you in. The link works once.",
	"email_update_link.button":    "Confirm email address",
	"email_update_link.lead_text": "Use this link to confirm your new email address. It works once:",
	"email_update_link.why":       "Someone asked to make this address the email of an account in {{.Org}}. If it was not you, you can safely ignore this email: nothing changes unless the link is used.",

	"no_access.subject": "Sign-in request for {{.Project}}",
	"no_access.heading": "Sign-in request for {{.Project}}",
	"no_access.body":    "Someone asked to sign in with this email address to an organization at {{.Project}}, but this address cannot sign in to that organization, so no sign-in code or link was sent.",
	"no_access.advice":  "If it was you, ask the organization's administrators to give you access again. If it was not, you can safely ignore this email: nothing has changed.",

	"no_account.subject": "Password reset request for {{.Project}}",
	"no_account.heading": "Password reset request for {{.Project}}",
	"no_account.body":    "Someone asked to reset the password of this email address for an organization at {{.Project}}, but this address cannot sign in to that organization.",
	"no_account.advice":  "If it was you, ask the organization's administrators to invite you. If it was not, you can safely ignore this email: nothing has changed.",

	"password_reset.subject":             "Reset your password for {{.Org}}",
	"password_reset.heading":             "Reset your password for {{.Org}}",
	"password_reset.lead_html":           "Use the button below to choose a new password. The link works once.",
	"password_reset.button":              "Reset password",
	"password_reset.keeps":               "Your current password keeps working until you choose a new one.",
	"password_reset.login_question_html": "Only want to get in?",
	"password_reset.login_link_html":     "Log in without password",
	"password_reset.lead_text":           "Use this link to choose a new password. It works once:",
	"password_reset.login_text":          "Remember your password, or only want to get in? Log in without changing it:",
	"password_reset.why":                 "You asked to reset your password for {{.Org}}. If you did not, you can safely ignore this email.",

	"password_set.subject":   "Verify your email to set a password for {{.Org}}",
	"password_set.heading":   "Verify your email for {{.Org}}",
	"password_set.lead_html": "Someone asked to reset the password of this address, and it has no password yet. Use the button below to confirm the address is yours; you can then choose a password. The link works once.",
	"password_set.button":    "Verify email and set password",
	"password_set.lead_text": "Use this link to verify your email address and choose a password. It works once:",
	"password_set.why":       "Someone asked to reset the password of this address for {{.Org}}, and it has no password yet. If it was not you, you can safely ignore this email.",

	"sms.code": "{{.Code}} is your {{.Org}} verification code. It expires in {{.Expiry}}. Do not share it with anyone.",

	// Units of an expiry, written "<n> <unit>"; one is for n == 1.
	"unit.second.one": "second", "unit.second.other": "seconds",
	"unit.minute.one": "minute", "unit.minute.other": "minutes",
	"unit.hour.one": "hour", "unit.hour.other": "hours",
	"unit.day.one": "day", "unit.day.other": "days",
}
