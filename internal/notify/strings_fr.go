package notify

// french is english's keys in French, addressing the reader as vous. A
// colon or question mark follows a no-break space (U+00A0), as French
// typography writes them, so a line never starts with one.
var french = catalogue{
	"layout.footer": "Si vous n'avez pas demandé cet e-mail, vous pouvez l'ignorer sans crainte. Envoyé par {{.Project}}.",
	"sent_by":       "Envoyé par {{.Project}}.",
	"link.expires":  "Ce lien expire dans {{.Expiry}}.",
	"link.fallback": "Si le bouton ne fonctionne pas, collez ce lien dans votre navigateur\u00a0:",
	"code.expires":  "Ce code expire dans {{.Expiry}}. Ne le communiquez jamais à personne.",

	"login.subject":   "Votre lien de connexion à {{.Org}}",
	"login.heading":   "Connectez-vous à {{.Org}}",
	"login.lead_html": "Utilisez le bouton ci-dessous pour vous connecter. Le lien ne fonctionne qu'une fois.",
	"login.button":    "Se connecter",
	"login.lead_text": "Utilisez ce lien pour vous connecter. Il ne fonctionne qu'une fois\u00a0:",
	"login.why":       "Vous avez demandé à vous connecter à {{.Org}}. Si ce n'est pas vous, vous pouvez ignorer cet e-mail sans crainte.",

	"signup.subject":   "Finalisez votre inscription à {{.Org}}",
	"signup.heading":   "Finalisez votre inscription à {{.Org}}",
	"signup.lead_html": "Utilisez le bouton ci-dessous pour confirmer votre adresse e-mail et finaliser la création de votre compte. Le lien ne fonctionne qu'une fois.",
	"signup.button":    "Finaliser l'inscription",
	"signup.lead_text": "Utilisez ce lien pour confirmer votre adresse e-mail et finaliser la création de votre compte. Il ne fonctionne qu'une fois\u00a0:",
	"signup.why":       "Vous avez demandé à rejoindre {{.Org}}. Si ce n'est pas vous, vous pouvez ignorer cet e-mail sans crainte.",

	"invite.subject":        "Invitation à rejoindre {{.Org}}",
	"invite.heading":        "Invitation à rejoindre {{.Org}}",
	"invite.by_html":        "{{.Inviter}} vous invite à rejoindre {{.Org}}.",
	"invite.lead_html":      "Utilisez le bouton ci-dessous pour accepter l'invitation et vous connecter. Le lien ne fonctionne qu'une fois.",
	"invite.button":         "Accepter l'invitation",
	"invite.lead_text":      "Utilisez ce lien pour accepter votre invitation et vous connecter. Il ne fonctionne qu'une fois\u00a0:",
	"invite.by_text":        "{{.Inviter}} vous invite à rejoindre {{.Org}}.",
	"invite.anonymous_text": "Vous avez reçu une invitation à rejoindre {{.Org}}.",
	"invite.why":            "Si vous ne souhaitez pas y donner suite, vous pouvez ignorer cet e-mail sans crainte.",

	"otp.subject":   "{{.Code}} est votre code de connexion à {{.Org}}",
	"otp.heading":   "Votre code de connexion à {{.Org}}",
	"otp.lead_html": "Saisissez ce code pour vous connecter\u00a0:",
	"otp.lead_text": "Votre code de connexion est\u00a0:",

	"email_update.heading":        "Confirmez votre nouvelle adresse e-mail sur {{.Org}}",
	"email_update_code.subject":   "{{.Code}} est votre code pour confirmer votre nouvelle adresse e-mail sur {{.Org}}",
	"email_update_code.lead_html": "Saisissez ce code pour confirmer cette adresse comme votre nouvelle adresse e-mail\u00a0:",
	"email_update_code.lead_text": "Votre code pour confirmer votre nouvelle adresse e-mail est\u00a0:",
	"email_update_code.why":       "Quelqu'un a demandé que cette adresse devienne l'e-mail d'un compte sur {{.Org}}. Si ce n'est pas vous, vous pouvez ignorer cet e-mail sans crainte\u00a0: rien ne change tant que le code n'est pas utilisé.",
	"email_update_link.subject":   "Confirmez votre nouvelle adresse e-mail pour {{.Org}}",
	"email_update_link.lead_html": "Quelqu'un a demandé que cette adresse devienne l'e-mail d'un compte sur {{.Org}}. Utilisez le bouton ci-dessous pour confirmer qu'elle est bien à vous\u00a0; elle deviendra l'e-mail du compte et le lien vous connectera. Le lien ne fonctionne qu'une fois.",
	"email_update_link.button":    "Confirmer l'adresse e-mail",
	"email_update_link.lead_text": "Utilisez ce lien pour confirmer votre nouvelle adresse e-mail. Il ne fonctionne qu'une fois\u00a0:",
	"email_update_link.why":       "Quelqu'un a demandé que cette adresse devienne l'e-mail d'un compte sur {{.Org}}. Si ce n'est pas vous, vous pouvez ignorer cet e-mail sans crainte\u00a0: rien ne change tant que le lien n'est pas utilisé.",

	"no_access.subject": "Demande de connexion sur {{.Project}}",
	"no_access.heading": "Demande de connexion sur {{.Project}}",
	"no_access.body":    "Quelqu'un a demandé à se connecter avec cette adresse e-mail à une organisation sur {{.Project}}, mais cette adresse ne peut pas se connecter à cette organisation\u00a0; aucun code ni lien de connexion n'a donc été envoyé.",
	"no_access.advice":  "Si c'était vous, demandez aux administrateurs de l'organisation de vous redonner l'accès. Sinon, vous pouvez ignorer cet e-mail sans crainte\u00a0: rien n'a changé.",

	"no_account.subject": "Demande de réinitialisation du mot de passe sur {{.Project}}",
	"no_account.heading": "Demande de réinitialisation du mot de passe sur {{.Project}}",
	"no_account.body":    "Quelqu'un a demandé à réinitialiser le mot de passe de cette adresse e-mail pour une organisation sur {{.Project}}, mais cette adresse ne peut pas se connecter à cette organisation.",
	"no_account.advice":  "Si c'était vous, demandez aux administrateurs de l'organisation de vous inviter. Sinon, vous pouvez ignorer cet e-mail sans crainte\u00a0: rien n'a changé.",

	"password_reset.subject":             "Réinitialisez votre mot de passe pour {{.Org}}",
	"password_reset.heading":             "Réinitialisez votre mot de passe pour {{.Org}}",
	"password_reset.lead_html":           "Utilisez le bouton ci-dessous pour choisir un nouveau mot de passe. Le lien ne fonctionne qu'une fois.",
	"password_reset.button":              "Réinitialiser le mot de passe",
	"password_reset.keeps":               "Votre mot de passe actuel reste valable jusqu'à ce que vous en choisissiez un nouveau.",
	"password_reset.login_question_html": "Vous voulez seulement vous connecter\u00a0?",
	"password_reset.login_link_html":     "Se connecter sans mot de passe",
	"password_reset.lead_text":           "Utilisez ce lien pour choisir un nouveau mot de passe. Il ne fonctionne qu'une fois\u00a0:",
	"password_reset.login_text":          "Vous vous souvenez de votre mot de passe, ou voulez seulement vous connecter\u00a0? Connectez-vous sans le changer\u00a0:",
	"password_reset.why":                 "Vous avez demandé à réinitialiser votre mot de passe pour {{.Org}}. Si ce n'est pas vous, vous pouvez ignorer cet e-mail sans crainte.",

	"password_set.subject":   "Vérifiez votre adresse e-mail pour définir un mot de passe sur {{.Org}}",
	"password_set.heading":   "Vérifiez votre adresse e-mail pour {{.Org}}",
	"password_set.lead_html": "Quelqu'un a demandé à réinitialiser le mot de passe de cette adresse, qui n'en a pas encore. Utilisez le bouton ci-dessous pour confirmer que l'adresse est bien à vous\u00a0; vous pourrez ensuite choisir un mot de passe. Le lien ne fonctionne qu'une fois.",
	"password_set.button":    "Vérifier l'e-mail et définir un mot de passe",
	"password_set.lead_text": "Utilisez ce lien pour vérifier votre adresse e-mail et choisir un mot de passe. Il ne fonctionne qu'une fois\u00a0:",
	"password_set.why":       "Quelqu'un a demandé à réinitialiser le mot de passe de cette adresse pour {{.Org}}, qui n'en a pas encore. Si ce n'est pas vous, vous pouvez ignorer cet e-mail sans crainte.",

	"sms.code": "{{.Code}} est votre code de vérification {{.Org}}. Il expire dans {{.Expiry}}. Ne le communiquez à personne.",

	// "minute" and "minutes" are spelled as in English.
	"unit.second.one": "seconde", "unit.second.other": "secondes",
	"unit.minute.one": "minute", "unit.minute.other": "minutes",
	"unit.hour.one": "heure", "unit.hour.other": "heures",
	"unit.day.one": "jour", "unit.day.other": "jours",
}
