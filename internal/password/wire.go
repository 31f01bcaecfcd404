package password

// SDKWire implements httpapi.SDKWirer: B2BPasswordResetByEmailResponse is
// the login answer alone (member_email_id is the backend's).
func (r *EmailResetResponse) SDKWire() any { return r.AuthResponse.SDK() }
