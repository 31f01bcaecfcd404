package metrics

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// A strict reader of the text format 0.0.4 for the tests (the module no
// longer carries the client library's parser). It refuses more than a
// scraper would: besides the grammar, it wants the client library's
// layout (families sorted by name, HELP then TYPE, labels sorted by name,
// series sorted by label values, no timestamps) and well-formed
// histograms and summaries.

type parsedSample struct {
	name   string // with its suffix (_bucket, _sum, _count)
	labels map[string]string
	value  float64
}

type parsedFamily struct {
	help, kind string
	samples    []parsedSample
}

var nameRE = regexp.MustCompile(`^[a-zA-Z_:][a-zA-Z0-9_:]*$`)
var labelNameRE = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

var suffixes = map[string][]string{"counter": {""}, "gauge": {""}, "histogram": {"_bucket", "_sum", "_count"},
	"summary": {"", "_sum", "_count"}}

func parseExposition(text string) (map[string]*parsedFamily, error) {
	if text == "" {
		return nil, errors.New("empty exposition")
	}
	if !strings.HasSuffix(text, "\n") {
		return nil, errors.New("no final line feed")
	}
	out := map[string]*parsedFamily{}
	lines := strings.Split(strings.TrimSuffix(text, "\n"), "\n")
	var last string
	for i := 0; i < len(lines); {
		name, help, ok := strings.Cut(strings.TrimPrefix(lines[i], "# HELP "), " ")
		if !strings.HasPrefix(lines[i], "# HELP ") || !ok || !nameRE.MatchString(name) {
			return nil, fmt.Errorf("line %d: want # HELP <name> <text>: %q", i+1, lines[i])
		}
		if name <= last {
			return nil, fmt.Errorf("line %d: family %s after %s (unsorted or repeated)", i+1, name, last)
		}
		last = name
		f := &parsedFamily{}
		var err error
		if f.help, err = unescape(help, false); err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		if i+1 >= len(lines) || !strings.HasPrefix(lines[i+1], "# TYPE "+name+" ") {
			return nil, fmt.Errorf("line %d: want # TYPE %s after its HELP", i+2, name)
		}
		f.kind = strings.TrimPrefix(lines[i+1], "# TYPE "+name+" ")
		if suffixes[f.kind] == nil {
			return nil, fmt.Errorf("line %d: unknown type %q", i+2, f.kind)
		}
		for i += 2; i < len(lines) && !strings.HasPrefix(lines[i], "#"); i++ {
			s, err := parseSample(lines[i])
			if err != nil {
				return nil, fmt.Errorf("line %d: %w", i+1, err)
			}
			suffix, ok := strings.CutPrefix(s.name, name)
			if !ok || !slices.Contains(suffixes[f.kind], suffix) {
				return nil, fmt.Errorf("line %d: sample %s in %s family %s", i+1, s.name, f.kind, name)
			}
			f.samples = append(f.samples, s)
		}
		if len(f.samples) == 0 {
			return nil, fmt.Errorf("family %s has no samples", name)
		}
		if err := checkSeries(name, f); err != nil {
			return nil, err
		}
		out[name] = f
	}
	return out, nil
}

// parseSample reads name{label="value",...} value.
func parseSample(line string) (parsedSample, error) {
	s := parsedSample{labels: map[string]string{}}
	end := strings.IndexAny(line, "{ ")
	if end < 0 {
		return s, fmt.Errorf("no value: %q", line)
	}
	s.name, line = line[:end], line[end:]
	if !nameRE.MatchString(s.name) {
		return s, fmt.Errorf("bad metric name %q", s.name)
	}
	if rest, ok := strings.CutPrefix(line, "{"); ok {
		var prev string
		for first := true; !strings.HasPrefix(rest, "}"); first = false {
			if !first {
				var ok bool
				if rest, ok = strings.CutPrefix(rest, ","); !ok {
					return s, fmt.Errorf("labels not separated by a comma at %q", rest)
				}
			}
			name, after, ok := strings.Cut(rest, `="`)
			if !ok || !labelNameRE.MatchString(name) {
				return s, fmt.Errorf("bad label at %q", rest)
			}
			if _, dup := s.labels[name]; dup {
				return s, fmt.Errorf("label %s twice", name)
			}
			if prev == "le" || prev == "quantile" {
				return s, fmt.Errorf("label %s after %s, which comes last", name, prev)
			}
			if name != "le" && name != "quantile" && name <= prev {
				return s, fmt.Errorf("label %s after %s (unsorted)", name, prev)
			}
			prev = name
			value, n, err := readQuoted(after)
			if err != nil {
				return s, fmt.Errorf("label %s: %w", name, err)
			}
			s.labels[name], rest = value, after[n:]
		}
		line = strings.TrimPrefix(rest, "}")
	}
	v, ok := strings.CutPrefix(line, " ")
	if !ok || strings.Contains(v, " ") {
		return s, fmt.Errorf("want one space then the value (no timestamp): %q", line)
	}
	var err error
	s.value, err = parseValue(v)
	return s, err
}

