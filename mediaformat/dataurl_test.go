package mediaformat_test

import (
	"errors"
	"testing"

	"github.com/agentworks/artifact-worker/mediaformat"
)

func TestCutDataURL(t *testing.T) {
	tests := []struct {
		url, mediaType, data string
		err                  error
	}{
		{"data:image/png;base64,iVBO", "image/png", "iVBO", nil},
		{"DATA:Image/PNG;BASE64,iVBO", "Image/PNG", "iVBO", nil},
		{"data:image/png;charset=x;base64,AA==", "image/png", "AA==", nil},
		{"data:image/png;base64;name=a.png,AA==", "image/png", "AA==", nil},
		{"data: image/png ; base64 ,AA", "image/png", "AA", nil},
		{"data:;base64,AA", "", "AA", nil},
		{"data:image/png;base64,a,b", "image/png", "a,b", nil},
		{"data:image/png,rawtext", "", "", mediaformat.ErrNotBase64},
		{"data:base64,AA", "", "", mediaformat.ErrNotBase64},
		{"data:image/png;base64", "", "", mediaformat.ErrNoComma},
		{"data:image/png;base64,", "", "", mediaformat.ErrNoDataInURL},
		{"https://example.com/a.png", "", "", mediaformat.ErrNotDataURL},
		{"data", "", "", mediaformat.ErrNotDataURL},
	}
	for _, tt := range tests {
		mt, data, err := mediaformat.CutDataURL(tt.url)
		if !errors.Is(err, tt.err) || err == nil && (mt != tt.mediaType || data != tt.data) {
			t.Errorf("CutDataURL(%q) = %q, %q, %v; want %q, %q, %v", tt.url, mt, data, err, tt.mediaType, tt.data, tt.err)
		}
		bmt, bdata, berr := mediaformat.CutDataURL([]byte(tt.url))
		if string(bmt) != mt || string(bdata) != data || berr != err {
			t.Errorf("CutDataURL of []byte(%q) = %q, %q, %v; of the string %q, %q, %v", tt.url, bmt, bdata, berr, mt, data, err)
		}
	}
	if got := mediaformat.ErrNotBase64.Error(); got != "data URL is not base64" {
		t.Errorf("ErrNotBase64 says %q", got)
	}
}

// FuzzCutDataURL: any string splits the same as a string and as bytes, never panics, and the data
// it returns is the tail of the URL after its first comma.
func FuzzCutDataURL(f *testing.F) {
	f.Add("data:image/png;base64,iVBO")
	f.Add("data:image/png;charset=x;base64,AA==")
	f.Add("DATA: image/png ;BASE64;x=y,AA")
	f.Add("data:image/png,raw")
	f.Fuzz(func(t *testing.T, u string) {
		mt, data, err := mediaformat.CutDataURL(u)
		bmt, bdata, berr := mediaformat.CutDataURL([]byte(u))
		if string(bmt) != mt || string(bdata) != data || berr != err {
			t.Fatalf("%q: string %q %q %v, bytes %q %q %v", u, mt, data, err, bmt, bdata, berr)
		}
		if err == nil && (data == "" || len(u) < len(data)+6 || u[len(u)-len(data)-1] != ',' || u[len(u)-len(data):] != data) {
			t.Fatalf("%q: data %q is not the tail after a comma", u, data)
		}
	})
}
