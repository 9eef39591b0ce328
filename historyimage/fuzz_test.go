package historyimage_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/historyimage"
)

// FuzzPreprocess feeds arbitrary bytes to the context parser, in every dialect (and none), with a
// window, a per-request limit and a target that cannot read documents. Invariants: no panic; an error is always
// an *InvalidContextError; a result is valid JSON with as many messages as the input, and is the input
// itself when nothing was replaced.
func FuzzPreprocess(f *testing.F) {
	small := fakePNG(7, 4, 4, 64)
	seeds := []string{
		``, `[]`, `null`, `{}`, `"x"`, `[1]`, `[[]]`, `[["human"]]`, `[{"content":1}]`,
		`[["human","hi"],["ai","yo"],["human","bye"]]`,
		`[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,` + small + `"}}]],["ai","x"],["human","y"]]`,
		`[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + small + `"}}]},{"role":"user","content":"z"}]`,
		`[["user",[{"type":"image","source_type":"base64","data":"` + small + `","mime_type":"image/png"},{"type":"image","base64":"QUJD","mime_type":"x"}]],["human",""]]`,
		`[["human",[{"type":"image_url","image_url":"data:,x"}]],["human",""]]`,
		`[["human",[{"type":"image_url","image_url":{"url":"data:image/png;base64,QU\/D"}}]],["human",""]]`,
		` [ {"role" : "user", "content" : [ {"type":"image","source":{"type":"base64","data":"QUJD"}} ] } , ["human", null] ] `,
		`[{"role":"user","content":[{"type":"tool_result","content":[]}]}]`,
		`[{"ro\u006ce":"user","content":[{"typ\u0065":"image_url","image_url":{"url":"data:;base64,QUJD"}}]},["user",""]]`,
	}
	seeds = append(seeds,
		`[{"role":"user","parts":[{"functionResponse":{"id":"c","name":"n","response":{},"parts":[{"inlineData":{"mimeType":"image/png","data":"`+small+`"}}]}}]},{"role":"model","parts":[{"text":"k"}]},{"role":"user","parts":[{"text":"z"}]}]`,
		`[{"role":"user","content":[{"toolResult":{"toolUseId":"t","content":[{"document":{"format":"pdf","name":"a","source":{"bytes":"QUJD"}}},{"image":{"format":"png","source":{"bytes":"`+small+`"}}}]}}]},{"role":"assistant","content":[{"text":"k"}]},{"role":"user","content":[{"text":"z"}]}]`,
		`[{"type":"function_call_output","call_id":"c","output":[{"type":"input_image","image_url":"data:image/png;base64,`+small+`"}]},{"type":"function_call","call_id":"d","name":"n","arguments":"{}"},{"role":"user","content":"z"}]`,
		`[{"role":"tool","tool_call_id":"c","content":[{"type":"image","data":"`+small+`","mimeType":"image/png"}]},{"role":"assistant","content":"k"},{"role":"user","content":"z"}]`,
	)
	for _, s := range seeds {
		for _, d := range append([]string{""}, contracts.Dialects...) {
			f.Add([]byte(s), d, uint8(1))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, dialect string, keep uint8) {
		orig := bytes.Clone(in)
		opts := historyimage.Options{Dialect: dialect, KeepTurns: int(keep % 4), Limits: contracts.RequestLimits{MaxImages: 1},
			Readable: func(kind string) bool { return kind != contracts.BinaryDocument },
			Describe: func(d historyimage.Described) string { return d.Placeholder + " <\"described\">" }}
		if dialect != "" && !slices.Contains(contracts.Dialects, dialect) {
			opts.Dialect = ""
		}
		out, rep, err := historyimage.PreprocessWith(t.Context(), in, noopPutter{}, opts)
		stats := rep.Stats
		if !bytes.Equal(in, orig) {
			t.Fatalf("Preprocess modified its input")
		}
		if err != nil {
			var ice *historyimage.InvalidContextError
			if !errors.As(err, &ice) {
				t.Fatalf("error %v is not an *InvalidContextError", err)
			}
			return
		}
		if !json.Valid(out) {
			t.Fatalf("output is not valid JSON: %q", out)
		}
		var before, after []json.RawMessage
		if err := json.Unmarshal(in, &before); err != nil {
			t.Fatalf("accepted input is not a JSON list: %v", err)
		}
		if err := json.Unmarshal(out, &after); err != nil || len(after) != len(before) {
			t.Fatalf("output has %d messages (%v), input %d", len(after), err, len(before))
		}
		if stats.ImagesReplaced+stats.FilesReplaced == 0 && len(rep.OverLimits) == 0 && !bytes.Equal(out, in) {
			t.Fatalf("nothing replaced but output differs:\n in %q\nout %q", in, out)
		}
		if stats.CacheFailures != 0 {
			t.Fatalf("cache failures %d with a cache that cannot fail", stats.CacheFailures)
		}
	})
}
