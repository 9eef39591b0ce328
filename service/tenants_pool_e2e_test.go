package service_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/objectstore"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// tenantConn is a tenant's runtime on the shared-pool server: its user, its inbox prefix, its
// client (client.NewTenant), and the permission errors the server sent it.
type tenantConn struct {
	nc      *nats.Conn
	c       *client.Client
	mu      sync.Mutex
	refused []string
}

func (tc *tenantConn) violations() string {
	tc.mu.Lock()
	defer tc.mu.Unlock()
	return strings.Join(tc.refused, "\n")
}

// sharedPool starts the documented shared-pool server and one worker serving TENANTS=acme,globex;
// the Worker's own connection is the worker's user (an operator), each tenant's its runtime user.
func sharedPool(t testing.TB, mutate ...func(*service.Config)) (w *servicetest.Worker, acme, globex *tenantConn) {
	ns := docServer(t, "shared pool", "WORKER_PASSWORD", "ACME_RUNTIME_PASSWORD", "GLOBEX_RUNTIME_PASSWORD")
	url := strings.Replace(ns.ClientURL(), "nats://", "nats://artifact-worker:"+os.Getenv("WORKER_PASSWORD")+"@", 1)
	mutate = append([]func(*service.Config){func(c *service.Config) { c.Tenants = "acme,globex" }}, mutate...)
	w = servicetest.StartOn(t, minio, ns, url, []nats.Option{nats.UserInfo("artifact-worker", os.Getenv("WORKER_PASSWORD"))}, mutate...)
	return w, tenantRuntime(t, ns, "acme"), tenantRuntime(t, ns, "globex")
}

func tenantRuntime(t testing.TB, ns *server.Server, tenant string) *tenantConn {
	tc := &tenantConn{}
	tc.nc = natstest.Connect(t, ns, nats.UserInfo(tenant+"-runtime", os.Getenv(strings.ToUpper(tenant)+"_RUNTIME_PASSWORD")),
		nats.CustomInboxPrefix(contracts.TenantInbox(tenant)),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			tc.mu.Lock()
			tc.refused = append(tc.refused, err.Error())
			tc.mu.Unlock()
		}))
	var err error
	if tc.c, err = client.NewTenant(context.Background(), tc.nc, tenant); err != nil {
		t.Fatal(err)
	}
	return tc
}

// tenantCall calls subject with body as the tenant's client does, with scope (none when "").
func tenantCall(t *testing.T, tc *tenantConn, scope, subject string, body map[string]any) (contracts.Reply, string) {
	t.Helper()
	body["request_id"] = "tc-" + randomHex(8)
	raw, _ := json.Marshal(body)
	ctx, cancel := context.WithTimeout(client.WithScope(context.Background(), scope), 90*time.Second)
	defer cancel()
	out, err := tc.c.CallRaw(ctx, subject, raw)
	if err != nil {
		t.Fatalf("call %s: %v", subject, err)
	}
	return envelopeOf(t, out)
}

