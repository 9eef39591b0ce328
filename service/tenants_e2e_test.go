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
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// tenantServer starts a nats-server from the two-tenant configuration of docs/operations.md (on a
// random port, its store in a temporary directory) with the passwords it reads from the
// environment.
func tenantServer(t testing.TB) *server.Server {
	t.Helper()
	return docServer(t, "tenant accounts", "ACME_WORKER_PASSWORD", "ACME_RUNTIME_PASSWORD", "GLOBEX_WORKER_PASSWORD", "GLOBEX_RUNTIME_PASSWORD")
}

// docServer starts a nats-server from the configuration block of docs/operations.md marked name
// (on a random port, its store in a temporary directory), setting each password variable it reads.
func docServer(t testing.TB, name string, passwords ...string) *server.Server {
	t.Helper()
	doc, err := os.ReadFile("../docs/operations.md")
	if err != nil {
		t.Fatal(err)
	}
	marker := "<!-- " + name + ": started by service/tenants_e2e_test.go -->\n```\n"
	_, rest, ok := strings.Cut(string(doc), marker)
	conf, _, ok2 := strings.Cut(rest, "```")
	if !ok || !ok2 {
		t.Fatalf("docs/operations.md has no %s block", name)
	}
	dir := t.TempDir()
	conf = strings.Replace(conf, "port: 4222", "port: -1", 1)
	conf = strings.Replace(conf, `store_dir: "/data/jetstream"`, fmt.Sprintf("store_dir: %q", filepath.Join(dir, "js")), 1)
	for _, v := range passwords {
		t.Setenv(v, strings.ToLower(v)+"-"+randomHex(6))
	}
	path := filepath.Join(dir, "nats-server.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("the documented configuration: %v", err)
	}
	opts.Host, opts.NoLog, opts.NoSigs = "127.0.0.1", true, true
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server not ready")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return s
}

// tenantPools starts the documented two-tenant server and a worker pool per account; each
// Worker's Conn and Client are its tenant's runtime user.
func tenantPools(t testing.TB, acmeMutate ...func(*service.Config)) (acme, globex *servicetest.Worker) {
	ns := tenantServer(t)
	caller := func(user string) []nats.Option {
		env := strings.ToUpper(strings.ReplaceAll(user, "-", "_")) + "_PASSWORD"
		return []nats.Option{nats.UserInfo(user, os.Getenv(env))}
	}
	acme = servicetest.StartOn(t, minio, ns, tenantURL(ns, "acme-worker"), caller("acme-runtime"), acmeMutate...)
	globex = servicetest.StartOn(t, minio, ns, tenantURL(ns, "globex-worker"), caller("globex-runtime"))
	return acme, globex
}

// tenantURL is the server's URL with a user's credentials.
func tenantURL(s *server.Server, user string) string {
	env := strings.ToUpper(strings.ReplaceAll(user, "-", "_")) + "_PASSWORD"
	return strings.Replace(s.ClientURL(), "nats://", "nats://"+user+":"+os.Getenv(env)+"@", 1)
}

