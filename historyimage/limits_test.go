package historyimage_test

import (
	"encoding/base64"
	"encoding/json"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testing/agentsession"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// The media the kept turns would carry are taken out, oldest first, as far as the request must
// stay within the provider's per-request limits; the reply says which and why.
func TestPreprocessKeepsTheRequestWithinItsLimits(t *testing.T) {
	png := func(w, h int) agentsession.Media {
		return agentsession.Media{MIME: "image/png", Base64: base64.StdEncoding.EncodeToString(testfiles.PNG(w, h))}
	}
	pdf := func(page string) agentsession.Media {
		return agentsession.Media{MIME: "application/pdf", Base64: base64.StdEncoding.EncodeToString(testfiles.PDFPage(page)), Filename: "report.pdf"}
	}
	tests := []struct {
		name    string
		dialect string
		media   []agentsession.Media
		limits  contracts.RequestLimits
		out     []int  // the media taken out, by turn
		reason  string // the start of the first reason
	}{
		{"images per request", contracts.DialectAnthropic, []agentsession.Media{png(20, 10), png(21, 10), png(22, 10)},
			contracts.RequestLimits{MaxImages: 2}, []int{0}, "taken out: the request would carry 3 images, over the provider's 2"},
		{"bytes per request", contracts.DialectGemini, []agentsession.Media{png(200, 100), png(201, 100), png(20, 10)},
			contracts.RequestLimits{MaxBytes: 600}, []int{0, 1}, "taken out: the request's media would be"},
		{"image bytes per request", contracts.DialectOpenAIResponses, []agentsession.Media{png(200, 100), png(20, 10)},
			contracts.RequestLimits{MaxImageBytes: 400}, []int{0}, "taken out: the request's images would be"},
		{"PDF pages per request", contracts.DialectAnthropic, []agentsession.Media{pdf("BT (one) Tj ET"), pdf("BT (two) Tj ET"), png(20, 10)},
			contracts.RequestLimits{MaxPDFPages: 1}, []int{0}, "taken out: the request's PDFs would have 2 pages, over the provider's 1"},
		{"many images take smaller ones", contracts.DialectAnthropic, []agentsession.Media{png(2100, 10), png(20, 10), png(21, 10)},
			contracts.RequestLimits{ManyImages: 2, ManyImagesMaxEdge: 2000}, []int{0}, "taken out: a request of more than 2 images takes images of at most 2000 px a side; this one is 2100x10"},
		{"within the limits: nothing", contracts.DialectAnthropic, []agentsession.Media{png(20, 10), png(21, 10)},
			contracts.RequestLimits{MaxImages: 2, MaxBytes: 1 << 20}, nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := agentsession.Build(agentsession.Session{Dialect: tt.dialect, Task: "go", Turns: len(tt.media),
				Media: func(i int) agentsession.Media { return tt.media[i] }})
			p := newMemPutter()
			out, rep, err := historyimage.PreprocessWith(t.Context(), in, p, historyimage.Options{Dialect: tt.dialect, KeepTurns: 100, Limits: tt.limits})
			if err != nil {
				t.Fatal(err)
			}
			if rep.Stats.MediaOverLimits != len(tt.out) || len(rep.OverLimits) != len(tt.out) {
				t.Fatalf("stats %+v, over limits %+v; want %d taken out", rep.Stats, rep.OverLimits, len(tt.out))
			}
			if len(tt.out) > 0 && !strings.HasPrefix(rep.OverLimits[0].Reason, tt.reason) {
				t.Errorf("reason %q, want %q...", rep.OverLimits[0].Reason, tt.reason)
			}
			gone := map[int]bool{}
			for _, i := range tt.out {
				gone[i] = true
			}
			for i, m := range tt.media {
				if strings.Contains(string(out), m.Base64) == gone[i] {
					t.Errorf("medium %d in the output: %v, taken out: %v", i, !gone[i], gone[i])
				}
				if gone[i] && p.images[md5hex(m.Base64)].Data != m.Base64 {
					t.Errorf("medium %d taken out but not cached", i)
				}
			}
			if !json.Valid(out) {
				t.Error("output is not JSON")
			}
		})
	}
}

// Bedrock rejects a request whose document names repeat: the documents that stay get unique names.
func TestPreprocessMakesBedrockDocumentNamesUnique(t *testing.T) {
	doc := func(page string) agentsession.Media {
		return agentsession.Media{MIME: "application/pdf", Base64: base64.StdEncoding.EncodeToString(testfiles.PDFPage(page)), Filename: "report.pdf"}
	}
	media := []agentsession.Media{doc("BT (a) Tj ET"), doc("BT (b) Tj ET"), doc("BT (c) Tj ET")}
	in := agentsession.Build(agentsession.Session{Dialect: contracts.DialectBedrockConverse, Task: "go", Turns: 3,
		Media: func(i int) agentsession.Media { return media[i] }})
	if strings.Count(string(in), `"name":"report"`) != 3 {
		t.Fatalf("the assembly does not name each document report: %.300s", in)
	}
	out, rep, err := historyimage.PreprocessWith(t.Context(), in, newMemPutter(), historyimage.Options{Dialect: contracts.DialectBedrockConverse, KeepTurns: 100})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"name":"report"`, `"name":"report (2)"`, `"name":"report (3)"`} {
		if strings.Count(string(out), want) != 1 {
			t.Errorf("%s: %d times", want, strings.Count(string(out), want))
		}
	}
	if len(rep.OverLimits) != 2 || !strings.Contains(rep.OverLimits[0].Reason, `renamed "report (2)"`) || !strings.HasSuffix(rep.OverLimits[0].Path, ".document.name") {
		t.Errorf("over limits %+v", rep.OverLimits)
	}
	// With the older turns' documents taken out, the one left keeps its name.
	out, rep, err = historyimage.PreprocessWith(t.Context(), in, newMemPutter(), historyimage.Options{Dialect: contracts.DialectBedrockConverse, KeepTurns: 1})
	if err != nil || len(rep.OverLimits) != 0 || strings.Count(string(out), `"name":"report"`) != 1 {
		t.Errorf("%v %+v", err, rep.OverLimits)
	}
}
