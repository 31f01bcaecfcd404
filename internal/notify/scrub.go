package notify

import (
	"net/url"
	"slices"
	"strings"
)

// redactedText stands where a message's secret was.
const redactedText = "[redacted]"

// minScrubLen is the shortest query value scrubbed from a server's reply:
// a shorter one ("en", "1") would cut ordinary words out of it.
const minScrubLen = 6

// messageSecrets is what of m a server's reply must not carry into an
// error (logged by the queue and stored as its last_error): its links,
// their query values and the path segments that hold a digit (where a
// link's token is), and its one-time codes. Longest first, so that a
// link goes whole before its token does.
func messageSecrets(m Email) []string {
	var out []string
	for _, l := range extractLinks(m.Text + "\n" + m.HTML) {
		out = append(out, l)
		u, err := url.Parse(strings.ReplaceAll(l, "&amp;", "&"))
		if err != nil {
			continue
		}
		for _, vs := range u.Query() {
			for _, v := range vs {
				if len(v) >= minScrubLen {
					out = append(out, v, url.QueryEscape(v))
				}
			}
		}
		for seg := range strings.SplitSeq(u.Path, "/") {
			if len(seg) >= minScrubLen && strings.ContainsAny(seg, "0123456789") {
				out = append(out, seg)
			}
		}
	}
	out = append(out, extractCodes(m.Subject+"\n"+m.Text)...)
	slices.SortFunc(out, func(a, b string) int { return len(b) - len(a) })
	return slices.Compact(out)
}

// scrubMessages is s with the secrets of ms (messageSecrets) redacted.
func scrubMessages(s string, ms []Email) string {
	for _, m := range ms {
		for _, secret := range messageSecrets(m) {
			s = strings.ReplaceAll(s, secret, redactedText)
		}
	}
	return s
}
