package main

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func lookWrk() (string, error) {
	p, err := exec.LookPath("wrk")
	if err != nil {
		return "", fmt.Errorf("wrk not found: run scripts/bench.sh (it installs wrk from Debian), or apt-get install wrk")
	}
	return p, nil
}

// load is one wrk target: a POST with a JSON body and Basic credentials.
type load struct {
	url        string
	user, pass string
	body       string
}

// result is one wrk run.
type result struct {
	rps     float64
	p99ms   float64
	non2xx  int
	cpuMsPR float64 // server CPU per request (ms), when measured
}

// wrkThreads is wrk's thread count (-wrk-threads). One is the default:
// the generator shares the two cores with the server, as the targets say,
// and with two threads the four busy threads (two wrk, two Go) on two
// cores made the scheduler's time slices the p99 (about 40 ms even for the
// bare handler), while one thread sent more requests than two did.
var wrkThreads = 1

// wrk runs one load for d with c connections.
func wrk(l load, c int, d time.Duration) (result, error) {
	dir, err := os.MkdirTemp("", "wrk-")
	if err != nil {
		return result{}, err
	}
	defer os.RemoveAll(dir)
	script := filepath.Join(dir, "post.lua")
	lua := "wrk.method = \"POST\"\n" +
		"wrk.body = " + strconv.Quote(l.body) + "\n" +
		"wrk.headers[\"Content-Type\"] = \"application/json\"\n"
	if l.user != "" || l.pass != "" {
		lua += "wrk.headers[\"Authorization\"] = \"Basic " + base64.StdEncoding.EncodeToString([]byte(l.user+":"+l.pass)) + "\"\n"
	}
	if err := os.WriteFile(script, []byte(lua), 0o600); err != nil {
		return result{}, err
	}
	secs := fmt.Sprintf("%ds", int(d.Seconds()))
	out, err := exec.Command("wrk", "-t"+strconv.Itoa(wrkThreads), "-c"+strconv.Itoa(c), "-d"+secs, "--timeout", "30s", "--latency", "-s", script, l.url).CombinedOutput()
	if err != nil {
		return result{}, fmt.Errorf("wrk: %v: %s", err, out)
	}
	return parseWrk(out)
}

func parseWrk(out []byte) (result, error) {
	var r result
	sc := bufio.NewScanner(bytes.NewReader(out))
	inDist := false
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		switch {
		case len(f) == 0:
		case f[0] == "Latency" && len(f) > 1 && f[1] == "Distribution":
			inDist = true
		case inDist && f[0] == "99%" && len(f) == 2:
			r.p99ms = wrkDuration(f[1])
		case f[0] == "Requests/sec:" && len(f) == 2:
			r.rps, _ = strconv.ParseFloat(f[1], 64)
		case f[0] == "Non-2xx" && len(f) >= 5:
			r.non2xx, _ = strconv.Atoi(f[len(f)-1])
		}
	}
	if r.rps == 0 {
		return r, fmt.Errorf("wrk output not understood:\n%s", out)
	}
	if r.non2xx > 0 {
		return r, fmt.Errorf("%d answers were not 2xx:\n%s", r.non2xx, out)
	}
	return r, nil
}

// wrkDuration parses wrk's "12.34ms" / "850.00us" / "1.20s" in ms.
func wrkDuration(s string) float64 {
	for _, u := range []struct {
		suffix string
		ms     float64
	}{{"us", 0.001}, {"ms", 1}, {"s", 1000}, {"m", 60000}} {
		if v, ok := strings.CutSuffix(s, u.suffix); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err == nil {
				return f * u.ms
			}
		}
	}
	return 0
}

// measure is the median of runs wrk runs of l against an in-process
// server, after a 1 s warm-up that is not counted (the first second of a
// fresh server pays for filling its caches and sizing its heap).
func measure(runs int, l load, c int, d time.Duration) (result, error) {
	if _, err := wrk(l, c, time.Second); err != nil {
		return result{}, err
	}
	return medianOf(runs, func() (result, error) { return wrkServer(l, c, d) })
}

// measureInTurn measures loads runs times each, and returns each one's
// medians and, for each, its rate divided by the first load's in every
// run (the figure is their median; the spread says whether two loads
// differ or tie). Each run measures the loads forward and then backward
// (a, b, c, c, b, a) for half of d each (whole seconds, at least one), so
// they are compared seconds apart and none always goes first or last:
// measured one after the other, they would compare two moments of a shared
// host, whose neighbours move a rate by several percent from one minute to
// the next, and a fixed order favoured whichever went first (the SDK face,
// measured after the backend checks, came out 10-24% behind in four full
// runs, and ahead when measured first).
func measureInTurn(runs int, loads []load, c int, d time.Duration) (rs []result, ratios [][]float64, err error) {
	for _, l := range loads {
		if _, err := wrk(l, c, time.Second); err != nil {
			return nil, nil, err
		}
	}
	half := max((d / 2).Truncate(time.Second), time.Second) // wrk runs whole seconds
	order := make([]int, 0, 2*len(loads))
	for i := range loads {
		order = append(order, i)
	}
	for i := range loads {
		order = append(order, len(loads)-1-i)
	}
	perLoad := make([][]result, len(loads))
	perRatio := make([][]float64, len(loads))
	for range runs {
		got := make([][]result, len(loads))
		for _, j := range order {
			r, err := wrkServer(loads[j], c, half)
			if err != nil {
				return nil, nil, err
			}
			got[j] = append(got[j], r)
		}
		first := mean(got[0])
		for j := range loads {
			m := mean(got[j])
			perLoad[j] = append(perLoad[j], m)
			perRatio[j] = append(perRatio[j], m.rps/first.rps)
		}
	}
	for j := range loads {
		rs, ratios = append(rs, medians(perLoad[j])), append(ratios, perRatio[j])
	}
	return rs, ratios, nil
}

// mean is the mean rate and CPU per request of rs, with the highest p99.
func mean(rs []result) result {
	var m result
	for _, r := range rs {
		m.rps += r.rps / float64(len(rs))
		m.cpuMsPR += r.cpuMsPR / float64(len(rs))
		m.p99ms = max(m.p99ms, r.p99ms)
	}
	return m
}

// medianOf runs fn o.runs times and returns the median throughput and
// p99 (each taken separately), and CPU per request.
func medianOf(runs int, fn func() (result, error)) (result, error) {
	var rs []result
	for range runs {
		r, err := fn()
		if err != nil {
			return result{}, err
		}
		rs = append(rs, r)
	}
	return medians(rs), nil
}

// medians is the median throughput, p99 and CPU per request of rs, each
// taken separately.
func medians(rs []result) result {
	var rps, p99, cpu []float64
	for _, r := range rs {
		rps, p99, cpu = append(rps, r.rps), append(p99, r.p99ms), append(cpu, r.cpuMsPR)
	}
	return result{rps: median(rps), p99ms: median(p99), cpuMsPR: median(cpu)}
}
