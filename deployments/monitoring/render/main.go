// Command render draws the Grafana dashboard of deployments/monitoring (grafana-dashboard.json) as
// one PNG, from /metrics scrapes recorded during a soak run (`make soak SOAK_ARGS='-record FILE'`).
// It is not Grafana, which cannot be installed where this project is built: it loads every recorded
// sample into a Prometheus TSDB (labelled job="artifact-worker", instance="worker-0", as a scrape
// would be), evaluates each panel's queries as range queries with Prometheus's own PromQL engine
// ($job is "All", $__rate_interval is -rate-interval) and draws the series with the panels' titles,
// units, legends and grid positions. Colours, fonts and axes are its own.
//
// It is a separate module so that the Prometheus engine never enters the deployments module:
//
//	cd deployments/monitoring/render && go run . -out ../../../docs/images/dashboard-soak.png
//
// testdata/soak-metrics.txt.gz is the recording the screenshot in docs/operations.md was drawn from
// (its worker_* and process_* lines; the go_* ones no panel reads were dropped).
package main

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/model/labels"
	"github.com/prometheus/prometheus/promql"
	"github.com/prometheus/prometheus/tsdb"
	"golang.org/x/image/font"
	"golang.org/x/image/font/basicfont"
	"golang.org/x/image/math/fixed"
)

var (
	dashboardFile = flag.String("dashboard", "../grafana-dashboard.json", "the Grafana dashboard")
	metricsFile   = flag.String("metrics", "testdata/soak-metrics.txt.gz", "recorded scrapes (gzipped if .gz): each a line \"# scrape <unix ms>\" and a /metrics text")
	out           = flag.String("out", "dashboard.png", "the PNG to write")
	step          = flag.Duration("step", 10*time.Second, "resolution of the range queries")
	rateInterval  = flag.Duration("rate-interval", time.Minute, "what $__rate_interval stands for")
	width         = flag.Int("width", 1600, "image width in pixels")
	subtitle      = flag.String("subtitle", "", "a line under the title (what run this is)")
)

type dashboard struct {
	Title  string `json:"title"`
	Panels []struct {
		Type        string                   `json:"type"`
		Title       string                   `json:"title"`
		GridPos     struct{ X, Y, W, H int } `json:"gridPos"`
		FieldConfig struct {
			Defaults struct {
				Unit string   `json:"unit"`
				Min  *float64 `json:"min"`
				Max  *float64 `json:"max"`
			} `json:"defaults"`
		} `json:"fieldConfig"`
		Targets []struct {
			Expr         string `json:"expr"`
			LegendFormat string `json:"legendFormat"`
		} `json:"targets"`
	} `json:"panels"`
}

func main() {
	flag.Parse()
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "render:", err)
		os.Exit(1)
	}
}

