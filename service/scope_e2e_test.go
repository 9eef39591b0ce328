package service_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// scopedCall sends body on subject with the scope header (none when scope is "") through the Go
// client (the JetStream path) and returns the reply envelope as JSON, request_id removed, so that
// two answers compare byte for byte.
func scopedCall(t *testing.T, w *servicetest.Worker, scope, subject string, body map[string]any) (contracts.Reply, string) {
	t.Helper()
	body["request_id"] = "sc-" + randomHex(8)
	raw, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(client.WithScope(context.Background(), scope), 90*time.Second)
	defer cancel()
	out, err := w.Client.CallRaw(ctx, subject, raw)
	if err != nil {
		t.Fatalf("call %s: %v", subject, err)
	}
	w.CheckReply(subject, out)
	return envelopeOf(t, out)
}

// plainScopedCall is scopedCall on the plain request/reply path (a core NATS request).
func plainScopedCall(t *testing.T, w *servicetest.Worker, scope, subject string, body map[string]any) (contracts.Reply, string) {
	t.Helper()
	body["request_id"] = "ps-" + randomHex(8)
	raw, _ := json.Marshal(body)
	msg := &nats.Msg{Subject: contracts.RequestReplySubject(subject), Data: raw, Header: nats.Header{}}
	if scope != "" {
		msg.Header.Set(contracts.HeaderScope, scope)
	}
	rep, err := w.Conn.RequestMsg(msg, 60*time.Second)
	if err != nil {
		t.Fatalf("request %s: %v", subject, err)
	}
	return envelopeOf(t, rep.Data)
}

func envelopeOf(t *testing.T, out []byte) (contracts.Reply, string) {
	t.Helper()
	var rep contracts.Reply
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("reply: %v: %.200s", err, out)
	}
	var generic map[string]any
	_ = json.Unmarshal(out, &generic)
	delete(generic, "request_id")
	norm, _ := json.Marshal(generic)
	return rep, string(norm)
}

