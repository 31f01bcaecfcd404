package main

import (
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

func gzipSize(b []byte) int {
	var buf bytes.Buffer
	w, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	_, _ = w.Write(b)
	_ = w.Close()
	return buf.Len()
}

// staticImport matches `from"./x.js"` and `import"./x.js"`, not the
// dynamic `import("./x.js")` of a lazy chunk.
var staticImport = regexp.MustCompile(`(?:\bfrom|\bimport)\s*["'](\./[^"']+)["']`)

// initialESM is what a page loads first from the ESM build: the entry and
// every chunk it imports statically, transitively.
func initialESM(dir, entry string) (int, []string, error) {
	seen := map[string]bool{}
	total := 0
	var walk func(string) error
	walk = func(file string) error {
		if seen[file] {
			return nil
		}
		seen[file] = true
		b, err := os.ReadFile(filepath.Join(dir, file))
		if err != nil {
			return err
		}
		total += gzipSize(b)
		for _, m := range staticImport.FindAllSubmatch(b, -1) {
			if err := walk(filepath.Clean(filepath.Join(filepath.Dir(file), string(m[1])))); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(entry); err != nil {
		return 0, nil, err
	}
	var files []string
	for f := range seen {
		files = append(files, f)
	}
	sort.Strings(files)
	return total, files, nil
}

func widgetFigures(o options, rep *report) error {
	esmDir := filepath.Join(o.widget, "esm")
	esm, files, err := initialESM(esmDir, "index.js")
	if err != nil {
		return fmt.Errorf("%w (build the widget: make build)", err)
	}
	iife, err := os.ReadFile(filepath.Join(o.widget, "latchkey.js"))
	if err != nil {
		return err
	}
	st := gzipSize(iife)
	kb := func(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1024) }
	rep.add("widget ESM gzipped, first load (React external)", kb(esm)+" ("+strings.Join(files, " + ")+")", "≤ 30 KB", ptr(esm <= 30*1024))
	rep.add("widget standalone gzipped (React inside)", kb(st), "≤ 80 KB", ptr(st <= 80*1024))
	lazy, _ := filepath.Glob(filepath.Join(esmDir, "*.js"))
	var parts []string
	for _, f := range lazy {
		name := filepath.Base(f)
		if isIn(files, name) {
			continue
		}
		b, _ := os.ReadFile(f)
		parts = append(parts, fmt.Sprintf("%s %s", name, kb(gzipSize(b))))
	}
	if len(parts) > 0 {
		rep.add("  lazy chunks (loaded when a screen needs them)", strings.Join(parts, ", "), "", nil)
	}
	return nil
}

func isIn(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
