package flowtoken

import (
	"net/url"
	"strings"
)

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

// WithQuery returns target (a registered URL) with params appended to its
// own query, which is kept byte for byte: the link lands on the URL that
// was registered, and the registered URL is a prefix of it (up to its
// fragment, which stays last). Parsing the query and encoding it again
// would drop the pairs Go's parser refuses (a ';', a bad '%' escape) that
// the customer's page may need, and re-sort the rest.
//
// A pair of target's whose name is one of params' is taken out first, so
// the page reads the new value: browsers' URLSearchParams.get returns the
// first of two, and a registered "token=" would otherwise shadow the link's
// token. The names are compared as URLSearchParams decodes them.
func WithQuery(target string, params url.Values) (string, error) {
	if _, err := url.Parse(target); err != nil {
		return "", err
	}
	if len(params) == 0 {
		return target, nil
	}
	rest, fragment, hasFragment := strings.Cut(target, "#")
	base, query, _ := strings.Cut(rest, "?")
	var pairs []string
	if query != "" {
		for _, pair := range strings.Split(query, "&") {
			if _, replaced := params[queryName(pair)]; !replaced {
				pairs = append(pairs, pair)
			}
		}
	}
	pairs = append(pairs, params.Encode())
	out := base + "?" + strings.Join(pairs, "&")
	if hasFragment {
		out += "#" + fragment
	}
	return out, nil
}

// queryName is the decoded name of one name=value pair of a query. A name
// with an escape that does not decode is returned as it is: browsers keep
// such a '%' literally, so it cannot equal a parameter name of ours.
func queryName(pair string) string {
	name, _, _ := strings.Cut(pair, "=")
	if decoded, err := url.QueryUnescape(name); err == nil {
		return decoded
	}
	return name
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
