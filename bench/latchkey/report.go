package main

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"text/tabwriter"
)

// row is one line of the final table.
type row struct {
	figure, result, target, verdict string
}

type report struct{ rows []row }

// add records a figure. met is nil when the line has no target of its own.
func (r *report) add(figure, result, target string, met *bool) {
	v := ""
	if met != nil {
		v = "not met"
		if *met {
			v = "met"
		}
	}
	r.rows = append(r.rows, row{figure, result, target, v})
	fmt.Printf("  %-58s %s\n", figure, result)
}

func (r *report) skip(figure, why string) {
	r.rows = append(r.rows, row{figure, "skipped: " + why, "", ""})
	fmt.Printf("  %-58s skipped: %s\n", figure, why)
}

func (r *report) print(w io.Writer) {
	fmt.Fprintln(w)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "| Figure\t| Result (median)\t| Target\t| \t|")
	fmt.Fprintln(tw, "|---\t|---\t|---\t|---\t|")
	for _, x := range r.rows {
		fmt.Fprintf(tw, "| %s\t| %s\t| %s\t| %s\t|\n", x.figure, x.result, x.target, x.verdict)
	}
	tw.Flush()
}

func ptr(b bool) *bool { return &b }

// median returns the middle value (the lower middle for an even count).
func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := slices.Clone(xs)
	slices.Sort(s)
	return s[(len(s)-1)/2]
}

func kreq(v float64) string {
	if v >= 1000 {
		return fmt.Sprintf("%.1fk req/s", v/1000)
	}
	return fmt.Sprintf("%.0f req/s", v)
}

func ms(v float64) string {
	return strings.TrimRight(strings.TrimRight(fmt.Sprintf("%.2f", v), "0"), ".") + " ms"
}

// percents lists ratios as whole percents in the order measured, so a
// reader sees whether a median near 100% is a lead or a tie.
func percents(ratios []float64) string {
	parts := make([]string, len(ratios))
	for i, r := range ratios {
		parts[i] = fmt.Sprintf("%.0f%%", 100*r)
	}
	return strings.Join(parts, ", ")
}
