package notify

import (
	"maps"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/latchkey/latchkey/internal/locale"
)

// Every language says every key, and no key the English does not: a
// missing key would fail an email at its first send in that language.
// Each says it with the same fields, so no language drops the code or
// the expiry, or names the project where English names the organization.
func TestCataloguesComplete(t *testing.T) {
	t.Parallel()
	action := regexp.MustCompile(`{{[^}]*}}`)
	for _, tag := range locale.All {
		c, ok := catalogues[tag]
		if !ok {
			t.Fatalf("no catalogue for %s", tag)
		}
		for key, en := range english {
			s, ok := c[key]
			if !ok || strings.TrimSpace(s) == "" {
				t.Errorf("%s: missing %q", tag, key)
				continue
			}
			want, got := action.FindAllString(en, -1), action.FindAllString(s, -1)
			slices.Sort(want)
			slices.Sort(got)
			if !slices.Equal(got, want) {
				t.Errorf("%s %q uses %v, English uses %v", tag, key, got, want)
			}
		}
		for key := range c {
			if _, ok := english[key]; !ok {
				t.Errorf("%s: %q is not an English key", tag, key)
			}
		}
	}
	if got := slices.Sorted(maps.Keys(catalogues)); len(got) != len(locale.All) {
		t.Errorf("catalogues for %v, want one for each of %v", got, locale.All)
	}
}

// No other language still says a key's English sentence: rendered with
// the same fields, the translation does not contain the English. The unit
// words are exempt (French "minute" is the English word).
func TestCataloguesTranslated(t *testing.T) {
	t.Parallel()
	v := view{Project: "Proj", Org: "Org", Code: "123456", Inviter: "Bo", Expiry: "10 x"}
	for _, tag := range locale.All {
		if tag == locale.English {
			continue
		}
		for key := range english {
			if strings.HasPrefix(key, "unit.") {
				continue
			}
			ven, vloc := v, v
			ven.loc, vloc.loc = locale.English, tag
			en, err := say(ven, key)
			if err != nil {
				t.Fatalf("%s: %v", key, err)
			}
			got, err := say(vloc, key)
			if err != nil {
				t.Fatalf("%s in %s: %v", key, tag, err)
			}
			if strings.Contains(got, en) {
				t.Errorf("%s %q is still English: %q", tag, key, got)
			}
		}
	}
}

func TestHumanDurationInEveryLanguage(t *testing.T) {
	t.Parallel()
	tests := []struct {
		d                time.Duration
		en, es, fr, ptBR string
	}{
		{time.Second, "1 second", "1 segundo", "1 seconde", "1 segundo"},
		{30 * time.Second, "30 seconds", "30 segundos", "30 secondes", "30 segundos"},
		{time.Minute, "1 minute", "1 minuto", "1 minute", "1 minuto"},
		{10 * time.Minute, "10 minutes", "10 minutos", "10 minutes", "10 minutos"},
		{time.Hour, "60 minutes", "60 minutos", "60 minutes", "60 minutos"},
		{2 * time.Hour, "2 hours", "2 horas", "2 heures", "2 horas"},
		{7 * 24 * time.Hour, "7 days", "7 días", "7 jours", "7 dias"},
	}
	for _, tc := range tests {
		for tag, want := range map[locale.Tag]string{"": tc.en, locale.English: tc.en, locale.Spanish: tc.es, locale.French: tc.fr, locale.BrazilianPortuguese: tc.ptBR} {
			if got := humanDuration(tc.d, tag); got != want {
				t.Errorf("humanDuration(%v, %q) = %q, want %q", tc.d, tag, got, want)
			}
		}
	}
}
