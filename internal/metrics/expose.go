package metrics

import (
	"cmp"
	"compress/gzip"
	"math"
	"net/http"
	"slices"
	"strconv"
	"strings"
)

// The Prometheus text exposition format 0.0.4, which every scraper reads:
// https://prometheus.io/docs/instrumenting/exposition_formats/. The output
// is laid out as the official client library lays it out (families by
// name, series by label values, labels by name, values in Go's shortest
// 'g' form), so a scrape diffs cleanly against one taken before.
const contentType = "text/plain; version=0.0.4; charset=utf-8"

type kind string

const (
	counterKind   kind = "counter"
	gaugeKind     kind = "gauge"
	histogramKind kind = "histogram"
	summaryKind   kind = "summary"
)

type label struct{ name, value string }

type family struct {
	name, help string
	kind       kind
	series     []series
}

// series is one label set's samples: one point for a counter or gauge;
// the buckets, _sum and _count of a histogram; the quantiles, _sum and
// _count of a summary.
type series struct {
	labels []label
	points []point
}

type point struct {
	suffix string // appended to the family name: "", "_bucket", "_sum", "_count"
	extra  label  // le or quantile, written after the series' labels; none when its name is ""
	value  float64
}

// single is a family of one unlabelled sample.
func single(name, help string, k kind, v float64) family {
	return family{name: name, help: help, kind: k, series: []series{{points: []point{{value: v}}}}}
}

// appendExposition writes the families sorted by name, leaving out those
// without series (a labelled family nothing has counted yet), as the
// client library did.
func appendExposition(b []byte, fs []family) []byte {
	slices.SortFunc(fs, func(a, b family) int { return strings.Compare(a.name, b.name) })
	for _, f := range fs {
		if len(f.series) == 0 {
			continue
		}
		for _, s := range f.series {
			slices.SortFunc(s.labels, func(a, b label) int { return strings.Compare(a.name, b.name) })
		}
		slices.SortFunc(f.series, compareSeries)
		b = append(b, "# HELP "...)
		b = append(b, f.name...)
		b = append(b, ' ')
		b = appendEscaped(b, f.help, false)
		b = append(b, "\n# TYPE "...)
		b = append(b, f.name...)
		b = append(b, ' ')
		b = append(b, f.kind...)
		b = append(b, '\n')
		for _, s := range f.series {
			for _, p := range s.points {
				b = appendPoint(b, f.name, s.labels, p)
			}
		}
	}
	return b
}

// compareSeries orders by label values, label by label; a family's series
// all have the same label names, already sorted.
func compareSeries(a, b series) int {
	for i := range min(len(a.labels), len(b.labels)) {
		if c := strings.Compare(a.labels[i].value, b.labels[i].value); c != 0 {
			return c
		}
	}
	return cmp.Compare(len(a.labels), len(b.labels))
}

func appendPoint(b []byte, name string, labels []label, p point) []byte {
	b = append(b, name...)
	b = append(b, p.suffix...)
	if p.extra.name != "" {
		labels = append(labels[:len(labels):len(labels)], p.extra)
	}
	for i, l := range labels {
		if i == 0 {
			b = append(b, '{')
		} else {
			b = append(b, ',')
		}
		b = append(b, l.name...)
		b = append(b, `="`...)
		b = appendEscaped(b, l.value, true)
		b = append(b, '"')
	}
	if len(labels) > 0 {
		b = append(b, '}')
	}
	b = append(b, ' ')
	b = appendValue(b, p.value)
	return append(b, '\n')
}

// appendEscaped escapes a backslash and a line feed, and in a label value
// also a double quote; HELP text keeps its quotes.
func appendEscaped(b []byte, s string, quote bool) []byte {
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b = append(b, `\\`...)
		case c == '\n':
			b = append(b, `\n`...)
		case c == '"' && quote:
			b = append(b, `\"`...)
		default:
			b = append(b, c)
		}
	}
	return b
}

func appendValue(b []byte, v float64) []byte {
	switch {
	case math.IsInf(v, 1):
		return append(b, "+Inf"...)
	case math.IsInf(v, -1):
		return append(b, "-Inf"...)
	case math.IsNaN(v):
		return append(b, "NaN"...)
	}
	return strconv.AppendFloat(b, v, 'g', -1, 64)
}

// serve writes the exposition, gzipped when the scraper accepts it
// (Prometheus asks for it; the client library's handler did it too).
func serve(w http.ResponseWriter, r *http.Request, body []byte) {
	h := w.Header()
	h.Set("Content-Type", contentType)
	h.Add("Vary", "Accept-Encoding")
	if !acceptsGzip(r.Header.Values("Accept-Encoding")) {
		h.Set("Content-Length", strconv.Itoa(len(body)))
		_, _ = w.Write(body) // a scraper that went away needs no answer
		return
	}
	h.Set("Content-Encoding", "gzip")
	zw := gzip.NewWriter(w)
	_, _ = zw.Write(body)
	_ = zw.Close()
}

// acceptsGzip reads Accept-Encoding lists ("gzip, deflate", "gzip;q=0.5");
// q=0 refuses.
func acceptsGzip(values []string) bool {
	for _, v := range values {
		for part := range strings.SplitSeq(v, ",") {
			coding, params, _ := strings.Cut(part, ";")
			if !strings.EqualFold(strings.TrimSpace(coding), "gzip") {
				continue
			}
			q, hasQ := strings.CutPrefix(strings.TrimSpace(params), "q=")
			if !hasQ {
				return true
			}
			if f, err := strconv.ParseFloat(strings.TrimSpace(q), 64); err == nil && f > 0 {
				return true
			}
		}
	}
	return false
}
