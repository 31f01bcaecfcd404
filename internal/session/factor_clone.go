package session

import "slices"

// clone returns f with its own copy of every object it points to. A new
// session's factors may come from a session read from the hot cache (the
// held session of a step-up, the session a sessions/exchange leaves), whose
// rows every concurrent check of that session shares through shallow
// copies; the start hooks (OnStart) write to the new session's factors
// (the OAuth module names the registration a discovery login made), and
// must not write into a cached row.
func (f Factor) clone() Factor {
	f.EmailFactor = clonePtr(f.EmailFactor)
	f.PhoneNumberFactor = clonePtr(f.PhoneNumberFactor)
	for _, of := range []**OAuthFactor{&f.GoogleOAuthFactor, &f.MicrosoftOAuthFactor, &f.HubspotOAuthFactor,
		&f.SlackOAuthFactor, &f.GithubOAuthFactor} {
		if *of != nil {
			c := **of
			c.ProviderTenantIDs = slices.Clone(c.ProviderTenantIDs)
			*of = &c
		}
	}
	f.SAMLSSOFactor = clonePtr(f.SAMLSSOFactor)
	f.OIDCSSOFactor = clonePtr(f.OIDCSSOFactor)
	f.TrustedAuthTokenFactor = clonePtr(f.TrustedAuthTokenFactor)
	f.OAuthAccessTokenExchangeFactor = clonePtr(f.OAuthAccessTokenExchangeFactor)
	f.ImpersonatedFactor = clonePtr(f.ImpersonatedFactor)
	return f
}

// cloneFactors is prior followed by last, each cloned (Factor.clone).
func cloneFactors(prior []Factor, last Factor) []Factor {
	out := make([]Factor, 0, len(prior)+1)
	for _, f := range prior {
		out = append(out, f.clone())
	}
	return append(out, last.clone())
}

func clonePtr[T any](p *T) *T {
	if p == nil {
		return nil
	}
	c := *p
	return &c
}
