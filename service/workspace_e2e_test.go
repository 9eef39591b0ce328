package service_test

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
	"github.com/agentworks/artifact-worker/workspace"
)

func fileWritten(t *testing.T, w *servicetest.Worker, req contracts.FileWrittenRequest) (contracts.Reply, contracts.FileWrittenResult) {
	t.Helper()
	if req.RequestID == "" {
		req.RequestID = "fw-" + randomHex(8)
	}
	rep := w.Call(contracts.SubjectFileWritten, req)
	var res contracts.FileWrittenResult
	if rep.OK {
		if err := json.Unmarshal(rep.Result, &res); err != nil {
			t.Fatal(err)
		}
	}
	return rep, res
}

func ptr(s string) *string { return &s }

func TestWorkspaceFlow(t *testing.T) {
	const token = "s3cret"
	w := startWorker(t, func(c *service.Config) { c.HTTPToken = token })
	png := testfiles.PNG(40, 30)
	src := "export const answer = 42; // 答案\n"

	// Write a JS file inline, a PNG inline as base64, and announce a pre-uploaded PDF.
	rep, js := fileWritten(t, w, contracts.FileWrittenRequest{WorkspaceID: "ws-1", Path: `src\app.js`, MimeType: "text/javascript", AgentID: "coder", MessageID: "m1", Content: ptr(src)})
	if !rep.OK || !js.OK || js.Path != "src/app.js" {
		t.Fatalf("file_written js: %+v %+v", rep.Error, js)
	}
	wantID, _ := workspace.EncodeID("ws-1", "src/app.js")
	if js.ArtifactID != wantID {
		t.Fatalf("artifactId = %q, want %q", js.ArtifactID, wantID)
	}
	rep, img := fileWritten(t, w, contracts.FileWrittenRequest{WorkspaceID: "ws-1", Path: "out/图 1.png", MimeType: "image/png", AgentID: "painter", ContentBase64: ptr(base64.StdEncoding.EncodeToString(png))})
	if !rep.OK {
		t.Fatalf("file_written png: %+v", rep.Error)
	}
	pdf := testfiles.PDF()
	if _, err := w.Store.Put(t.Context(), objectstore.WorkspaceKey("ws-1", "docs/spec.pdf"), bytes.NewReader(pdf), int64(len(pdf)), "application/pdf", nil); err != nil {
		t.Fatal(err)
	}
	rep, doc := fileWritten(t, w, contracts.FileWrittenRequest{WorkspaceID: "ws-1", Path: "docs/spec.pdf", MimeType: "application/pdf", AgentID: "writer"})
	if !rep.OK {
		t.Fatalf("file_written pre-uploaded: %+v", rep.Error)
	}

	t.Run("read back through get_artifact", func(t *testing.T) {
		_, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: js.ArtifactID, ServiceID: "text-model"})
		if res.Routing != "text" || res.Content != src {
			t.Fatalf("js file: %s %q", res.Routing, res.Content)
		}
		if res.Metadata.WorkspaceID != "ws-1" || res.Metadata.RelativePath != "src/app.js" || res.Metadata.Filename != "app.js" {
			t.Errorf("metadata = %+v", res.Metadata)
		}
		_, res = getArtifact(t, w, contracts.GetArtifactRequest{Ref: img.ArtifactID, ServiceID: "vision-model"})
		if res.Routing != "image_url" || res.ImageURL.ImageURL.URL != "data:image/png;base64,"+base64.StdEncoding.EncodeToString(png) {
			t.Fatalf("png for a vision model: %s", res.Routing)
		}
		_, res = getArtifact(t, w, contracts.GetArtifactRequest{Ref: img.ArtifactID, ServiceID: "text-model"})
		if res.Routing != "text" || !strings.Contains(res.Content, "图 1.png") || !strings.Contains(res.Content, "PNG") {
			t.Fatalf("png for a text model: %s %q", res.Routing, res.Content)
		}
		// The description names the file as artifact:ws:...; that ref reads it too.
		shown := "artifact:" + img.ArtifactID
		if !strings.Contains(res.Content, "("+shown+")") {
			t.Fatalf("description %q does not name %s", res.Content, shown)
		}
		if rep, again := getArtifact(t, w, contracts.GetArtifactRequest{Ref: shown, ServiceID: "vision-model"}); !rep.OK || again.Routing != "image_url" {
			t.Fatalf("the ref shown to the model does not read the file: %+v", rep.Error)
		}
		_, res = getArtifact(t, w, contracts.GetArtifactRequest{Ref: doc.ArtifactID, ServiceID: "vision-model"})
		if res.Routing != "file" || res.File.File.Data != base64.StdEncoding.EncodeToString(pdf) {
			t.Fatalf("pdf: %s", res.Routing)
		}
	})

	t.Run("metadata over NATS", func(t *testing.T) {
		rep := w.Call(contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "md1", ID: js.ArtifactID})
		if !rep.OK {
			t.Fatalf("%+v", rep.Error)
		}
		var info contracts.ArtifactInfo
		_ = json.Unmarshal(rep.Result, &info)
		if info.ID != js.ArtifactID || info.Name != "app.js" || info.Type != "text/javascript" || info.MimeType != "text/javascript" ||
			info.Meta.WorkspaceID != "ws-1" || info.Meta.RelativePath != "src/app.js" || len(info.Meta.ModifiedBy) != 1 ||
			info.Meta.ModifiedBy[0].AgentID != "coder" || info.Meta.ModifiedBy[0].MessageID != "m1" || info.CreatedAt.IsZero() {
			t.Fatalf("metadata = %+v", info)
		}
	})

	t.Run("metadata has the workspace-ID design's shape", func(t *testing.T) {
		rep := w.Call(contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "md004", ID: js.ArtifactID})
		if !rep.OK {
			t.Fatalf("%+v", rep.Error)
		}
		// the workspace-ID design's example response: id, type (the MIME type), name, createdAt, updatedAt,
		// meta {filename, workspaceId, relativePath, modifiedBy [{agentId, timestamp, messageId}]},
		// mimeType.
		var got map[string]any
		if err := json.Unmarshal(rep.Result, &got); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"id", "type", "name", "createdAt", "updatedAt", "meta", "mimeType"} {
			if _, ok := got[k]; !ok {
				t.Errorf("metadata lacks the workspace-ID design's %q: %s", k, rep.Result)
			}
		}
		if got["type"] != "text/javascript" || got["mimeType"] != "text/javascript" {
			t.Errorf("type/mimeType = %v/%v, want the workspace-ID design's \"text/javascript\" for both", got["type"], got["mimeType"])
		}
		meta, _ := got["meta"].(map[string]any)
		mods, _ := meta["modifiedBy"].([]any)
		if meta["filename"] != "app.js" || meta["workspaceId"] != "ws-1" || meta["relativePath"] != "src/app.js" || len(mods) != 1 {
			t.Fatalf("meta = %v", meta)
		}
		mod, _ := mods[0].(map[string]any)
		if mod["agentId"] != "coder" || mod["messageId"] != "m1" || mod["timestamp"] == nil {
			t.Errorf("modifiedBy[0] = %v", mod)
		}
	})

	t.Run("metadata and content over HTTP", func(t *testing.T) {
		base := "http://" + w.Svc.HTTPAddr() + "/artifacts/"
		get := func(url, tok string) *http.Response {
			req, _ := http.NewRequest("GET", url, nil)
			if tok != "" {
				req.Header.Set("Authorization", "Bearer "+tok)
			}
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { resp.Body.Close() })
			return resp
		}
		if resp := get(base+img.ArtifactID+"/metadata", ""); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("without token: %d", resp.StatusCode)
		}
		if resp := get(base+img.ArtifactID+"/metadata", "wrong"); resp.StatusCode != http.StatusUnauthorized {
			t.Fatalf("wrong token: %d", resp.StatusCode)
		}
		resp := get(base+img.ArtifactID+"/metadata", token)
		var info contracts.ArtifactInfo
		if err := json.NewDecoder(resp.Body).Decode(&info); err != nil || resp.StatusCode != 200 || info.Type != "image/png" || info.Meta.Filename != "图 1.png" {
			t.Fatalf("http metadata %d: %+v %v", resp.StatusCode, info, err)
		}
		resp = get(base+img.ArtifactID+"/content", token)
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 200 || !bytes.Equal(body, png) || resp.Header.Get("Content-Type") != "image/png" ||
			!strings.HasPrefix(resp.Header.Get("Content-Disposition"), "attachment;") {
			t.Fatalf("http content %d %q %q (%d bytes)", resp.StatusCode, resp.Header.Get("Content-Type"), resp.Header.Get("Content-Disposition"), len(body))
		}
		if resp := get(base+"ws:ws-1:bm9wZQ/metadata", token); resp.StatusCode != http.StatusNotFound {
			t.Errorf("missing file: %d", resp.StatusCode)
		}
		if resp := get(base+"ws:bad%20id:eA/content", token); resp.StatusCode != http.StatusBadRequest {
			t.Errorf("invalid id: %d", resp.StatusCode)
		}
	})
}