// TestTenantsByAccount: two tenants as the documented nats-server configuration makes them (one
// NATS account each), one worker pool per account. Every read one tenant's runtime tries of the
// other's data — its workspace file, its artifact, the same artifact id, a history image md5, a
// claim-check key, an HTTP content URL — is answered as a reference that does not exist, byte for
// byte; the tenant comes from the account the server authenticated, so nothing in a request names
// it; and the same bytes in both tenants stay two entries.
func TestTenantsByAccount(t *testing.T) {
	acme, globex := tenantPools(t)

	// Each tenant writes the same names; ACME's hold its secrets.
	call := func(w *servicetest.Worker, subject string, body map[string]any) (contracts.Reply, string) {
		return scopedCall(t, w, "", subject, body)
	}
	write := func(w *servicetest.Worker, content string) string {
		rep, _ := call(w, contracts.SubjectFileWritten, map[string]any{"workspace_id": "team", "path": "plan.md", "mime_type": "text/markdown", "content": content})
		if !rep.OK {
			t.Fatalf("write: %+v", rep.Error)
		}
		var res contracts.FileWrittenResult
		_ = json.Unmarshal(rep.Result, &res)
		return res.ArtifactID
	}
	acmeFile := write(acme, "# ACME's plan")
	globexFile := write(globex, "# GLOBEX's plan")
	if acmeFile != globexFile {
		t.Fatalf("the same workspace and path have different ids: %s, %s", acmeFile, globexFile)
	}
	acme.PutArtifact("report", "text/plain", "report.txt", []byte("ACME's report"))
	acme.PutArtifact("acme-only", "text/plain", "a.txt", []byte("ACME's secret"))
	globex.PutArtifact("report", "text/plain", "report.txt", []byte("GLOBEX's report"))

	read := func(w *servicetest.Worker, ref string) (contracts.Reply, string) {
		return call(w, contracts.SubjectGetArtifact, map[string]any{"ref": ref, "service_id": "text-model"})
	}
	for _, c := range []struct {
		w    *servicetest.Worker
		ref  string
		want string
	}{{acme, acmeFile, "ACME's plan"}, {globex, globexFile, "GLOBEX's plan"}, {acme, "report", "ACME's report"}, {globex, "report", "GLOBEX's report"}} {
		if rep, _ := read(c.w, c.ref); !rep.OK || !strings.Contains(string(rep.Result), c.want) {
			t.Fatalf("reading %q, want %q: %+v %s", c.ref, c.want, rep.Error, rep.Result)
		}
	}
	// GLOBEX asks for ACME's artifact by its id: exactly the answer for an id nobody has.
	_, stolen := read(globex, "acme-only")
	_, metaStolen := call(globex, contracts.SubjectMetadata, map[string]any{"id": "acme-only"})
	if err := acme.Store.(interface {
		Delete(context.Context, string) error
	}).Delete(context.Background(), "artifacts/acme-only"); err != nil {
		t.Fatal(err)
	}
	if _, missing := read(acme, "acme-only"); stolen != missing || !strings.Contains(stolen, contracts.CodeArtifactNotFound) {
		t.Fatalf("cross-tenant read:\n%s\nnot found:\n%s", stolen, missing)
	}
	if _, missing := call(acme, contracts.SubjectMetadata, map[string]any{"id": "acme-only"}); metaStolen != missing {
		t.Fatalf("cross-tenant metadata:\n%s\nnot found:\n%s", metaStolen, missing)
	}

	// A history image ACME cached is not found by GLOBEX, as one never cached; the same bytes
	// cached by GLOBEX are GLOBEX's own entry.
	img := base64.StdEncoding.EncodeToString(testfiles.PNG(48, 48))
	conversation := json.RawMessage(fmt.Sprintf(`[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]},{"role":"assistant","content":"ok"},{"role":"user","content":"and?"}]`, img))
	if rep, _ := call(acme, contracts.SubjectPreprocess, map[string]any{"messages": conversation}); !rep.OK {
		t.Fatalf("preprocess: %+v", rep.Error)
	}
	history := func(w *servicetest.Worker, md5 string) (contracts.Reply, string) {
		return call(w, contracts.SubjectGetHistoryImage, map[string]any{"image_md5": md5})
	}
	if rep, _ := history(acme, md5hex(img)); !rep.OK {
		t.Fatalf("ACME's own history image: %+v", rep.Error)
	}
	_, crossImage := history(globex, md5hex(img))
	_, neverCached := history(globex, md5hex(img+"x"))
	if !strings.Contains(crossImage, contracts.CodeImageNotFound) || strings.ReplaceAll(crossImage, md5hex(img), "MD5") != strings.ReplaceAll(neverCached, md5hex(img+"x"), "MD5") {
		t.Fatalf("GLOBEX asks for ACME's image:\n%s\nnever cached:\n%s", crossImage, neverCached)
	}

	// A claim-check key of ACME's, named by GLOBEX: the answer for a key that does not exist.
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	acmeJS, _ := jetstream.New(acme.Conn)
	acmeClaims, err := acmeJS.ObjectStore(ctx, contracts.ClaimCheckBucket)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := json.Marshal(map[string]any{"request_id": "claimed-" + randomHex(4), "ref": "report", "service_id": "text-model"})
	if _, err := acmeClaims.PutBytes(ctx, "claim_acme_"+randomHex(8), body); err != nil {
		t.Fatal(err)
	}
	names, _ := acmeClaims.List(ctx)
	claimed := func(w *servicetest.Worker, name string) string {
		inbox := nats.NewInbox()
		sub, err := w.Conn.SubscribeSync(inbox)
		if err != nil {
			t.Fatal(err)
		}
		defer sub.Unsubscribe()
		js, _ := jetstream.New(w.Conn)
		msg := &nats.Msg{Subject: contracts.SubjectGetArtifact, Header: nats.Header{}}
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
		return strings.ReplaceAll(norm, name, "NAME")
	}
	var acmeKey string
	for _, n := range names {
		if strings.HasPrefix(n.Name, "claim_acme_") {
			acmeKey = n.Name
		}
	}
	if acmeKey == "" {
		t.Fatal("ACME's claim object is not listed")
	}
	crossClaim, noClaim := claimed(globex, acmeKey), claimed(globex, "claim_acme_"+randomHex(8))
	if crossClaim != noClaim || !strings.Contains(crossClaim, contracts.CodeInvalidRequest) {
		t.Fatalf("GLOBEX names ACME's claim key:\n%s\na key nobody has:\n%s", crossClaim, noClaim)
	}
	if got := claimed(acme, acmeKey); !strings.Contains(got, "ACME's report") {
		t.Fatalf("ACME's own claim: %s", got)
	}

	// The HTTP endpoints of each pool serve its tenant's store: the same id, each tenant's bytes.
	for w, want := range map[*servicetest.Worker]string{acme: "ACME's report", globex: "GLOBEX's report"} {
		resp, err := http.Get("http://" + w.Svc.HTTPAddr() + "/artifacts/report/content")
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if string(got) != want {
			t.Fatalf("HTTP content of report: %q, want %q", got, want)
		}
	}
}

