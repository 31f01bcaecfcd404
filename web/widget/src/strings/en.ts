/**
 * The English strings table: every user-visible text of the widget. Screens never contain literals;
 * integrators override entries through the `strings` mount option. Texts quoted by the product spec
 * are verbatim; `{name}` marks a placeholder filled by `t()`.
 */
export const en = {
  // Main screen
  'main.title.organization': 'Continue to {organizationName}',
  'main.title.organizationUnknown': 'Continue to ...',
  'main.title.discovery': 'Sign up or log in',
  'main.organizationLogoAlt': '{organizationName} logo',
  'main.appLogoAlt': 'Application logo',
  'main.loadingOrganization': 'Loading organization',
  'main.noMethods': 'No sign-in method is available for this organization. Contact your admin for help.',
  'main.lastUsed': 'Last used',
  'divider.or': 'or',

  // OAuth and SSO buttons
  'oauth.continueWith': 'Continue with {provider}',
  'oauth.provider.google': 'Google',
  'oauth.provider.microsoft': 'Microsoft',
  'oauth.provider.hubspot': 'HubSpot',
  'oauth.provider.slack': 'Slack',
  'oauth.provider.github': 'GitHub',
  'sso.continueWith': 'Continue with {connectionName}',
  'sso.discovery': 'Continue with SSO',

  // Passwords
  'password.useInstead': 'Use a password instead',
  'password.signUpOrReset': 'Sign up or reset password',
  'password.continue': 'Continue',
  'password.label': 'Password',
  'password.newLabel': 'New password',
  'password.show': 'Show password',
  'password.hide': 'Hide password',
  'password.required': 'Enter your password.',
  'password.email.title': 'Continue with a password',
  'password.email.body': 'Enter your email address to log in or sign up with a password.',
  'password.authenticate.title': 'Log in with your password',
  'password.forgot.title': 'Sign up or reset your password',
  'password.forgot.body': 'Enter your email address and we’ll send you a link to create a new password.',
  'password.setNew.title': 'Check your email',
  'password.setNew.body': 'A link to create a new password was sent to {email}.',
  'password.verify.title': 'Verify your email',
  'password.verify.body':
    'A login link was sent to {email}. Open it to verify your email address, then create your password.',
  'password.reset.title': 'Create a new password',
  'password.reset.body': 'Choose a password you do not use anywhere else.',
  'password.strength.label': 'Password strength: {strength}',
  'password.strength.1': 'Weak',
  'password.strength.2': 'Fair',
  'password.strength.3': 'Good',
  'password.strength.4': 'Strong',
  'password.strength.checking': 'Checking your password…',
  'password.strength.failed': 'Your password could not be checked. Try again.',
  'password.luds.length': 'Must be at least {count} characters long',
  'password.luds.complexity': 'Must contain {count} of the following: uppercase letter, lowercase letter, number, symbol',
  'password.luds.breached':
    'This password appears in a list of breached passwords. Choose a different one.',
  'password.rule.met': 'Requirement met:',
  'password.rule.unmet': 'Requirement not met:',
  // Marks drawn before each rule so met and unmet differ by more than colour (hidden from screen
  // readers, which read the two texts above).
  // (each with the space that parts it from its rule)
  'password.mark.met': '✓ ',
  'password.mark.unmet': '○ ',

  // Discovery (organization picker)
  'discovery.title': 'Select an organization to continue',
  'discovery.listLabel': 'Your organizations',
  'discovery.join': 'Join',
  'discovery.acceptInvite': 'Accept Invite',
  'discovery.create': 'Create an organization',
  'discovery.createTitle': 'Create an organization to get started',
  'discovery.createBody': '{email} does not belong to any organizations yet.',
  'discovery.noOrganizationsTitle': '{email} does not belong to any organizations.',
  'discovery.noOrganizationsBody':
    'Make sure your email address is correct. Otherwise, you might need to be invited by your admin.',
  'discovery.tryDifferentEmail': 'Try a different email address',

  // Email form
  'email.label': 'Email',
  'email.placeholder': 'example@email.com',
  'email.continue': 'Continue with email',
  'email.invalid': 'Invalid email address',
  'email.sendLink': 'Email me a link',
  'email.sendCode': 'Email me a code',
  'email.jitNotAllowed':
    '{email} does not have access to {organizationName}. If you think this is a mistake, contact your admin.',

  // Email method selection
  'methodSelection.title': 'Select how you’d like to continue.',
  'methodSelection.sendingTo': 'We’ll send a link or a code to {email}.',

  // Email confirmation (magic link sent)
  'emailConfirmation.title': 'Check your email',
  'emailConfirmation.body': 'An email was sent to {email}. Click the link in it to log in.',
  'emailConfirmation.resendPrompt': 'Didn’t get it?',
  'emailConfirmation.resend': 'Resend email',
  'emailConfirmation.resending': 'Sending…',
  'emailConfirmation.resent': 'Email sent',
  'emailConfirmation.mailLinks': 'Open your mailbox',
  'emailConfirmation.openGmail': 'Open Gmail',
  'emailConfirmation.openYahoo': 'Open Yahoo Mail',
  'emailConfirmation.openOutlook': 'Open Outlook',

  // Email OTP entry
  'otp.title': 'Enter passcode',
  'otp.body': 'A 6-digit passcode was sent to you at {email}.',
  'otp.codeLabel': 'One-time passcode',
  'otp.expiresIn': 'Your code expires in {time}.',
  'otp.expired': 'Your code has expired. Request a new one.',
  'otp.resend': 'Resend code',
  'otp.resending': 'Sending…',
  'otp.resent': 'Code sent',
  'otp.verifying': 'Verifying passcode',

  // Logged in
  'loggedIn.title': 'Success!',
  'loggedIn.body': 'You have successfully logged in.',

  // Token in the page address
  'loggingIn.title': 'Logging in...',

  // Error screen
  'error.title': 'Looks like there was an error!',
  'error.iconLabel': 'Error',
  'error.back': 'Go back',
  'error.screen.Default': 'Something went wrong. Try again later or contact your admin for help.',
  'error.screen.EmailMagicLink':
    'Your login link may have expired, been revoked, or been used more than once. Request a new login link to try again.',
  'error.screen.Organization':
    'The organization you are looking for could not be found. If you think this is a mistake, contact your admin.',
  'error.screen.CannotJoinOrgDueToAuthPolicy':
    'Your organization’s authentication policy does not allow you to log in with the available methods. Contact your admin for help.',
  'error.screen.CannotJoinOrgDueToAuthPolicyNamed':
    'The authentication policy of {organizationName} does not allow you to log in with the available methods. Contact your admin for help.',
  'error.screen.AdBlockerDetected':
    'An ad blocker is preventing you from logging in. Disable it for this site, refresh the page, and try again.',
  'error.screen.OrganizationDiscoveryClaimedDomain':
    'Your email domain is claimed by an organization, so you cannot join or create other organizations. Contact your admin for help.',

  // Multi-factor authentication
  'mfa.selection.title': 'Set up multi-factor authentication',
  'mfa.selection.body': 'Your organization requires an additional form of verification to make your account more secure.',
  'mfa.selection.listLabel': 'Verification methods',
  'mfa.method.sms_otp': 'Text me a code',
  'mfa.method.totp': 'Use an authenticator app',
  'mfa.smsEnroll.title': 'Enter your phone number to set up multi-factor authentication',
  'mfa.smsEnroll.body': 'We will text a code to this number when you log in.',
  'mfa.smsEnroll.countryLabel': 'Country',
  'mfa.smsEnroll.countryOption': '{country} (+{callingCode})',
  'mfa.smsEnroll.countryNamesLocale': 'en',
  'mfa.smsEnroll.phoneLabel': 'Phone number',
  'mfa.smsEnroll.phoneRequired': 'Enter your phone number.',
  'mfa.smsEnroll.submit': 'Send code',
  'mfa.smsEntry.body': 'A 6-digit passcode was sent to you at {phoneNumber}.',
  'mfa.smsEntry.sending': 'Sending passcode',
  'mfa.switchToSms': 'Text me a code instead',
  'mfa.switchToTotp': 'Use an authenticator app instead',
  'mfa.totpQr.title': 'Scan the QR code to link your authenticator app',
  'mfa.totpQr.body': 'In your authenticator app, add an account and scan this QR code.',
  'mfa.totpQr.imageAlt': 'QR code for your authenticator app',
  'mfa.totpQr.loading': 'Preparing your authenticator app setup',
  'mfa.totpQr.retry': 'Try again',
  'mfa.totpQr.showCode': 'Can’t scan the QR code? Show the setup key',
  'mfa.totpManual.title': 'Enter the setup key in your authenticator app',
  'mfa.totpManual.body': 'In your authenticator app, add an account and enter this key.',
  'mfa.totpManual.secretLabel': 'Setup key',
  'mfa.totpManual.copy': 'Copy key',
  'mfa.totpManual.copied': 'Code copied to clipboard',
  'mfa.totpManual.copyFailed': "Couldn't copy code to clipboard",
  'mfa.totpManual.showQr': 'Show the QR code instead',
  'mfa.continue': 'Continue',
  'mfa.totpEntry.title': 'Enter verification code',
  'mfa.totpEntry.body': 'Enter the 6-digit code from your authenticator app.',
  'mfa.totpEntry.useRecoveryCode': 'Can’t access your authenticator app? Use a backup code',
  'mfa.recoveryEntry.title': 'Enter backup code',
  'mfa.recoveryEntry.body': 'Enter one of the backup codes you saved when you set up your authenticator app.',
  'mfa.recoveryEntry.label': 'Backup code',
  'mfa.recoveryEntry.required': 'Enter a backup code.',
  'mfa.recoverySave.title': 'Save your backup codes!',
  'mfa.recoverySave.body': 'Each code logs you in once if you lose your authenticator app. They will not be shown again.',
  'mfa.recoverySave.listLabel': 'Backup codes',
  'mfa.recoverySave.copy': 'Copy all',
  'mfa.recoverySave.copied': 'Codes copied to clipboard',
  'mfa.recoverySave.copyFailed': "Couldn't copy codes to clipboard",
  'mfa.recoverySave.download': 'Download .txt',
  'mfa.recoverySave.done': 'Done',

  // Shared controls
  'common.back': 'Back',
  /** Announced while a screen that loads on demand is on its way. */
  'common.loading': 'Loading',
  'common.watermark': 'Powered by Latchkey',

  // Identity provider
  'idp.loading': 'Loading',

  // Client-side request failures
  'error.client.unreachable': 'Unable to contact our servers.',
  'error.client.invalidJson': 'Invalid JSON response from our servers.',
  'error.client.invalidResponse': 'Invalid response from our servers.',

  // Server error catalogue (spec section 8), keyed by error_type.
  'error.api.invalid_email': 'Email format is invalid.',
  'error.api.invalid_phone_number': 'Phone number format is invalid. Ensure the phone number is in the E.164 format.',
  'error.api.unsubscribed_phone_number':
    "Phone number is unsubscribed; resubscribe by texting 'START' before messages can be sent.",
  'error.api.inactive_email':
    'The email address is marked as inactive. Please try another email address, or contact your admin if you think this is a mistake.',
  'error.api.unauthorized_credentials': 'Unauthorized credentials.',
  'error.api.user_unauthenticated': 'Must have an active session to call this method. Have you logged in yet?',
  'error.api.email_not_found': 'Email not found.',
  'error.api.unable_to_auth_magic_link':
    'The magic link could not be authenticated because it was either already used or expired. Please try again.',
  'error.api.no_user_password': 'Password not found for this user. Please try again.',
  'error.api.breached_password': 'Password appears in the list of breached passwords and must be reset.',
  'error.api.reset_password': 'Password must be reset.',
  'error.api.oauth_token_not_found': 'OAuth Token could not be found.',
  'error.api.invalid_code': 'Code format is invalid, please try again.',
  'error.api.member_password_not_found': 'Member password not found.',
  'error.api.oauth_flow_callback_error': 'An error was encountered in the callback of the OAuth flow. Please try again.',
  'error.api.unauthorized_action': 'Unauthorized action.',
  'error.api.user_lock_limit_reached': 'Too many failed authentication attempts. Please try again later.',
  'error.api.invalid_session_token': 'Invalid session token.',
  'error.api.session_not_found': 'Session not found.',
  'error.api.invalid_phone_number_country_code': "The phone number's country code is invalid, unsupported, or disabled.",
  'error.api.otp_code_not_found': 'Invalid passcode, please try again.',
  'error.api.duplicate_member_phone_number':
    'A member with the specified phone number already exists for this organization.',
  'error.api.unable_to_authenticate_recovery_code': 'Invalid backup code, please try again.',
} as const;

export type StringKey = keyof typeof en;
/** A full strings table; values may differ from English but keys and placeholders stay. */
export type Strings = Record<StringKey, string>;
/** What integrators pass as the `strings` option. */
export type StringsOverride = Partial<Strings>;