// readQuoted unescapes a label value up to its closing quote and returns
// how many bytes it read, the quote included.
func readQuoted(s string) (string, int, error) {
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '"':
			v, err := unescape(s[:i], true)
			return v, i + 1, err
		case '\\':
			i++
		case '\n':
			return "", 0, errors.New("raw line feed")
		}
	}
	return "", 0, errors.New("no closing quote")
}

func unescape(s string, quoted bool) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '"' && quoted {
			return "", errors.New("unescaped quote")
		}
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		if i++; i == len(s) {
			return "", errors.New("lone backslash at the end")
		}
		switch c := s[i]; {
		case c == '\\':
			b.WriteByte('\\')
		case c == 'n':
			b.WriteByte('\n')
		case c == '"' && quoted:
			b.WriteByte('"')
		default:
			return "", fmt.Errorf(`unknown escape \%c`, c)
		}
	}
	return b.String(), nil
}

func parseValue(v string) (float64, error) {
	switch v {
	case "+Inf":
		return math.Inf(1), nil
	case "-Inf":
		return math.Inf(-1), nil
	case "NaN":
		return math.NaN(), nil
	}
	f, err := strconv.ParseFloat(v, 64)
	if err != nil || strings.ContainsAny(v, "_xXpP") || strings.EqualFold(v, "inf") || strings.EqualFold(v, "infinity") {
		return 0, fmt.Errorf("bad value %q", v)
	}
	return f, nil
}