// BenchmarkTenantFlood: tenant ACME sends 5,000 get_artifact requests as fast as it can while tenant
// GLOBEX makes calls one after the other; GLOBEX's p99 is compared with its p99 alone. Tenants are
// NATS accounts with a worker pool each (docs/operations.md), on one nats-server, one MinIO and one
// machine. Run with -benchtime 1x (one scenario per run); figures in BENCHMARKS.md.
func BenchmarkTenantFlood(b *testing.B) {
	var mutate []func(*service.Config)
	if n, err := strconv.Atoi(os.Getenv("FLOOD_TENANT_CONCURRENCY")); err == nil {
		// The flooding tenant's pool with fewer slots (its CONCURRENCY): what it may take of the machine.
		mutate = append(mutate, func(c *service.Config) { c.Concurrency = n })
	}
	acme, globex := tenantPools(b, mutate...)
	acme.PutArtifact("doc", "text/plain", "doc.txt", []byte(strings.Repeat("ACME ", 200)))
	globex.PutArtifact("doc", "text/plain", "doc.txt", []byte(strings.Repeat("GLOBEX ", 200)))
	floodBench(b, acme.Conn, contracts.SubjectGetArtifact, globex.Client)
}

// BenchmarkTenantFloodOnePool is BenchmarkTenantFlood with both tenants in one worker pool
// (TENANTS=acme,globex, the shared-pool configuration of docs/operations.md): ACME floods
// tenant.acme.tool.get_artifact while GLOBEX calls tenant.globex.tool.get_artifact. Each tenant's
// subjects have their own consumers and TENANT_CONCURRENCY slots (FLOOD_TENANT_CONCURRENCY sets
// it), and the tenants share TENANT_WORK_SLOTS in turn (FLOOD_WORK_SLOTS sets it; default
// GOMAXPROCS).
func BenchmarkTenantFloodOnePool(b *testing.B) {
	var mutate []func(*service.Config)
	if n, err := strconv.Atoi(os.Getenv("FLOOD_TENANT_CONCURRENCY")); err == nil {
		mutate = append(mutate, func(c *service.Config) { c.TenantConcurrency = n })
	}
	if n, err := strconv.Atoi(os.Getenv("FLOOD_WORK_SLOTS")); err == nil {
		mutate = append(mutate, func(c *service.Config) { c.TenantWorkSlots = n })
	}
	w, acme, globex := sharedPool(b, mutate...)
	for tenant, text := range map[string]string{"acme": "ACME ", "globex": "GLOBEX "} {
		body := strings.Repeat(text, 200)
		if _, err := w.Store.Put(context.Background(), contracts.TenantKeys(tenant)+"artifacts/doc", strings.NewReader(body), int64(len(body)), "text/plain", nil); err != nil {
			b.Fatal(err)
		}
	}
	floodBench(b, acme.nc, contracts.TenantSubject("acme", contracts.SubjectGetArtifact), globex.c)
}

