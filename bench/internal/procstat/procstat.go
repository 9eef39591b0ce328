// Package procstat reads what the benchmark drivers (bench/floor, bench/soak) measure of the
// processes they start (/proc, the worker's /metrics), and gives them free local addresses. Linux
// only: it reads /proc.
package procstat

import (
	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"strings"
)

// RSS returns a process's current and peak resident set in bytes (VmRSS, VmHWM of /proc/PID/status).
func RSS(pid int) (cur, peak int64, err error) {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0, 0, err
	}
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) < 2 {
			continue
		}
		v, _ := strconv.ParseInt(f[1], 10, 64)
		switch f[0] {
		case "VmRSS:":
			cur = v << 10
		case "VmHWM:":
			peak = v << 10
		}
	}
	return cur, peak, nil
}

// FreeAddr returns a loopback address with a port that was free a moment ago. It panics when no
// port can be had: a driver cannot run without one.
func FreeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	defer l.Close()
	return l.Addr().String()
}

// Metric reads the value of the first series of name from the Prometheus text at
// http://addr/metrics. The worker's series carry labels (otel_scope_name, ...): the value follows
// the last space.
func Metric(addr, name string) (float64, error) {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		rest, ok := strings.CutPrefix(sc.Text(), name)
		if !ok || rest == "" || (rest[0] != ' ' && rest[0] != '{') {
			continue
		}
		return strconv.ParseFloat(strings.TrimSpace(rest[strings.LastIndexByte(rest, ' '):]), 64)
	}
	return 0, fmt.Errorf("metric %s not found", name)
}