// TestScope: with REQUIRE_SCOPE, a caller scoped to workspace team-a and artifacts "a-*" reads its
// own, and every read of team-b's files and of other artifacts — get_artifact, artifact.metadata,
// on the JetStream and the plain path, claim-checked, in the artifact:ws: spelling, over HTTP with a
// team-a token — is answered byte for byte as the same reference is answered once it truly does not
// exist; writes into team-b are refused and store nothing; history images cached under one scope
// are not found under another, answered as an image never cached. Refusals are counted and logged;
// a malformed or missing header is invalid_request.
func TestScope(t *testing.T) {
	const teamA, teamB = "ws:team-a,artifact:a-*", "ws:team-b"
	panelToken, adminToken := "panel-token-team-a-"+randomHex(8), "admin-token-"+randomHex(8)
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte("# chat panel of team-a\n"+panelToken+" "+teamA+"\n"+adminToken+" *\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w := startWorker(t, func(c *service.Config) { c.RequireScope = true; c.HTTPTokensFile = tokens })

	w.PutArtifact("a-report", "text/plain", "report.txt", []byte("team a's report"))
	w.PutArtifact("b-secret", "text/plain", "secret.txt", []byte("team b's secret"))
	write := func(scope, ws, path, content string) contracts.Reply {
		rep, _ := scopedCall(t, w, scope, contracts.SubjectFileWritten, map[string]any{"workspace_id": ws, "path": path, "mime_type": "text/markdown", "content": content, "agent_id": "agent"})
		return rep
	}
	if rep := write(teamA, "team-a", "notes.md", "# team a"); !rep.OK {
		t.Fatalf("write inside the scope: %+v", rep.Error)
	}
	if rep := write(teamB, "team-b", "secrets/plan.md", "# the plan"); !rep.OK {
		t.Fatalf("team-b writes its own file: %+v", rep.Error)
	}
	ownFile, otherFile := mustID(t, "team-a", "notes.md"), mustID(t, "team-b", "secrets/plan.md")

	// Inside the scope: read.
	for _, ref := range []string{ownFile, "a-report", "artifact:a-report"} {
		if rep, _ := scopedCall(t, w, teamA, contracts.SubjectGetArtifact, map[string]any{"ref": ref, "service_id": "text-model"}); !rep.OK {
			t.Fatalf("get_artifact %s inside the scope: %+v", ref, rep.Error)
		}
		if rep, _ := scopedCall(t, w, teamA, contracts.SubjectMetadata, map[string]any{"id": ref}); !rep.OK {
			t.Fatalf("metadata %s inside the scope: %+v", ref, rep.Error)
		}
	}

	// Outside: every path, each answer kept to compare with the not-found answer below.
	pad := strings.Repeat("x", 1_200_000) // claim-checked request body
	type attempt struct {
		name    string
		subject string
		body    func() map[string]any
		call    func(*testing.T, *servicetest.Worker, string, string, map[string]any) (contracts.Reply, string)
	}
	var attempts []attempt
	for _, ref := range []string{otherFile, "artifact:" + otherFile, "b-secret", "artifact:b-secret"} {
		ref := ref
		attempts = append(attempts,
			attempt{"get_artifact " + ref, contracts.SubjectGetArtifact, func() map[string]any { return map[string]any{"ref": ref, "service_id": "text-model"} }, scopedCall},
			attempt{"plain get_artifact " + ref, contracts.SubjectGetArtifact, func() map[string]any { return map[string]any{"ref": ref, "service_id": "text-model"} }, plainScopedCall},
			attempt{"claim-checked get_artifact " + ref, contracts.SubjectGetArtifact, func() map[string]any {
				return map[string]any{"ref": ref, "service_id": "text-model", "padding": pad}
			}, scopedCall},
			attempt{"metadata " + ref, contracts.SubjectMetadata, func() map[string]any { return map[string]any{"id": ref} }, scopedCall},
			attempt{"plain metadata " + ref, contracts.SubjectMetadata, func() map[string]any { return map[string]any{"id": ref} }, plainScopedCall},
		)
	}
	refused := map[string]string{}
	for _, a := range attempts {
		rep, norm := a.call(t, w, teamA, a.subject, a.body())
		if rep.OK || rep.Error.Code != contracts.CodeArtifactNotFound {
			t.Fatalf("%s outside the scope: ok=%v %+v", a.name, rep.OK, rep.Error)
		}
		refused[a.name] = norm
	}
	httpGetAs := func(token, id, what string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+w.Svc.HTTPAddr()+"/artifacts/"+id+"/"+what, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	httpGet := func(id, what string) (int, string) { return httpGetAs(panelToken, id, what) }
	if code, body := httpGet(ownFile, "content"); code != http.StatusOK || body != "# team a" {
		t.Fatalf("HTTP content inside the token's scope: %d %s", code, body)
	}
	httpRefused := map[string]string{}
	for _, id := range []string{otherFile, "b-secret"} {
		for _, what := range []string{"content", "metadata"} {
			code, body := httpGet(id, what)
			if code != http.StatusNotFound {
				t.Fatalf("HTTP %s of %s outside the token's scope: %d %s", what, id, code, body)
			}
			httpRefused[id+"/"+what] = fmt.Sprint(code, body)
		}
	}

	// Writes outside the scope are refused before anything is stored.
	if rep := write(teamA, "team-b", "secrets/plan.md", "overwritten"); rep.OK || rep.Error.Code != contracts.CodePermissionDenied {
		t.Fatalf("write outside the scope: %+v", rep)
	}
	if rep := write(teamA, "team-b", "new.md", "planted"); rep.OK || rep.Error.Code != contracts.CodePermissionDenied {
		t.Fatalf("write outside the scope: %+v", rep)
	}
	if _, err := w.Store.Stat(context.Background(), objectstore.WorkspaceKey("team-b", "new.md")); err == nil {
		t.Fatal("a refused write stored its file")
	}
	if rep, _ := scopedCall(t, w, teamB, contracts.SubjectGetArtifact, map[string]any{"ref": otherFile, "service_id": "text-model"}); !rep.OK {
		t.Fatalf("team-b reads its file: %+v", rep.Error)
	} else if !strings.Contains(string(rep.Result), "the plan") {
		t.Fatalf("a refused write changed team-b's file: %s", rep.Result)
	}

	// History images: cached under team-a's scope, found under it only.
	img := base64.StdEncoding.EncodeToString(testfiles.PNG(64, 64))
	conversation := json.RawMessage(fmt.Sprintf(`[
  {"role":"user","content":[{"type":"text","text":"chart?"},{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]},
  {"role":"assistant","content":"A chart."},
  {"role":"user","content":"thanks"}]`, img))
	if rep, _ := scopedCall(t, w, teamA, contracts.SubjectPreprocess, map[string]any{"messages": conversation}); !rep.OK {
		t.Fatalf("preprocess: %+v", rep.Error)
	} else if !strings.Contains(string(rep.Result), "history_"+md5hex(img)) {
		t.Fatalf("the image was not replaced: %.300s", rep.Result)
	}
	history := func(scope string) (contracts.Reply, string) {
		return scopedCall(t, w, scope, contracts.SubjectGetHistoryImage, map[string]any{"image_md5": md5hex(img)})
	}
	if rep, _ := history(teamA); !rep.OK {
		t.Fatalf("history image under its own scope: %+v", rep.Error)
	}
	_, otherScope := history(teamB)
	_, everything := history("*")
	_, reordered := history("artifact:a-*, ws:team-a")
	if !strings.Contains(otherScope, contracts.CodeImageNotFound) || otherScope != everything {
		t.Fatalf("under another scope:\n%s\nunder \"*\" (never cached there):\n%s", otherScope, everything)
	}
	if strings.Contains(reordered, contracts.CodeImageNotFound) {
		t.Fatalf("the same scope written in another order does not find the image: %s", reordered)
	}

	// Bad headers.
	if rep, _ := scopedCall(t, w, "", contracts.SubjectGetArtifact, map[string]any{"ref": "a-report"}); rep.OK || rep.Error.Code != contracts.CodeInvalidRequest || !strings.Contains(rep.Error.Message, "REQUIRE_SCOPE") {
		t.Fatalf("no header with REQUIRE_SCOPE: %+v", rep)
	}
	if rep, _ := plainScopedCall(t, w, "ws:team-a,", contracts.SubjectGetArtifact, map[string]any{"ref": "a-report"}); rep.OK || rep.Error.Code != contracts.CodeInvalidRequest || rep.Error.Field != contracts.HeaderScope {
		t.Fatalf("malformed header: %+v", rep)
	}

	// Refusals are counted and logged with their reason.
	servicetest.WaitFor(t, 10*time.Second, "refusals counted", func() bool {
		m := scrape(t, w)
		ws, _ := value(m, "worker_scope_refusals_total", map[string]string{"subject": contracts.SubjectGetArtifact, "reason": "workspace_outside_scope"})
		art, _ := value(m, "worker_scope_refusals_total", map[string]string{"subject": contracts.SubjectMetadata, "reason": "artifact_outside_scope"})
		wr, _ := value(m, "worker_scope_refusals_total", map[string]string{"subject": contracts.SubjectFileWritten, "reason": "write_outside_scope"})
		h, _ := value(m, "worker_scope_refusals_total", map[string]string{"subject": "http.artifacts.content", "reason": "workspace_outside_scope"})
		return ws == 6 && art == 4 && wr == 2 && h == 1
	})
	if !strings.Contains(w.Logs.String(), `"scope_refused":"workspace_outside_scope"`) {
		t.Error("no log line says why a request was refused")
	}

	// Now the refused objects truly do not exist: a caller allowed everything gets, for the same
	// references, exactly the answers the scoped caller got.
	store := w.Store.(interface {
		Delete(ctx context.Context, key string) error
	})
	for _, key := range []string{objectstore.WorkspaceKey("team-b", "secrets/plan.md"), objectstore.ArtifactKey("b-secret")} {
		if err := store.Delete(context.Background(), key); err != nil {
			t.Fatal(err)
		}
	}
	for _, a := range attempts {
		rep, norm := a.call(t, w, "*", a.subject, a.body())
		if rep.OK || norm != refused[a.name] {
			t.Errorf("%s:\nrefused:   %s\nnot found: %s", a.name, refused[a.name], norm)
		}
	}
	for id, want := range httpRefused {
		parts := strings.SplitN(id, "/", 2)
		if code, body := httpGetAs(adminToken, parts[0], parts[1]); fmt.Sprint(code, body) != want {
			t.Errorf("HTTP %s: refused %s, not found %d %s", id, want, code, body)
		}
	}
}