// TestTenantsInOnePool: two tenants in one worker pool (TENANTS), on the nats-server configuration of
// docs/operations.md ("Several tenants in one worker pool"). Each tenant reads its own data under
// the same ids; every read of the other tenant's — an artifact id, a workspace file, metadata, a
// history image md5, a claim-check key, on the JetStream and the plain path, with or without a
// scope — is answered exactly as a reference nobody has; the server refuses a tenant's publishes on
// the other's subjects, bucket and the untenanted subjects, and its subscription to the other's
// inboxes; a request whose Reply-To is the other tenant's inbox is not answered there.
func TestTenantsInOnePool(t *testing.T) {
	acmeToken, globexToken := "acme-panel-"+randomHex(8), "globex-panel-"+randomHex(8)
	tokens := filepath.Join(t.TempDir(), "tokens")
	if err := os.WriteFile(tokens, []byte(acmeToken+" tenant:acme *\n"+globexToken+" tenant:globex ws:team,artifact:*\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	w, acme, globex := sharedPool(t, func(c *service.Config) { c.HTTPTokensFile = tokens })
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	put := func(key, content string) {
		if _, err := w.Store.Put(ctx, key, strings.NewReader(content), int64(len(content)), "text/plain", map[string]string{objectstore.MetaFilename: "f.txt"}); err != nil {
			t.Fatal(err)
		}
	}
	put(contracts.TenantKeys("acme")+objectstore.ArtifactKey("report"), "ACME's report")
	put(contracts.TenantKeys("acme")+objectstore.ArtifactKey("acme-only"), "ACME's secret")
	put(contracts.TenantKeys("globex")+objectstore.ArtifactKey("report"), "GLOBEX's report")
	put(objectstore.ArtifactKey("pool-only"), "the pool's own")

	write := func(tc *tenantConn, path, content string) string {
		rep, _ := tenantCall(t, tc, "", contracts.SubjectFileWritten, map[string]any{"workspace_id": "team", "path": path, "mime_type": "text/markdown", "content": content})
		if !rep.OK {
			t.Fatalf("write: %+v", rep.Error)
		}
		var res contracts.FileWrittenResult
		_ = json.Unmarshal(rep.Result, &res)
		return res.ArtifactID
	}
	plan := write(acme, "plan.md", "# ACME's plan")
	if other := write(globex, "plan.md", "# GLOBEX's plan"); other != plan {
		t.Fatalf("the same workspace and path have different ids: %s, %s", plan, other)
	}
	acmeFile := write(acme, "secret.md", "# ACME only")
	read := func(tc *tenantConn, scope, ref string) (contracts.Reply, string) {
		return tenantCall(t, tc, scope, contracts.SubjectGetArtifact, map[string]any{"ref": ref, "service_id": "text-model"})
	}
	for _, c := range []struct {
		tc         *tenantConn
		scope, ref string
		want       string
	}{
		{acme, "", plan, "ACME's plan"}, {globex, "", plan, "GLOBEX's plan"}, {globex, "ws:team", plan, "GLOBEX's plan"},
		{acme, "", "report", "ACME's report"}, {globex, "artifact:rep*", "report", "GLOBEX's report"},
	} {
		if rep, _ := read(c.tc, c.scope, c.ref); !rep.OK || !strings.Contains(string(rep.Result), c.want) {
			t.Fatalf("reading %q, want %q: %+v %s", c.ref, c.want, rep.Error, rep.Result)
		}
	}

	// A body naming the other tenant changes nothing: the tenant is the subject.
	if rep, _ := tenantCall(t, globex, "", contracts.SubjectGetArtifact, map[string]any{"ref": "report", "service_id": "text-model", "tenant": "acme", "tenant_id": "acme"}); !rep.OK || !strings.Contains(string(rep.Result), "GLOBEX's report") {
		t.Fatalf("GLOBEX's call naming acme in its body: %+v %s", rep.Error, rep.Result)
	}

	// Every cross-tenant read, each beside the same read of a reference nobody has.
	same := func(what, got, ref, missing, gone string) {
		t.Helper()
		if strings.ReplaceAll(got, ref, "REF") != strings.ReplaceAll(missing, gone, "REF") {
			t.Errorf("%s:\n%s\nnot found:\n%s", what, got, missing)
		}
	}
	nobody := "zzzzzzzzz" // as long as acme-only and pool-only
	wsNobody := strings.Replace(acmeFile, base64.RawURLEncoding.EncodeToString([]byte("secret.md")), base64.RawURLEncoding.EncodeToString([]byte("secret.mx")), 1)
	if wsNobody == acmeFile {
		t.Fatalf("workspace id %s: no path to change", acmeFile)
	}
	for _, scope := range []string{"", "*", "ws:team,artifact:*"} {
		for _, subject := range []string{contracts.SubjectGetArtifact, contracts.SubjectMetadata} {
			field := map[string]string{contracts.SubjectGetArtifact: "ref", contracts.SubjectMetadata: "id"}[subject]
			ask := func(ref string) string {
				_, norm := tenantCall(t, globex, scope, subject, map[string]any{field: ref, "service_id": "text-model"})
				return norm
			}
			missing := ask(nobody)
			if !strings.Contains(missing, contracts.CodeArtifactNotFound) {
				t.Fatalf("%s of an id nobody has: %s", subject, missing)
			}
			same(subject+" of ACME's artifact", ask("acme-only"), "acme-only", missing, nobody)
			same(subject+" of the pool's own artifact", ask("pool-only"), "pool-only", missing, nobody)
			same(subject+" of ACME's workspace file", ask(acmeFile), acmeFile, ask(wsNobody), wsNobody)
		}
	}
	// The plain path, likewise.
	plain := func(tc *tenantConn, ref string) string {
		raw, _ := json.Marshal(map[string]any{"request_id": "pl-" + randomHex(8), "ref": ref, "service_id": "text-model"})
		rep, err := tc.nc.Request(contracts.RequestReplySubject(contracts.TenantSubject(map[*tenantConn]string{acme: "acme", globex: "globex"}[tc], contracts.SubjectGetArtifact)), raw, 60*time.Second)
		if err != nil {
			t.Fatalf("plain request: %v", err)
		}
		_, norm := envelopeOf(t, rep.Data)
		return norm
	}
	if got := plain(acme, "acme-only"); !strings.Contains(got, "ACME's secret") {
		t.Fatalf("ACME's own artifact on the plain path: %s", got)
	}
	same("plain get_artifact of ACME's artifact", plain(globex, "acme-only"), "acme-only", plain(globex, nobody), nobody)

	// A history image ACME cached: not found for GLOBEX, as one never cached.
	img := base64.StdEncoding.EncodeToString(testfiles.PNG(48, 48))
	conversation := json.RawMessage(fmt.Sprintf(`[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]},{"role":"assistant","content":"ok"},{"role":"user","content":"and?"}]`, img))
	if rep, _ := tenantCall(t, acme, "", contracts.SubjectPreprocess, map[string]any{"messages": conversation}); !rep.OK {
		t.Fatalf("preprocess: %+v", rep.Error)
	}
	history := func(tc *tenantConn, md5 string) (contracts.Reply, string) {
		return tenantCall(t, tc, "", contracts.SubjectGetHistoryImage, map[string]any{"image_md5": md5})
	}
	if rep, _ := history(acme, md5hex(img)); !rep.OK {
		t.Fatalf("ACME's own history image: %+v", rep.Error)
	}
	_, crossImage := history(globex, md5hex(img))
	_, neverCached := history(globex, md5hex(img+"x"))
	if !strings.Contains(crossImage, contracts.CodeImageNotFound) {
		t.Fatalf("GLOBEX asks for ACME's image: %s", crossImage)
	}
	same("GLOBEX asks for ACME's image md5", crossImage, md5hex(img), neverCached, md5hex(img+"x"))

	// A claim-check key in ACME's bucket, named by GLOBEX: the answer for a key nobody has.
	acmeJS, _ := jetstream.New(acme.nc)
	acmeClaims, err := acmeJS.ObjectStore(ctx, contracts.TenantClaimCheckBucket("acme"))
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"request_id": "claimed-" + randomHex(4), "ref": "report", "service_id": "text-model"})
	acmeKey := "claim_acme_" + randomHex(8)
	if _, err := acmeClaims.PutBytes(ctx, acmeKey, body); err != nil {
		t.Fatal(err)
	}
	claimed := func(tc *tenantConn, tenant, name string) string {
		inbox := tc.nc.NewInbox()
		sub, err := tc.nc.SubscribeSync(inbox)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Unsubscribe()
		js, _ := jetstream.New(tc.nc)
		msg := &nats.Msg{Subject: contracts.TenantSubject(tenant, contracts.SubjectGetArtifact), Header: nats.Header{}}
		msg.Header.Set(contracts.HeaderReplyTo, inbox)
		msg.Header.Set(contracts.HeaderClaimCheck, name)
		msg.Header.Set(contracts.HeaderMsgID, "claim-"+randomHex(6))
		if _, err := js.PublishMsg(ctx, msg); err != nil {
			t.Fatal(err)
		}
		rep, err := sub.NextMsg(60 * time.Second)
		if err != nil {
			t.Fatal(err)
		}
		_, norm := envelopeOf(t, rep.Data)
		return norm
	}
	if got := claimed(acme, "acme", acmeKey); !strings.Contains(got, "ACME's report") {
		t.Fatalf("ACME's own claim: %s", got)
	}
	other := "claim_acme_" + randomHex(8)
	crossClaim := claimed(globex, "globex", acmeKey)
	if !strings.Contains(crossClaim, contracts.CodeInvalidRequest) {
		t.Fatalf("GLOBEX names ACME's claim key: %s", crossClaim)
	}
	same("GLOBEX names ACME's claim key", crossClaim, acmeKey, claimed(globex, "globex", other), other)

	// What the server refuses GLOBEX's user: ACME's subjects (both paths), the untenanted ones,
	// ACME's bucket, ACME's inboxes.
	for _, subject := range []string{contracts.TenantSubject("acme", contracts.SubjectGetArtifact), contracts.RequestReplySubject(contracts.TenantSubject("acme", contracts.SubjectMetadata)),
		contracts.SubjectGetArtifact, "$JS.API.STREAM.INFO.OBJ_" + contracts.TenantClaimCheckBucket("acme"), "$O." + contracts.TenantClaimCheckBucket("acme") + ".C.x"} {
		if err := globex.nc.Publish(subject, []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
		servicetest.WaitFor(t, 10*time.Second, "publish on "+subject+" refused", func() bool {
			return strings.Contains(globex.violations(), `Publish to "`+subject+`"`)
		})
	}
	if _, err := globex.nc.SubscribeSync(contracts.TenantInbox("acme") + ".>"); err != nil {
		t.Fatal(err)
	}
	servicetest.WaitFor(t, 10*time.Second, "subscription to ACME's inboxes refused", func() bool {
		return strings.Contains(globex.violations(), `Subscription to "`+contracts.TenantInbox("acme")+`.>"`)
	})

	// GLOBEX's request with ACME's inbox as Reply-To: not answered there (dead-lettered instead).
	spy, err := acme.nc.SubscribeSync(contracts.TenantInbox("acme") + ".spy")
	if err != nil {
		t.Fatal(err)
	}
	gjs, _ := jetstream.New(globex.nc)
	id := "spoof-" + randomHex(6)
	raw, _ := json.Marshal(map[string]any{"request_id": id, "ref": "report", "service_id": "text-model"})
	msg := &nats.Msg{Subject: contracts.TenantSubject("globex", contracts.SubjectGetArtifact), Data: raw, Header: nats.Header{}}
	msg.Header.Set(contracts.HeaderReplyTo, contracts.TenantInbox("acme")+".spy")
	msg.Header.Set(contracts.HeaderMsgID, id)
	if _, err := gjs.PublishMsg(ctx, msg); err != nil {
		t.Fatal(err)
	}
	servicetest.WaitFor(t, 60*time.Second, "the spoofed request dead-lettered", func() bool {
		return strings.Contains(w.Logs.String(), `"subject":"tenant.globex.tool.get_artifact","request_id":"`+id+`","outcome":"dead_letter"`) ||
			strings.Contains(w.Logs.String(), `"subject":"tenant.globex.tool.get_artifact","request_id":"","outcome":"dead_letter"`)
	})
	if m, err := spy.NextMsg(200 * time.Millisecond); err == nil {
		t.Fatalf("ACME's inbox got GLOBEX's reply: %s", m.Data)
	}

	// The chat panel's endpoints: a tenant's token reads its tenant's artifacts only.
	get := func(token, path string) (int, string) {
		req, _ := http.NewRequest(http.MethodGet, "http://"+w.Svc.HTTPAddr()+"/artifacts/"+path, nil)
		req.Header.Set("Authorization", "Bearer "+token)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	for _, c := range []struct{ token, path, want string }{
		{acmeToken, "report/content", "ACME's report"}, {globexToken, "report/content", "GLOBEX's report"},
		{acmeToken, plan + "/content", "# ACME's plan"}, {globexToken, plan + "/content", "# GLOBEX's plan"},
	} {
		if code, got := get(c.token, c.path); code != http.StatusOK || got != c.want {
			t.Errorf("GET %s: %d %q, want %q", c.path, code, got, c.want)
		}
	}
	for _, endpoint := range []string{"content", "metadata"} {
		code, missing := get(globexToken, nobody+"/"+endpoint)
		if code != http.StatusNotFound {
			t.Fatalf("GET %s/%s: %d %s", nobody, endpoint, code, missing)
		}
		for _, ref := range []string{"acme-only", "pool-only"} {
			code, got := get(globexToken, ref+"/"+endpoint)
			same("HTTP "+endpoint+" of "+ref+" with GLOBEX's token", fmt.Sprint(code, got), ref, fmt.Sprint(http.StatusNotFound, missing), nobody)
		}
		code, got := get(globexToken, acmeFile+"/"+endpoint)
		_, wsMissing := get(globexToken, wsNobody+"/"+endpoint)
		same("HTTP "+endpoint+" of ACME's workspace file with GLOBEX's token", fmt.Sprint(code, got), acmeFile, fmt.Sprint(http.StatusNotFound, wsMissing), wsNobody)
	}

	// The tenant is a label value of the subject only, from TENANTS.
	resp, err := http.Get("http://" + w.Svc.HTTPAddr() + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	metrics, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Contains(metrics, []byte(`subject="tenant.acme.tool.get_artifact"`)) || bytes.Contains(metrics, []byte(`tenant.zzzz`)) {
		t.Errorf("metrics: no series of tenant acme's get_artifact")
	}
}

// TestTenantPermissionsProven: a worker user without a tenant's grants does not start: start-up names
// the tenant's buckets and subjects it may not use (NATS_CREDS), before anything is created.
func TestTenantPermissionsProven(t *testing.T) {
	ns := docServer(t, "shared pool", "WORKER_PASSWORD", "ACME_RUNTIME_PASSWORD", "GLOBEX_RUNTIME_PASSWORD")
	url := strings.Replace(ns.ClientURL(), "nats://", "nats://acme-runtime:"+os.Getenv("ACME_RUNTIME_PASSWORD")+"@", 1)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	_, err := service.New(ctx, service.Config{NATSURL: url, Tenants: "acme", DataDir: t.TempDir(), HTTPAddr: "127.0.0.1:0"}, slog.New(slog.DiscardHandler))
	var se *service.SettingError
	if !errors.As(err, &se) || se.Settings != "NATS_CREDS" {
		t.Fatalf("start-up with the runtime's user: %v", err)
	}
	for _, want := range []string{`publish "$KV.WORKSPACE_FILES_acme.>"`, `publish "$O.HISTORY_IMAGES_BLOBS_acme.>"`, `subscribe "artifact-worker.tenant.acme.tool.get_artifact"`} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("the refusal does not name %s: %v", want, err)
		}
	}
	// The runtime user holds these: only what is missing is named.
	for _, granted := range []string{`publish "tenant.acme.tool.get_artifact"`, `publish "$O.WORKER_CLAIMS_acme.>"`} {
		if strings.Contains(err.Error(), granted) {
			t.Errorf("the refusal names %s, which the user holds: %v", granted, err)
		}
	}
}

// TestTenantStoredBytesLimits: a tenant's own buckets have the size limits of their settings, the
// pool's own none. TENANT_WORKSPACE_MAX_BYTES holds for the content the worker stores in S3 as well
// as the metadata: a file_written whose content no longer fits is answered payload_too_large (not
// retried, saying nothing was stored) before anything reaches S3; an overwrite that replaces as
// much as it adds still fits; the worker goes on answering that tenant's reads and the other
// tenant's writes.
func TestTenantStoredBytesLimits(t *testing.T) {
	const limit = 16 << 10
	w, acme, globex := sharedPool(t, func(c *service.Config) { c.TenantWorkspaceMaxBytes, c.TenantHistoryMaxBytes = limit, 4096 })
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	js, _ := jetstream.New(w.Conn)
	for stream, want := range map[string]int64{
		"KV_WORKSPACE_FILES_acme": limit, "KV_HISTORY_IMAGES_acme": 4096, "OBJ_HISTORY_IMAGES_BLOBS_globex": 4096,
		"KV_WORKSPACE_FILES": -1, "KV_HISTORY_IMAGES": -1, "OBJ_HISTORY_IMAGES_BLOBS": -1,
	} {
		s, err := js.Stream(ctx, stream)
		if err != nil {
			t.Fatal(err)
		}
		if got := s.CachedInfo().Config.MaxBytes; got != want {
			t.Errorf("%s: max bytes %d, want %d", stream, got, want)
		}
	}
	content := strings.Repeat("x", 4096)
	write := func(tc *tenantConn, path string) contracts.Reply {
		rep, _ := tenantCall(t, tc, "", contracts.SubjectFileWritten, map[string]any{"workspace_id": "team", "path": path, "mime_type": "text/plain", "content": content})
		return rep
	}
	stored := func(tenant, path string) bool {
		_, err := w.Store.Stat(ctx, contracts.TenantKeys(tenant)+objectstore.WorkspaceKey("team", path))
		if err != nil && !errors.Is(err, objectstore.ErrNotFound) {
			t.Fatal(err)
		}
		return err == nil
	}
	var refused *contracts.Error
	var refusedPath string
	accepted := 0
	for i := 0; i < 10 && refused == nil; i++ {
		path := fmt.Sprintf("notes/%02d.txt", i)
		if rep := write(acme, path); !rep.OK {
			refused, refusedPath = rep.Error, path
		} else {
			accepted++
		}
	}
	if refused == nil {
		t.Fatalf("ten files of 4 KiB fit in a workspace limit of %d bytes", limit)
	}
	if accepted*len(content) > limit || accepted < 2 {
		t.Errorf("%d files of 4 KiB accepted under a limit of %d bytes", accepted, limit)
	}
	if refused.Code != contracts.CodePayloadTooLarge || refused.Retryable || refused.Field != "content" || !strings.Contains(refused.Message, "nothing was stored") {
		t.Fatalf("the write over the limit: %+v", refused)
	}
	if stored("acme", refusedPath) {
		t.Errorf("the refused %s is in S3", refusedPath)
	}
	for i := 0; i < accepted; i++ {
		if !stored("acme", fmt.Sprintf("notes/%02d.txt", i)) {
			t.Errorf("the accepted notes/%02d.txt is not in S3", i)
		}
	}
	if rep := write(acme, "notes/00.txt"); !rep.OK {
		t.Errorf("overwriting a file with as many bytes: %+v", rep.Error)
	}
	first, _ := tenantCall(t, acme, "", contracts.SubjectGetArtifact, map[string]any{"ref": refused.Ref[:strings.LastIndex(refused.Ref, ":")+1] + base64.RawURLEncoding.EncodeToString([]byte("notes/00.txt")), "service_id": "text-model"})
	if !first.OK || !strings.Contains(string(first.Result), "xxxx") {
		t.Fatalf("ACME's first file after the refusal: %+v %s", first.Error, first.Result)
	}
	// GLOBEX's workspace has its own limit: as many files as ACME's fit.
	for i := 0; i < accepted; i++ {
		if rep := write(globex, fmt.Sprintf("notes/%02d.txt", i)); !rep.OK {
			t.Fatalf("GLOBEX's write %d: %+v", i, rep.Error)
		}
	}
}