// floodBench measures the p99 of calm's get_artifact calls of "doc" alone, then while flooder sends
// 5,000 get_artifact requests of "doc" on floodSubject as fast as it can.
func floodBench(b *testing.B, flooder *nats.Conn, floodSubject string, calm *client.Client) {
	const calls, flood = 300, 5000
	ctx := context.Background()
	latencies := func() []time.Duration {
		out := make([]time.Duration, 0, calls)
		for i := range calls {
			start := time.Now()
			var res contracts.GetArtifactResult
			if err := calm.Call(ctx, contracts.SubjectGetArtifact, contracts.GetArtifactRequest{RequestID: fmt.Sprintf("b-%s-%d", randomHex(6), i), Ref: "doc", ServiceID: "text-model"}, &res); err != nil {
				b.Fatal(err)
			}
			out = append(out, time.Since(start))
		}
		return out
	}
	p := func(ds []time.Duration, q float64) float64 {
		s := slices.Clone(ds)
		slices.Sort(s)
		return float64(s[int(q*float64(len(s)-1))].Microseconds()) / 1000
	}
	for range b.N {
		latencies() // warm up both paths
		alone := latencies()

		// The flood: every request published at once (async), replies counted on one inbox.
		inbox := flooder.NewInbox()
		var answered atomic.Int64
		sub, err := flooder.Subscribe(inbox, func(*nats.Msg) { answered.Add(1) })
		if err != nil {
			b.Fatal(err)
		}
		// All 5,000 may be unacknowledged at once (the default stalls past 4,000 on a busy machine).
		js, _ := jetstream.New(flooder, jetstream.WithPublishAsyncMaxPending(flood))
		floodDone := make(chan time.Duration, 1)
		floodStart := time.Now()
		go func() {
			start := time.Now()
			// Sent whatever happens: the benchmark waits for it.
			defer func() { floodDone <- time.Since(start) }()
			for i := range flood {
				id := fmt.Sprintf("a-%s-%d", randomHex(6), i)
				body, _ := json.Marshal(contracts.GetArtifactRequest{RequestID: id, Ref: "doc", ServiceID: "text-model"})
				msg := &nats.Msg{Subject: floodSubject, Data: body, Header: nats.Header{}}
				msg.Header.Set(contracts.HeaderReplyTo, inbox)
				msg.Header.Set(contracts.HeaderMsgID, id)
				if _, err := js.PublishMsgAsync(msg); err != nil {
					b.Error(err)
					return
				}
			}
			<-js.PublishAsyncComplete()
		}()
		servicetest.WaitFor(b, 30*time.Second, "the flood under way", func() bool { return answered.Load() > 50 })
		during := latencies()
		backlog := flood - answered.Load()
		published := <-floodDone
		servicetest.WaitFor(b, 10*time.Minute, "the flood answered", func() bool { return answered.Load() >= flood })
		floodTime := time.Since(floodStart)
		_ = sub.Unsubscribe()
		b.ReportMetric(p(alone, 0.5), "alone-p50-ms")
		b.ReportMetric(p(alone, 0.99), "alone-p99-ms")
		b.ReportMetric(p(during, 0.5), "flood-p50-ms")
		b.ReportMetric(p(during, 0.99), "flood-p99-ms")
		b.ReportMetric(p(during, 0.99)/p(alone, 0.99), "p99-ratio")
		b.ReportMetric(float64(backlog), "acme-backlog-after")
		b.ReportMetric(float64(flood)/floodTime.Seconds(), "acme-req/s")
		b.Logf("ACME published %d requests in %s; %d were still unanswered when GLOBEX's %d calls ended", flood, published.Round(time.Millisecond), backlog, calls)
	}
}