func mustID(t *testing.T, ws, p string) string {
	id, err := workspace.EncodeID(ws, p)
	if err != nil {
		t.Fatal(err)
	}
	return id
}

func TestWorkspaceErrors(t *testing.T) {
	w := startWorker(t)
	traversal := "ws:a:" + base64.RawURLEncoding.EncodeToString([]byte("../b/secret"))
	w.PutArtifact("x", "text/plain", "x", []byte("x"))
	if _, err := w.Store.Put(t.Context(), "workspaces/b/secret", strings.NewReader("top secret"), 10, "text/plain", nil); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name string
		req  contracts.FileWrittenRequest
		code string
	}{
		{"missing mime type", contracts.FileWrittenRequest{WorkspaceID: "a", Path: "f.txt", Content: ptr("x")}, contracts.CodeMissingMimeType},
		{"file not in the store", contracts.FileWrittenRequest{WorkspaceID: "a", Path: "nope.txt", MimeType: "text/plain"}, contracts.CodeFileNotFound},
		{"path escapes the workspace", contracts.FileWrittenRequest{WorkspaceID: "a", Path: "../b/secret", MimeType: "text/plain", Content: ptr("x")}, contracts.CodePathTraversalBlocked},
		{"absolute path", contracts.FileWrittenRequest{WorkspaceID: "a", Path: "/etc/passwd", MimeType: "text/plain", Content: ptr("x")}, contracts.CodePathTraversalBlocked},
		{"control character in path", contracts.FileWrittenRequest{WorkspaceID: "a", Path: "a\x00b", MimeType: "text/plain", Content: ptr("x")}, contracts.CodeInvalidPath},
		{"empty path", contracts.FileWrittenRequest{WorkspaceID: "a", MimeType: "text/plain", Content: ptr("x")}, contracts.CodeInvalidRequest},
		{"bad workspace id", contracts.FileWrittenRequest{WorkspaceID: "a/b", Path: "f", MimeType: "text/plain", Content: ptr("x")}, contracts.CodeInvalidRequest},
		{"bad base64", contracts.FileWrittenRequest{WorkspaceID: "a", Path: "f", MimeType: "text/plain", ContentBase64: ptr("!!!")}, contracts.CodeInvalidRequest},
		{"both contents", contracts.FileWrittenRequest{WorkspaceID: "a", Path: "f", MimeType: "text/plain", Content: ptr("x"), ContentBase64: ptr("eA==")}, contracts.CodeInvalidRequest},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			rep, _ := fileWritten(t, w, c.req)
			if rep.OK || rep.Error.Code != c.code {
				t.Fatalf("reply = %+v, want %s", rep.Error, c.code)
			}
		})
	}
	reads := []struct{ name, ref, code string }{
		{"traversal inside a ws: id never reads workspace b", traversal, contracts.CodePathTraversalBlocked},
		{"malformed ws: id", "ws:only-one-part", contracts.CodeInvalidArtifactID},
		{"bad base64 in ws: id", "ws:a:***", contracts.CodeInvalidArtifactID},
		{"missing workspace file", mustID(t, "a", "missing.txt"), contracts.CodeArtifactNotFound},
	}
	for _, c := range reads {
		t.Run(c.name, func(t *testing.T) {
			rep, res := getArtifact(t, w, contracts.GetArtifactRequest{Ref: c.ref, ServiceID: "text-model"})
			if rep.OK || rep.Error.Code != c.code {
				t.Fatalf("get_artifact = %+v %q, want %s", rep.Error, res.Content, c.code)
			}
			rep = w.Call(contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "m-" + randomHex(4), ID: c.ref})
			if rep.OK || rep.Error.Code != c.code {
				t.Fatalf("metadata = %+v, want %s", rep.Error, c.code)
			}
		})
	}
}

