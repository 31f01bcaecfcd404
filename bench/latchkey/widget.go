package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
)

// widgetSizes is the --json report of web/widget/scripts/size.mjs, the one
// measure of the widget's size: CI's budget check runs the same script, so
// the bench cannot report another number (its own Go gzip once did: Go's
// compressor packs worse than Node's zlib at level 9, 30.1 KB against 30.0).
type widgetSizes struct {
	ESM       int            `json:"esm_gzip_bytes"`
	ESMFiles  []string       `json:"esm_first_load_files"`
	ESMLimit  int            `json:"esm_limit_bytes"`
	IIFE      int            `json:"iife_gzip_bytes"`
	IIFELimit int            `json:"iife_limit_bytes"`
	Lazy      map[string]int `json:"lazy_gzip_bytes"`
}

// measureWidget runs size.mjs on the built widget in dist (web/widget/dist,
// the script being in web/widget/scripts). The script exits 1 when a budget
// is exceeded, still printing its figures: the report shows them as not met.
func measureWidget(dist string) (widgetSizes, error) {
	var s widgetSizes
	script := filepath.Join(filepath.Dir(dist), "scripts", "size.mjs")
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("node", script, "--json")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !(errors.As(err, &exit) && exit.ExitCode() == 1) {
		return s, fmt.Errorf("node %s --json: %w: %s (build the widget: make build)", script, err, strings.TrimSpace(stderr.String()))
	}
	if err := json.Unmarshal(stdout.Bytes(), &s); err != nil {
		return s, fmt.Errorf("node %s --json printed %q: %w", script, stdout.String(), err)
	}
	return s, nil
}

func widgetFigures(o options, rep *report) error {
	s, err := measureWidget(o.widget)
	if err != nil {
		return err
	}
	kb := func(n int) string { return fmt.Sprintf("%.1f KB", float64(n)/1024) }
	var files []string
	for _, f := range s.ESMFiles {
		files = append(files, strings.TrimPrefix(f, "dist/esm/"))
	}
	rep.add("widget ESM gzipped, first load (React external)", fmt.Sprintf("%s, %d bytes (%s)", kb(s.ESM), s.ESM, strings.Join(files, " + ")), "≤ "+kb(s.ESMLimit), ptr(s.ESM <= s.ESMLimit))
	rep.add("widget standalone gzipped (React inside)", fmt.Sprintf("%s, %d bytes", kb(s.IIFE), s.IIFE), "≤ "+kb(s.IIFELimit), ptr(s.IIFE <= s.IIFELimit))
	var lazy []string
	for f := range s.Lazy {
		if strings.HasPrefix(f, "dist/esm/") {
			lazy = append(lazy, f)
		}
	}
	sort.Strings(lazy)
	var parts []string
	for _, f := range lazy {
		parts = append(parts, fmt.Sprintf("%s %s", strings.TrimPrefix(f, "dist/esm/"), kb(s.Lazy[f])))
	}
	if len(parts) > 0 {
		rep.add("  lazy chunks (loaded when a screen needs them)", strings.Join(parts, ", "), "", nil)
	}
	return nil
}