// seriesKey is a sample's label values without le and quantile, in label
// name order, and the names.
func seriesKey(s parsedSample) (names, values []string) {
	for name := range s.labels {
		if name != "le" && name != "quantile" {
			names = append(names, name)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		values = append(values, s.labels[n])
	}
	return names, values
}

// checkSeries wants every series' samples together, the series sorted by
// label values with the same label names, and each series well formed for
// its family's type.
func checkSeries(name string, f *parsedFamily) error {
	var names, prev []string
	var group []parsedSample
	flush := func() error {
		if group == nil {
			return nil
		}
		err := checkGroup(name, f.kind, group)
		group = nil
		return err
	}
	for i, s := range f.samples {
		n, v := seriesKey(s)
		if i == 0 {
			names = n
		} else if !slices.Equal(n, names) {
			return fmt.Errorf("%s: label names %v and %v in one family", name, names, n)
		}
		if i > 0 && slices.Equal(v, prev) {
			group = append(group, s)
			continue
		}
		if i > 0 && slices.Compare(v, prev) < 0 {
			return fmt.Errorf("%s: series %v after %v (unsorted or split)", name, v, prev)
		}
		if err := flush(); err != nil {
			return err
		}
		prev, group = v, []parsedSample{s}
	}
	return flush()
}

func checkGroup(name, kind string, g []parsedSample) error {
	switch kind {
	case "counter", "gauge":
		if len(g) != 1 {
			return fmt.Errorf("%s: %d samples in one %s series", name, len(g), kind)
		}
		if _, ok := g[0].labels["le"]; ok {
			return fmt.Errorf("%s: le on a %s", name, kind)
		}
		if _, ok := g[0].labels["quantile"]; ok {
			return fmt.Errorf("%s: quantile on a %s", name, kind)
		}
		return nil
	case "histogram":
		return checkBuckets(name, g, "_bucket", "le")
	default:
		return checkBuckets(name, g, "", "quantile")
	}
}

// checkBuckets wants histogram buckets (le ascending, counts cumulative,
// ending with +Inf equal to _count) or summary quantiles (ascending in
// [0, 1]), then _sum, then _count.
func checkBuckets(name string, g []parsedSample, suffix, key string) error {
	if len(g) < 3 || g[len(g)-2].name != name+"_sum" || g[len(g)-1].name != name+"_count" {
		return fmt.Errorf("%s: a series does not end with _sum and _count", name)
	}
	bounds := g[:len(g)-2]
	prevBound, prevCount := math.Inf(-1), 0.0
	for _, b := range bounds {
		raw, ok := b.labels[key]
		if b.name != name+suffix || !ok {
			return fmt.Errorf("%s: %s without %s among the buckets", name, b.name, key)
		}
		bound, err := parseValue(raw)
		if err != nil || bound <= prevBound {
			return fmt.Errorf("%s: %s=%q not ascending", name, key, raw)
		}
		if key == "quantile" && (bound < 0 || bound > 1) {
			return fmt.Errorf("%s: quantile %s", name, raw)
		}
		if key == "le" && b.value < prevCount {
			return fmt.Errorf("%s: bucket le=%s holds %v, less than the one below (%v): not cumulative", name, raw, b.value, prevCount)
		}
		prevBound, prevCount = bound, b.value
	}
	count := g[len(g)-1].value
	if key == "le" && (!math.IsInf(prevBound, 1) || prevCount != count) {
		return fmt.Errorf("%s: last bucket le=%v holds %v, want le=+Inf holding _count %v", name, prevBound, prevCount, count)
	}
	return nil
}

// The checker itself refuses what it should, or the tests above prove
// nothing.
func TestParseExpositionIsStrict(t *testing.T) {
	const good = "# HELP a_total A \\\\ help\\n text with \"quotes\".\n# TYPE a_total counter\n" +
		"a_total{k=\"x\",l=\"1\"} 1\na_total{k=\"x\",l=\"2\"} 2\na_total{k=\"y\",l=\"1\"} 1e+06\n" +
		"# HELP h H.\n# TYPE h histogram\n" +
		"h_bucket{r=\"a\",le=\"0.5\"} 1\nh_bucket{r=\"a\",le=\"+Inf\"} 2\nh_sum{r=\"a\"} 3.5\nh_count{r=\"a\"} 2\n" +
		"# HELP s S.\n# TYPE s summary\ns{quantile=\"0\"} 0.1\ns{quantile=\"1\"} 0.2\ns_sum 0.3\ns_count 2\n"
	fs, err := parseExposition(good)
	if err != nil {
		t.Fatalf("good exposition refused: %v", err)
	}
	if fs["a_total"].help != "A \\ help\n text with \"quotes\"." || fs["a_total"].samples[2].value != 1e6 {
		t.Errorf("read %+v", fs["a_total"])
	}
	for _, bad := range []struct{ why, from, to string }{
		{"families unsorted", "# HELP h H.\n# TYPE h histogram\n", "# HELP 0h H.\n# TYPE 0h histogram\n"},
		{"no TYPE", "# TYPE s summary\n", ""},
		{"type unknown", "# TYPE s summary", "# TYPE s untyped"},
		{"sample of another family", "a_total{k=\"y\"", "b_total{k=\"y\""},
		{"series unsorted", "a_total{k=\"y\",l=\"1\"}", "a_total{k=\"w\",l=\"1\"}"},
		{"series repeated", "a_total{k=\"y\",l=\"1\"}", "a_total{k=\"x\",l=\"2\"}"},
		{"labels unsorted", "a_total{k=\"x\",l=\"1\"}", "a_total{l=\"1\",k=\"x\"}"},
		{"label names differ", "a_total{k=\"y\",l=\"1\"}", "a_total{k=\"y\",m=\"1\"}"},
		{"unknown escape", "k=\"x\",l=\"2\"", "k=\"x\\t\",l=\"2\""},
		{"raw quote", "k=\"x\",l=\"2\"", "k=\"x\"\",l=\"2\""},
		{"raw line feed", "k=\"x\",l=\"2\"", "k=\"x\n\",l=\"2\""},
		{"quote escaped in HELP", "A \\\\ help", "A \\\" help"},
		{"timestamp", "} 1e+06\n", "} 1e+06 1700000000\n"},
		{"bad value", "} 1e+06\n", "} 1,000,000\n"},
		{"le not last", "h_bucket{r=\"a\",le=\"0.5\"}", "h_bucket{le=\"0.5\",r=\"a\"}"},
		{"not cumulative", "h_bucket{r=\"a\",le=\"+Inf\"} 2", "h_bucket{r=\"a\",le=\"+Inf\"} 0"},
		{"+Inf is not _count", "h_count{r=\"a\"} 2", "h_count{r=\"a\"} 3"},
		{"no +Inf bucket", "h_bucket{r=\"a\",le=\"+Inf\"} 2\n", "h_bucket{r=\"a\",le=\"1\"} 2\n"},
		{"no _sum", "h_sum{r=\"a\"} 3.5\n", ""},
		{"quantiles descending", "s{quantile=\"0\"} 0.1\ns{quantile=\"1\"} 0.2\n", "s{quantile=\"1\"} 0.1\ns{quantile=\"0\"} 0.2\n"},
		{"no final line feed", "s_count 2\n", "s_count 2"},
		{"blank line", "# HELP h H.\n", "\n# HELP h H.\n"},
	} {
		text := strings.Replace(good, bad.from, bad.to, 1)
		if text == good {
			t.Fatalf("%s: %q not in the good exposition", bad.why, bad.from)
		}
		if _, err := parseExposition(text); err == nil {
			t.Errorf("%s: accepted", bad.why)
		}
	}
}
