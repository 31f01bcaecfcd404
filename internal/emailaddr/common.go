package emailaddr

import (
	"slices"
	"strings"
)

// commonDomains are shared mail providers' domains, where anyone can get an
// address: owning one proves nothing about belonging to an organization.
// This is the one list (organization settings refuse these domains, the
// cross-organization domain claim ignores them, discovery names an
// organization created from one after the person).
var commonDomains = []string{
	// Google, Microsoft, Apple, Yahoo, AOL
	"gmail.com", "googlemail.com",
	"outlook.com", "hotmail.com", "live.com", "msn.com", "passport.com",
	"icloud.com", "me.com", "mac.com",
	"yahoo.com", "ymail.com", "rocketmail.com",
	"aol.com", "aim.com",
	// Privacy and independent providers
	"proton.me", "protonmail.com", "protonmail.ch", "pm.me",
	"tutanota.com", "tutanota.de", "tutamail.com", "tuta.io", "tuta.com",
	"fastmail.com", "fastmail.fm", "hey.com", "zoho.com", "zohomail.com",
	"mail.com", "email.com", "usa.com", "inbox.com", "hushmail.com", "lycos.com",
	// Europe
	"web.de", "t-online.de", "freenet.de", "posteo.de", "mailbox.org",
	"orange.fr", "wanadoo.fr", "free.fr", "laposte.net", "sfr.fr",
	"libero.it", "virgilio.it", "tiscali.it", "alice.it",
	"btinternet.com", "sky.com", "virginmedia.com", "ntlworld.com",
	"seznam.cz", "wp.pl", "o2.pl", "onet.pl", "interia.pl",
	"mail.ru", "inbox.ru", "list.ru", "bk.ru", "rambler.ru", "ya.ru",
	// Asia and elsewhere
	"qq.com", "foxmail.com", "163.com", "126.com", "yeah.net", "sina.com", "sina.cn", "sohu.com", "aliyun.com",
	"naver.com", "hanmail.net", "daum.net", "nate.com",
	"rediffmail.com", "uol.com.br", "bol.com.br", "terra.com.br",
	// North American ISPs
	"comcast.net", "verizon.net", "att.net", "sbcglobal.net", "bellsouth.net", "cox.net", "charter.net",
	"earthlink.net", "optonline.net", "shaw.ca", "rogers.com", "sympatico.ca",
}

// commonFamilies are providers that hand out addresses under their name in
// many top-level domains (gmx.de, gmx.net, yahoo.co.jp, hotmail.fr,
// yandex.com.tr): the name followed by a generic or country suffix.
var commonFamilies = []string{"gmx", "yandex", "yahoo", "hotmail", "outlook", "live"}

// IsCommonDomain reports whether domain (lower-case, as Normalize leaves
// it) belongs to a shared mail provider.
func IsCommonDomain(domain string) bool {
	domain = strings.TrimSuffix(domain, ".")
	if slices.Contains(commonDomains, domain) {
		return true
	}
	name, suffix, ok := strings.Cut(domain, ".")
	return ok && slices.Contains(commonFamilies, name) && providerSuffix(suffix)
}

// providerSuffix reports whether suffix is one under which a provider
// family registers its own domains: com, net, a two-letter country code,
// or one preceded by co. or com. (co.uk, com.tr). Anything longer is a
// subdomain or another registrant's domain (live.example.org).
func providerSuffix(suffix string) bool {
	if suffix == "com" || suffix == "net" {
		return true
	}
	second, cc, ok := strings.Cut(suffix, ".")
	if !ok {
		cc = second
	} else if second != "co" && second != "com" {
		return false
	}
	return len(cc) == 2 && cc[0] >= 'a' && cc[0] <= 'z' && cc[1] >= 'a' && cc[1] <= 'z'
}
