package flowtoken

import "net/url"

// Exact reports whether requested is one of the registered redirect URLs,
// compared byte for byte: no normalisation, no prefix or wildcard matching,
// since every such rule has been an open redirect somewhere.
func Exact(registered []string, requested string) bool {
	if requested == "" {
		return false
	}
	for _, r := range registered {
		if r == requested {
			return true
		}
	}
	return false
}

// WithQuery returns target (a registered URL) with params added to its own
// query, keeping the parameters it already has.
func WithQuery(target string, params url.Values) (string, error) {
	u, err := url.Parse(target)
	if err != nil {
		return "", err
	}
	q := u.Query()
	for k, vs := range params {
		q.Del(k)
		for _, v := range vs {
			q.Add(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return u.String(), nil
}

// TokenLink is target (a registered URL) carrying a one-time token the
// customer's page redeems: stytch_token_type and token, plus any extra
// parameters (stytch_redirect_type for reset links). Every emailed link
// and every redirect back to the page with a token is built here.
func TokenLink(target, tokenType, token string, extra url.Values) (string, error) {
	params := url.Values{"stytch_token_type": {tokenType}, "token": {token}}
	for k, vs := range extra {
		params[k] = vs
	}
	return WithQuery(target, params)
}