// 100 concurrent file_written events for one file, handled by two workers sharing NATS and the
// bucket, leave exactly 100 modifiedBy entries and the latest updatedAt.
func TestWorkspaceConcurrentWritesFromTwoReplicas(t *testing.T) {
	a := startWorker(t, func(c *service.Config) { c.Concurrency = 8 })
	b := servicetest.StartReplica(t, minio, a, func(c *service.Config) { c.Concurrency = 8 })
	const n = 100
	var wg sync.WaitGroup
	errs := make(chan error, n)
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			req := contracts.FileWrittenRequest{RequestID: fmt.Sprintf("c-%03d", i), WorkspaceID: "shared", Path: "log.txt",
				MimeType: "text/plain", AgentID: fmt.Sprintf("agent-%d", i%7), MessageID: fmt.Sprintf("msg-%03d", i), Content: ptr(fmt.Sprintf("write %d", i))}
			rep := a.Call(contracts.SubjectFileWritten, req)
			if !rep.OK {
				errs <- fmt.Errorf("%s: %+v", req.RequestID, rep.Error)
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	rep := b.Call(contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "final", ID: mustID(t, "shared", "log.txt")})
	var info contracts.ArtifactInfo
	if err := json.Unmarshal(rep.Result, &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Meta.ModifiedBy) != n {
		t.Fatalf("modifiedBy has %d entries, want %d", len(info.Meta.ModifiedBy), n)
	}
	seen := map[string]bool{}
	latest := info.Meta.ModifiedBy[0].Timestamp
	for _, m := range info.Meta.ModifiedBy {
		seen[m.MessageID] = true
		if m.Timestamp.After(latest) {
			latest = m.Timestamp
		}
	}
	if len(seen) != n {
		t.Fatalf("%d distinct message ids, want %d", len(seen), n)
	}
	if !info.UpdatedAt.Equal(latest) {
		t.Fatalf("updatedAt %s, want the latest write %s", info.UpdatedAt, latest)
	}
	for _, w := range []*servicetest.Worker{a, b} {
		if !strings.Contains(w.Logs.String(), `"subject":"workspace.file_written"`) {
			t.Errorf("a replica handled no file_written event: both should share the work")
		}
	}
}