func run() error {
	raw, err := os.ReadFile(*dashboardFile)
	if err != nil {
		return err
	}
	var d dashboard
	if err := json.Unmarshal(raw, &d); err != nil {
		return fmt.Errorf("%s: %w", *dashboardFile, err)
	}
	dir, err := os.MkdirTemp("", "render-tsdb-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	opts := tsdb.DefaultOptions()
	opts.OutOfOrderTimeWindow = int64(365 * 24 * time.Hour / time.Millisecond)
	db, err := tsdb.Open(dir, nil, nil, opts, nil)
	if err != nil {
		return err
	}
	defer db.Close()
	first, last, n, err := load(db, *metricsFile)
	if err != nil {
		return err
	}
	fmt.Printf("loaded %d samples, %s to %s\n", n, first.UTC().Format(time.RFC3339), last.UTC().Format(time.RFC3339))
	engine := promql.NewEngine(promql.EngineOpts{MaxSamples: 50_000_000, Timeout: time.Minute, LookbackDelta: 5 * time.Minute})
	vars := strings.NewReplacer("$__rate_interval", model.Duration(*rateInterval).String(), `"$job"`, `".+"`)

	const unit = 30 // pixels per grid row, as Grafana
	pad, header := 12, 64
	col := float64(*width-2*pad) / 24
	bottom := 0
	for _, p := range d.Panels {
		bottom = max(bottom, p.GridPos.Y+p.GridPos.H)
	}
	img := image.NewRGBA(image.Rect(0, 0, *width, header+bottom*unit+pad))
	fill(img, img.Bounds(), bg)
	text(img, pad, 26, d.Title+" (Grafana dashboard deployments/monitoring/grafana-dashboard.json)", fg)
	sub := fmt.Sprintf("Not Grafana: drawn by deployments/monitoring/render from recorded /metrics, queries evaluated by the Prometheus engine; %s to %s UTC",
		first.UTC().Format("2006-01-02 15:04:05"), last.UTC().Format("15:04:05"))
	text(img, pad, 44, sub, dim)
	if *subtitle != "" {
		text(img, pad, 58, *subtitle, dim)
	}
	for _, p := range d.Panels {
		r := image.Rect(pad+int(float64(p.GridPos.X)*col)+3, header+p.GridPos.Y*unit+3,
			pad+int(float64(p.GridPos.X+p.GridPos.W)*col)-3, header+(p.GridPos.Y+p.GridPos.H)*unit-3)
		if p.Type == "row" {
			text(img, r.Min.X, r.Min.Y+16, p.Title, fg)
			continue
		}
		var series []series
		for _, t := range p.Targets {
			q, err := engine.NewRangeQuery(context.Background(), db, nil, vars.Replace(t.Expr), first, last, *step)
			if err != nil {
				return fmt.Errorf("panel %q: %w", p.Title, err)
			}
			res := q.Exec(context.Background())
			if res.Err != nil {
				return fmt.Errorf("panel %q: %w", p.Title, res.Err)
			}
			m, err := res.Matrix()
			if err != nil {
				return fmt.Errorf("panel %q: %w", p.Title, err)
			}
			for _, s := range m {
				x := newSeries(legend(t.LegendFormat, s.Metric))
				for _, f := range s.Floats {
					x.add(f.T, f.F)
				}
				series = append(series, x)
			}
			q.Close()
		}
		sort.SliceStable(series, func(i, j int) bool { return series[i].name < series[j].name })
		drawPanel(img, r, p.Title, p.FieldConfig.Defaults.Unit, p.FieldConfig.Defaults.Min, p.FieldConfig.Defaults.Max, series, first, last)
	}
	f, err := os.Create(*out)
	if err != nil {
		return err
	}
	if err := png.Encode(f, img); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// load appends every recorded sample to db and returns the first and last scrape's times.
func load(db *tsdb.DB, file string) (first, last time.Time, n int, err error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return first, last, 0, err
	}
	if strings.HasSuffix(file, ".gz") {
		zr, err := gzip.NewReader(bytes.NewReader(raw))
		if err != nil {
			return first, last, 0, err
		}
		if raw, err = io.ReadAll(zr); err != nil {
			return first, last, 0, err
		}
	}
	app := db.Appender(context.Background())
	scrapes := regexp.MustCompile(`(?m)^# scrape (\d+)\n`)
	idx := scrapes.FindAllSubmatchIndex(raw, -1)
	if len(idx) == 0 {
		return first, last, 0, fmt.Errorf("%s: no \"# scrape\" lines", file)
	}
	for i, m := range idx {
		ms, _ := strconv.ParseInt(string(raw[m[2]:m[3]]), 10, 64)
		end := len(raw)
		if i+1 < len(idx) {
			end = idx[i+1][0]
		}
		text := expfmt.NewTextParser(model.UTF8Validation)
		families, err := text.TextToMetricFamilies(bufio.NewReader(bytes.NewReader(raw[m[1]:end])))
		if err != nil {
			return first, last, 0, fmt.Errorf("scrape at %d: %w", ms, err)
		}
		for name, f := range families {
			for _, metric := range f.GetMetric() {
				for _, s := range samples(name, f.GetType(), metric) {
					if _, err := app.Append(0, s.labels, ms, s.value); err != nil {
						return first, last, 0, err
					}
					n++
				}
			}
		}
		t := time.UnixMilli(ms)
		if first.IsZero() {
			first = t
		}
		last = t
	}
	return first, last, n, app.Commit()
}

type sample struct {
	labels labels.Labels
	value  float64
}

// samples are the series a Prometheus scrape makes of one metric (a histogram's _bucket, _sum and
// _count), with the scrape's job and instance labels.
func samples(name string, typ dto.MetricType, m *dto.Metric) []sample {
	base := map[string]string{"job": "artifact-worker", "instance": "worker-0"}
	for _, l := range m.GetLabel() {
		base[l.GetName()] = l.GetValue()
	}
	with := func(metric string, extra map[string]string, v float64) sample {
		l := map[string]string{"__name__": metric}
		for k, v := range base {
			l[k] = v
		}
		for k, v := range extra {
			l[k] = v
		}
		return sample{labels.FromMap(l), v}
	}
	switch typ {
	case dto.MetricType_COUNTER:
		return []sample{with(name, nil, m.GetCounter().GetValue())}
	case dto.MetricType_GAUGE:
		return []sample{with(name, nil, m.GetGauge().GetValue())}
	case dto.MetricType_UNTYPED:
		return []sample{with(name, nil, m.GetUntyped().GetValue())}
	case dto.MetricType_HISTOGRAM:
		h := m.GetHistogram()
		out := []sample{with(name+"_sum", nil, h.GetSampleSum()), with(name+"_count", nil, float64(h.GetSampleCount())),
			with(name+"_bucket", map[string]string{"le": "+Inf"}, float64(h.GetSampleCount()))}
		for _, b := range h.GetBucket() {
			out = append(out, with(name+"_bucket", map[string]string{"le": strconv.FormatFloat(b.GetUpperBound(), 'g', -1, 64)}, float64(b.GetCumulativeCount())))
		}
		return out
	case dto.MetricType_SUMMARY:
		s := m.GetSummary()
		return []sample{with(name+"_sum", nil, s.GetSampleSum()), with(name+"_count", nil, float64(s.GetSampleCount()))}
	}
	return nil
}

var placeholder = regexp.MustCompile(`\{\{\s*(\w+)\s*\}\}`)

func legend(format string, l labels.Labels) string {
	if format == "" {
		return l.String()
	}
	return placeholder.ReplaceAllStringFunc(format, func(s string) string {
		return l.Get(placeholder.FindStringSubmatch(s)[1])
	})
}

type series struct {
	name string
	t    []int64
	v    []float64
}

func newSeries(name string) series { return series{name: name} }

func (s *series) add(t int64, v float64) { s.t, s.v = append(s.t, t), append(s.v, v) }

var (
	bg      = color.RGBA{0x11, 0x12, 0x17, 0xff}
	panelBg = color.RGBA{0x18, 0x1b, 0x1f, 0xff}
	border  = color.RGBA{0x2c, 0x32, 0x35, 0xff}
	fg      = color.RGBA{0xd8, 0xd9, 0xda, 0xff}
	dim     = color.RGBA{0x8e, 0x8e, 0x99, 0xff}
	palette = []color.RGBA{{0x73, 0xbf, 0x69, 0xff}, {0xf2, 0xcc, 0x0c, 0xff}, {0x8a, 0xb8, 0xff, 0xff}, {0xff, 0x78, 0x0a, 0xff},
		{0xf2, 0x49, 0x5c, 0xff}, {0x57, 0x94, 0xf2, 0xff}, {0xb8, 0x77, 0xd9, 0xff}, {0x70, 0x5d, 0xa0, 0xff}, {0x37, 0x87, 0x2d, 0xff},
		{0xfa, 0xde, 0x2a, 0xff}, {0x44, 0x7e, 0xbc, 0xff}, {0xc4, 0x16, 0x2a, 0xff}}
)

func drawPanel(img *image.RGBA, r image.Rectangle, title, unit string, minV, maxV *float64, ss []series, first, last time.Time) {
	fill(img, r, panelBg)
	outline(img, r, border)
	text(img, r.Min.X+8, r.Min.Y+16, title, fg)
	// The legend: as many lines as fit in a third of the panel.
	var shown []series
	for _, s := range ss {
		if hasValue(s) {
			shown = append(shown, s)
		}
	}
	legendLines := min(len(shown), max(1, r.Dy()/3/14))
	plot := image.Rect(r.Min.X+70, r.Min.Y+26, r.Max.X-12, r.Max.Y-22-legendLines*14)
	if len(shown) == 0 {
		text(img, (plot.Min.X+plot.Max.X)/2-24, (plot.Min.Y+plot.Max.Y)/2, "No data", dim)
		return
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range shown {
		for _, v := range s.v {
			if !math.IsNaN(v) && !math.IsInf(v, 0) {
				lo, hi = math.Min(lo, v), math.Max(hi, v)
			}
		}
	}
	if lo > 0 || minV != nil {
		lo = 0
		if minV != nil {
			lo = *minV
		}
	}
	if maxV != nil {
		hi = *maxV
	}
	if hi <= lo {
		hi = lo + 1
	}
	hi = lo + (hi-lo)*1.05
	for i := 0; i <= 4; i++ {
		v := lo + (hi-lo)*float64(i)/4
		y := plot.Max.Y - int(float64(plot.Dy())*float64(i)/4)
		hline(img, plot.Min.X, plot.Max.X, y, border)
		label := format(v, unit)
		text(img, plot.Min.X-8-7*len(label), y+4, label, dim)
	}
	span := last.Sub(first)
	for i := 0; i <= 4; i++ {
		at := first.Add(span * time.Duration(i) / 4)
		x := plot.Min.X + int(float64(plot.Dx())*float64(i)/4)
		label := at.UTC().Format("15:04:05")
		text(img, min(x-28, plot.Max.X-56), plot.Max.Y+14, label, dim)
	}
	t0, t1 := first.UnixMilli(), last.UnixMilli()
	for i, s := range shown {
		c := palette[i%len(palette)]
		px, py, have := 0, 0, false
		for j := range s.t {
			v := s.v[j]
			if math.IsNaN(v) || math.IsInf(v, 0) {
				have = false
				continue
			}
			x := plot.Min.X + int(float64(plot.Dx())*float64(s.t[j]-t0)/float64(max(1, t1-t0)))
			y := plot.Max.Y - int(float64(plot.Dy())*(math.Min(v, hi)-lo)/(hi-lo))
			if have {
				line(img, px, py, x, y, c)
			}
			px, py, have = x, y, true
		}
	}
	for i := 0; i < legendLines; i++ {
		s := shown[i]
		y := plot.Max.Y + 22 + i*14
		fill(img, image.Rect(r.Min.X+10, y+4, r.Min.X+22, y+7), palette[i%len(palette)])
		name := s.name
		if i == legendLines-1 && len(shown) > legendLines {
			name = fmt.Sprintf("%s (and %d more)", name, len(shown)-legendLines)
		}
		if maxChars := (r.Dx() - 40) / 7; len(name) > maxChars {
			name = name[:maxChars-1] + "…"
		}
		text(img, r.Min.X+28, y+10, name, dim)
	}
}

func hasValue(s series) bool {
	for _, v := range s.v {
		if !math.IsNaN(v) {
			return true
		}
	}
	return false
}

// format writes v in the panel's Grafana unit.
func format(v float64, unit string) string {
	switch unit {
	case "bytes":
		return binary(v, "B")
	case "Bps":
		return binary(v, "B/s")
	case "s":
		if math.Abs(v) < 1 && v != 0 {
			return trim(v*1000) + " ms"
		}
		return trim(v) + " s"
	case "percentunit":
		return trim(v*100) + "%"
	case "reqps":
		return si(v) + " req/s"
	}
	return si(v)
}

func binary(v float64, suffix string) string {
	units := []string{"", "Ki", "Mi", "Gi", "Ti"}
	i := 0
	for math.Abs(v) >= 1024 && i < len(units)-1 {
		v /= 1024
		i++
	}
	return trim(v) + " " + units[i] + suffix
}

func si(v float64) string {
	units := []string{"", "K", "M", "G"}
	i := 0
	for math.Abs(v) >= 1000 && i < len(units)-1 {
		v /= 1000
		i++
	}
	return trim(v) + units[i]
}

func trim(v float64) string {
	switch {
	case v == math.Trunc(v):
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 10:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case math.Abs(v) >= 1:
		return strconv.FormatFloat(v, 'f', 1, 64)
	}
	return strconv.FormatFloat(v, 'f', 2, 64)
}

func fill(img *image.RGBA, r image.Rectangle, c color.Color) {
	draw.Draw(img, r, &image.Uniform{c}, image.Point{}, draw.Src)
}

func outline(img *image.RGBA, r image.Rectangle, c color.RGBA) {
	hline(img, r.Min.X, r.Max.X, r.Min.Y, c)
	hline(img, r.Min.X, r.Max.X, r.Max.Y-1, c)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		img.SetRGBA(r.Min.X, y, c)
		img.SetRGBA(r.Max.X-1, y, c)
	}
}

func hline(img *image.RGBA, x0, x1, y int, c color.RGBA) {
	for x := x0; x < x1; x++ {
		img.SetRGBA(x, y, c)
	}
}

// line draws a 2-pixel line (Bresenham, doubled vertically).
func line(img *image.RGBA, x0, y0, x1, y1 int, c color.RGBA) {
	dx, dy := abs(x1-x0), -abs(y1-y0)
	sx, sy := sign(x1-x0), sign(y1-y0)
	e := dx + dy
	for {
		img.SetRGBA(x0, y0, c)
		img.SetRGBA(x0, y0-1, c)
		if x0 == x1 && y0 == y1 {
			return
		}
		e2 := 2 * e
		if e2 >= dy {
			e += dy
			x0 += sx
		}
		if e2 <= dx {
			e += dx
			y0 += sy
		}
	}
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func sign(x int) int {
	switch {
	case x < 0:
		return -1
	case x > 0:
		return 1
	}
	return 0
}

func text(img *image.RGBA, x, y int, s string, c color.Color) {
	d := font.Drawer{Dst: img, Src: &image.Uniform{c}, Face: basicfont.Face7x13, Dot: fixed.P(x, y)}
	d.DrawString(s)
}
