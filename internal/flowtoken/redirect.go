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
