package service_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/url"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/schematest"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/service"
)

// TestOneAnswerToWhatIsThisFile: tool.get_artifact, artifact.metadata, GET /artifacts/{id}/metadata
// and GET /artifacts/{id}/content agree on what a file is; bytes that contradict the declared type
// are reported and served as what they are.
func TestOneAnswerToWhatIsThisFile(t *testing.T) {
	w := startWorker(t, func(c *service.Config) { c.MaxArtifactSize = 64 << 10 })
	png := testfiles.PNG(16, 16)
	type file = struct {
		id, declared, name string
		data               []byte
		want               string
	}
	files := []file{
		{"png-as-text", "text/plain", "looks-like.txt", png, "image/png"},
		{"pdf-as-png", "image/png", "chart.png", testfiles.PDF(), "application/pdf"},
		{"text-as-pdf", "application/pdf", "notes.pdf", []byte("just some notes\n"), "text/plain"},
		{"elf-as-png", "image/png", "x.png", testfiles.ELF(), "application/x-executable"},
		{"honest-jpeg", "image/jpeg", "photo.jpg", testfiles.JPEG(8, 8), "image/jpeg"},
		// Over MaxSize: not downloaded by anyone, the declaration stands everywhere.
		{"big-png-as-text", "text/plain", "big.txt", append(bytes.Clone(png), make([]byte, 80<<10)...), "text/plain"},
	}
	for _, f := range files {
		w.PutArtifact(f.id, f.declared, f.name, f.data)
	}
	rep, ws := fileWritten(t, w, contracts.FileWrittenRequest{WorkspaceID: "w1", Path: "img/logo.txt", MimeType: "text/plain", ContentBase64: ptr(base64.StdEncoding.EncodeToString(png))})
	if !rep.OK {
		t.Fatalf("file_written: %+v", rep.Error)
	}
	files = append(files, file{ws.ArtifactID, "text/plain", "logo.txt", png, "image/png"})

	base := "http://" + w.Svc.HTTPAddr() + "/artifacts/"
	for _, f := range files {
		t.Run(f.id, func(t *testing.T) {
			rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: f.id, ServiceID: "text-model"})
			if !rep.OK || res.Metadata.MimeType != f.want {
				t.Fatalf("get_artifact: %+v mimeType %q, want %q", rep.Error, res.Metadata.MimeType, f.want)
			}
			rep = w.Call(contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "m-" + randomHex(6), ID: f.id})
			var info contracts.ArtifactInfo
			if err := json.Unmarshal(rep.Result, &info); !rep.OK || err != nil {
				t.Fatalf("artifact.metadata: %+v %v", rep.Error, err)
			}
			if info.MimeType != f.want || info.Type != f.want {
				t.Errorf("artifact.metadata: mimeType %q type %q, want %q (as get_artifact)", info.MimeType, info.Type, f.want)
			}
			resp, err := http.Get(base + url.PathEscape(f.id) + "/metadata")
			if err != nil {
				t.Fatal(err)
			}
			var httpInfo contracts.ArtifactInfo
			raw, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if err == nil {
				err = json.Unmarshal(raw, &httpInfo)
			}
			// The endpoint serves artifact.metadata's result: the same schema.
			if err := schematest.Validate(schematest.ResultSchema(contracts.SubjectMetadata), raw); err != nil {
				t.Errorf("GET metadata does not match the published schema: %v", err)
			}
			if err != nil || httpInfo.MimeType != f.want || httpInfo.Type != f.want {
				t.Errorf("GET metadata: %v mimeType %q type %q, want %q", err, httpInfo.MimeType, httpInfo.Type, f.want)
			}
			resp, err = http.Get(base + url.PathEscape(f.id) + "/content")
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != f.want || !bytes.Equal(body, f.data) {
				t.Errorf("GET content: %d Content-Type %q, %d bytes; want %q and the %d stored bytes", resp.StatusCode, resp.Header.Get("Content-Type"), len(body), f.want, len(f.data))
			}
		})
	}
}
