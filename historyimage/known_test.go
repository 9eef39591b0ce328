package historyimage

import (
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

type countingPutter struct{ n int }

func (p *countingPutter) Put(context.Context, string, Image) error { p.n++; return nil }

func md5Of(s string) string {
	sum := md5.Sum([]byte(s))
	return hex.EncodeToString(sum[:])
}

func TestKnownForgetsTheOldestFirst(t *testing.T) {
	k := NewKnown(2)
	k.add("a", 1, imageInfo{mime: "image/png"})
	k.add("b", 1, imageInfo{mime: "image/gif"})
	k.add("b", 1, imageInfo{mime: "image/gif"}) // again: no new slot
	if _, ok := k.get("a", 1); !ok {
		t.Fatal("a forgotten too early")
	}
	k.add("c", 1, imageInfo{mime: "image/webp"})
	if _, ok := k.get("a", 1); ok {
		t.Error("a not forgotten")
	}
	for _, id := range []string{"b", "c"} {
		if _, ok := k.get(id, 1); !ok {
			t.Errorf("%s forgotten", id)
		}
	}
	if _, ok := k.get("b", 2); ok {
		t.Error("another length is another medium")
	}
	var none *Known
	none.add("a", 1, imageInfo{})
	if _, ok := none.get("a", 1); ok {
		t.Error("a nil Known remembers")
	}
}

// A known medium skips the decoding, not the checks that depend on the part: the same bytes
// declared as a document are still left alone.
func TestKnownKeepsThePartChecks(t *testing.T) {
	png := base64.StdEncoding.EncodeToString(testfiles.PNG(20, 10))
	k := NewKnown(8)
	older := `,{"role":"assistant","content":"x"},{"role":"user","content":"last"}]`
	img := `[{"role":"user","content":[{"type":"image","source":{"type":"base64","media_type":"image/png","data":"` + png + `"}}]}` + older
	doc := `[{"role":"user","content":[{"type":"document","source":{"type":"base64","media_type":"application/pdf","data":"` + png + `"}}]}` + older
	opts := Options{Dialect: contracts.DialectAnthropic, KeepTurns: 1, Known: k}
	p := &countingPutter{}
	first, rep1, err := PreprocessWith(t.Context(), json.RawMessage(img), p, opts)
	if err != nil || rep1.Stats.ImagesReplaced != 1 {
		t.Fatalf("%v %+v", err, rep1.Stats)
	}
	if _, ok := k.get(md5Of(png), len(png)); !ok {
		t.Fatal("not remembered")
	}
	second, rep2, err := PreprocessWith(t.Context(), json.RawMessage(img), p, opts)
	if err != nil || string(second) != string(first) || rep2.Stats != rep1.Stats || p.n != 2 {
		t.Fatalf("again: %v %+v, %d puts", err, rep2.Stats, p.n)
	}
	_, rep3, err := PreprocessWith(t.Context(), json.RawMessage(doc), p, opts)
	if err != nil || len(rep3.LeftAlone) != 1 || rep3.LeftAlone[0].Reason != "declared application/pdf, but its bytes are image/png" {
		t.Fatalf("%v %+v", err, rep3.LeftAlone)
	}
}
