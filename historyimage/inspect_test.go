package historyimage

import (
	"encoding/base64"
	"math/rand/v2"
	"testing"

	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
)

// inspectFlat accepts exactly the base64 encoding/base64 accepts, with the same type and
// dimensions as the streaming inspect: valid data, and data broken at every kind of place
// (a bad character at the start, in the head, past the head, at a chunk boundary, early or
// misplaced padding, a length that is not a multiple of 4).
func TestInspectFlatAgreesWithTheDecoder(t *testing.T) {
	img := testfiles.Screenshot(800, 600, 1)
	good := base64.StdEncoding.EncodeToString(img)
	if len(good) < 5464+2*flatChunk {
		t.Fatalf("the image is %d chars of base64: too short for every case", len(good))
	}
	r := rand.New(rand.NewPCG(1, 2))
	cases := []string{good, good[:len(good)-4], "QUJD", "QQ==", "QUI=", "", "QQ==QUJD", good[:8000] + "=" + good[8001:]}
	for _, i := range []int{0, 5, 5000, 5460, 5464, 5464 + flatChunk/2, 5464 + flatChunk, 5463 + flatChunk, len(good) - 1, len(good) - 3} {
		b := []byte(good)
		b[i] = '*'
		cases = append(cases, string(b))
	}
	for range 200 {
		b := []byte(good)
		b[r.IntN(len(b))] = "+/=A*\x00"[r.IntN(6)]
		cases = append(cases, string(b), string(b[:r.IntN(len(b))]))
	}
	for _, c := range cases {
		_, decErr := base64.StdEncoding.DecodeString(c)
		info, err := inspectFlat([]byte(c))
		if (err == nil) != (decErr == nil) {
			t.Fatalf("%d chars: inspectFlat error %v, decoder error %v", len(c), err, decErr)
		}
		if err == nil && len(c) > 100 {
			// Insert a line break: the streaming path must agree.
			s := c[:76] + "\n" + c[76:]
			sinfo, serr := inspect([]byte(s))
			if serr != nil || sinfo != info {
				t.Fatalf("streaming %+v %v, flat %+v", sinfo, serr, info)
			}
		}
	}
	info, err := inspectFlat([]byte(good))
	if err != nil || info.width != 800 || info.height != 600 || info.mime != "image/png" {
		t.Fatalf("%+v %v", info, err)
	}
}
