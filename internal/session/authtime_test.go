package session

import (
	"testing"
	"time"
)

// AuthenticatedAt is the latest factor that is an authentication by the
// member: a later impersonation, access-token exchange or migration does
// not make the session look freshly authenticated, and a session made of
// those alone has no time at all (not its start).
func TestAuthenticatedAt(t *testing.T) {
	t.Parallel()
	login := time.Date(2026, 3, 1, 9, 0, 0, 0, time.UTC)
	later := login.Add(20 * 24 * time.Hour)
	otp := Factor{Type: EmailOTPType, DeliveryMethod: "email", LastAuthenticatedAt: login}
	sms := Factor{Type: "otp", DeliveryMethod: "sms", LastAuthenticatedAt: login.Add(time.Hour)}
	exchanged := Factor{Type: "oauth", DeliveryMethod: "oauth_access_token_exchange", LastAuthenticatedAt: later,
		OAuthAccessTokenExchangeFactor: &OAuthAccessTokenExchangeFactor{ClientID: "connected-app-test-1"}}
	migrated := Factor{Type: MigratedType, DeliveryMethod: MigratedDeliveryMethod, LastAuthenticatedAt: later}
	impersonated := Factor{Type: ImpersonatedType, DeliveryMethod: ImpersonationDelivery, LastAuthenticatedAt: later,
		ImpersonatedFactor: &ImpersonatedFactor{ImpersonatorID: "op"}}
	cases := []struct {
		name    string
		factors []Factor
		want    time.Time // zero: none
	}{
		{"one login", []Factor{otp}, login},
		{"the latest factor", []Factor{otp, sms}, sms.LastAuthenticatedAt},
		{"a later exchange does not count", []Factor{otp, exchanged}, login},
		{"a later migration does not count", []Factor{migrated, sms}, sms.LastAuthenticatedAt},
		{"exchanged only", []Factor{exchanged}, time.Time{}},
		{"migrated only", []Factor{migrated}, time.Time{}},
		{"impersonated only", []Factor{impersonated}, time.Time{}},
		{"no factor", nil, time.Time{}},
	}
	for _, c := range cases {
		ms := &MemberSession{StartedAt: later, AuthenticationFactors: c.factors}
		got, ok := ms.AuthenticatedAt()
		if ok != !c.want.IsZero() || !got.Equal(c.want) {
			t.Errorf("%s: got %v %v, want %v", c.name, got, ok, c.want)
		}
		if n := len(ms.FactorTimes()); ok != (n > 0) {
			t.Errorf("%s: %d factor times, but AuthenticatedAt ok %v", c.name, n, ok)
		}
	}
}
