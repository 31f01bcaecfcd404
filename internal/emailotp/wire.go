package emailotp

import "github.com/latchkey/latchkey/internal/httpapi"

// SDKWire implements httpapi.SDKWirer: the SDK declares ResponseCommon for
// login_or_signup, so a caller holding the public token learns nothing
// about whether the address belongs to a member. (The authenticate answer
// is session.WithMethodID, whose SDK form is the login answer with
// method_id; see internal/apptest/sdk_wire.json.)
func (r *SendResponse) SDKWire() any { return &httpapi.Common{} }
