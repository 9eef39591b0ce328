package handlers

import (
	"encoding/json"
	"errors"
	"math"
	"reflect"
	"testing"
	"time"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/routing"
)

// encodeResult must produce the same JSON document as json.Marshal of the result type, for every
// media choice: both halves, the route result only (no assembly), the assembly only (no imageUrl/file).
func TestEncodeResultMatchesJSONMarshal(t *testing.T) {
	inputs := []routing.Input{
		{ID: "img", Filename: "a <b>.png", DeclaredMIME: "image/png", Content: testfiles.PNG(8, 8), Capabilities: routing.NewCapabilities("vision"), CreatedAt: time.Unix(1700000000, 0).UTC()},
		{ID: "pdf", Filename: "r.pdf", DeclaredMIME: "application/pdf", Content: testfiles.PDF(), Capabilities: routing.NewCapabilities("file")},
		{ID: "txt", Filename: "t.txt", DeclaredMIME: "text/plain", Content: []byte("héllo \"quoted\" <tag> & \u2028")},
		{ID: "zip", Filename: "z.zip", Content: testfiles.ZIP(), Locale: "en"},
	}
	for _, in := range inputs {
		for _, dialect := range contracts.Dialects {
			for _, media := range []string{contracts.MediaBoth, contracts.MediaResult, contracts.MediaAssembly} {
				res := routing.Route(in)
				f := routing.Formats{} // with and without the provider's per-request limits
				if in.ID != "pdf" {
					f = routing.DefaultFormats()
					f.Request = contracts.RequestLimits{MaxImages: 100, MaxBytes: 32 << 20, MaxPDFPages: 100}
				}
				asm := routing.Assemble(res, dialect, in.Locale, f)
				usage := routing.EstimateUsage(res, dialect, f)
				var model *contracts.ModelDecision // with and without the registry's decision
				if in.ID != "txt" {
					model = &contracts.ModelDecision{DecidedBy: contracts.DecidedByRegistry, Entry: "claude-3-5-sonnet-20240620", Provider: "anthropic", ServedBy: "bedrock", Source: "catalogue"}
				}
				got, err := encodeResult(res, usage, asm, media, model)
				if err != nil {
					t.Fatal(err)
				}
				wantRes := contracts.GetArtifactResult{ContentRouteResult: res, Usage: usage, Assembly: asm, Model: model}
				switch media {
				case contracts.MediaResult:
					wantRes.Assembly = contracts.Assembly{}
				case contracts.MediaAssembly:
					wantRes.ImageURL, wantRes.File = nil, nil
				}
				want, _ := json.Marshal(wantRes)
				var g, w any
				if err := json.Unmarshal(got, &g); err != nil {
					t.Fatalf("%s/%s/%s: invalid JSON: %v\n%s", in.ID, dialect, media, err, got)
				}
				_ = json.Unmarshal(want, &w)
				if !reflect.DeepEqual(g, w) {
					t.Fatalf("%s/%s/%s:\n got %s\nwant %s", in.ID, dialect, media, got, want)
				}
			}
		}
	}
}

// A result json.Marshal refuses (a NaN confidence) is an error that says why and wraps
// encoding/json's, for every media choice: never "encode result: <nil>" or a half-written reply.
func TestEncodeResultError(t *testing.T) {
	res := contracts.ContentRouteResult{ContentType: "text", Routing: contracts.RouteText, Metadata: contracts.ArtifactMetadata{Confidence: math.NaN()}}
	for _, media := range []string{contracts.MediaBoth, contracts.MediaResult, contracts.MediaAssembly} {
		got, err := encodeResult(res, contracts.Usage{}, routing.AssembleText("", contracts.DialectOpenAIChat), media, nil)
		var uv *json.UnsupportedValueError
		if got != nil || !errors.As(err, &uv) || err.Error() != "encode result: json: unsupported value: NaN" {
			t.Errorf("%s: encodeResult = %q, %v; want nil and a wrapped *json.UnsupportedValueError", media, got, err)
		}
	}
}

// encodePreprocess must produce the same JSON document as json.Marshal of the result type.
func TestEncodePreprocessMatchesJSONMarshal(t *testing.T) {
	stats := contracts.PreprocessStats{ImagesReplaced: 2, BytesRemoved: 1234, TokensSavedEstimate: 56, CacheFailures: 1, PartsSkipped: 3, FilesReplaced: 1, MediaDescribed: 1}
	left := []contracts.LeftAlonePart{{Path: "messages[0].content[1]", Reason: "base64 data does not decode"}}
	for i, msgs := range []string{`[]`, `[["human","a <b> & \u2028"],{"role":"ai","content":[{"type":"text","text":"x"}]}]`, "[ {\"role\" : \"user\",\n \"content\": \"hi\" } ]"} {
		rep := historyimage.Report{Stats: stats}
		if i == 1 {
			rep.LeftAlone = left
		}
		got, err := encodePreprocess(json.RawMessage(msgs), rep)
		if err != nil {
			t.Fatal(err)
		}
		want, _ := json.Marshal(contracts.PreprocessResult{Messages: json.RawMessage(msgs), Stats: stats, LeftAlone: rep.LeftAlone})
		var g, w any
		if err := json.Unmarshal(got, &g); err != nil {
			t.Fatalf("invalid JSON: %v\n%s", err, got)
		}
		_ = json.Unmarshal(want, &w)
		if !reflect.DeepEqual(g, w) {
			t.Fatalf("\n got %s\nwant %s", got, want)
		}
	}
}