// A file_written event asked again (a caller that lost its reply stores the same request under a
// new Nats-Msg-Id, "<request_id>.again-<n>") is answered with the first reply and writes nothing:
// the worker logs the first as ok and the second as replayed, and the file keeps the first write.
func TestFileWrittenAskedAgainWritesOnce(t *testing.T) {
	w := startWorker(t)
	body, _ := json.Marshal(contracts.FileWrittenRequest{RequestID: "fw-once", WorkspaceID: "ws-once", Path: "a.txt", MimeType: "text/plain",
		AgentID: "coder", MessageID: "m1", Content: ptr("once")})
	inbox := w.Conn.NewInbox()
	sub, err := w.Conn.SubscribeSync(inbox)
	if err != nil {
		t.Fatal(err)
	}
	var replies []string
	for _, msgID := range []string{"fw-once", "fw-once.again-1"} {
		msg := &nats.Msg{Subject: contracts.SubjectFileWritten, Data: body, Header: nats.Header{}}
		msg.Header.Set(contracts.HeaderMsgID, msgID)
		msg.Header.Set(contracts.HeaderReplyTo, inbox)
		js, _ := jetstream.New(w.Conn)
		if _, err := js.PublishMsg(t.Context(), msg); err != nil {
			t.Fatal(err)
		}
		rep, err := sub.NextMsg(30 * time.Second)
		if err != nil {
			t.Fatalf("no reply to %s: %v", msgID, err)
		}
		replies = append(replies, string(rep.Data))
	}
	if !strings.Contains(replies[0], `"ok":true`) || replies[1] != replies[0] {
		t.Fatalf("replies %s and %s, want the first one twice", replies[0], replies[1])
	}
	servicetest.WaitFor(t, 10*time.Second, "the ask again logged as replayed", func() bool {
		return strings.Contains(w.Logs.String(), `"request_id":"fw-once","outcome":"replayed"`)
	})
	if n := strings.Count(w.Logs.String(), `"request_id":"fw-once","outcome":"ok"`); n != 1 {
		t.Fatalf("fw-once ran %d times, want once", n)
	}
	var first contracts.FileWrittenResult
	var env contracts.Reply
	if err := json.Unmarshal([]byte(replies[0]), &env); err != nil || json.Unmarshal(env.Result, &first) != nil {
		t.Fatalf("reply %s: %v", replies[0], err)
	}
	rep := w.Call(contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "fw-once-meta", ID: first.ArtifactID})
	var info contracts.ArtifactInfo
	if err := json.Unmarshal(rep.Result, &info); err != nil {
		t.Fatal(err)
	}
	if len(info.Meta.ModifiedBy) != 1 || !info.UpdatedAt.Equal(info.Meta.ModifiedBy[0].Timestamp) {
		t.Fatalf("metadata after the ask again: updatedAt %s, modifiedBy %+v, want the one first write", info.UpdatedAt, info.Meta.ModifiedBy)
	}
}
