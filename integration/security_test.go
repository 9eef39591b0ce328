package integration

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/nats-io/jwt/v2"
	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/agentworks/artifact-worker/client"
	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/miniotest"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/workspace"
)

// testCA is a certificate authority made for one test, writing its PEM files into dir.
type testCA struct {
	t    *testing.T
	dir  string
	cert *x509.Certificate
	key  *ecdsa.PrivateKey
	File string // the CA certificate, PEM
	Pool *x509.CertPool
}

func newTestCA(t *testing.T, dir, name string) *testCA {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, _ := x509.ParseCertificate(der)
	ca := &testCA{t: t, dir: dir, cert: cert, key: key, File: filepath.Join(dir, name+"-ca.pem"), Pool: x509.NewCertPool()}
	ca.Pool.AddCert(cert)
	writePEM(t, ca.File, "CERTIFICATE", der)
	return ca
}

// issue makes a certificate for 127.0.0.1 and localhost, for servers and clients, and returns the
// paths of its certificate and key and their PEM.
func (ca *testCA) issue(name string) (certFile, keyFile string, certPEM, keyPEM []byte) {
	t := ca.t
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, _ := rand.Int(rand.Reader, big.NewInt(1<<62))
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: name},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, DNSNames: []string{"localhost"},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca.cert, &key.PublicKey, ca.key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	certFile, keyFile = filepath.Join(ca.dir, name+".pem"), filepath.Join(ca.dir, name+"-key.pem")
	certPEM, keyPEM = writePEM(t, certFile, "CERTIFICATE", der), writePEM(t, keyFile, "PRIVATE KEY", keyDER)
	return certFile, keyFile, certPEM, keyPEM
}

func writePEM(t *testing.T, path, typ string, der []byte) []byte {
	t.Helper()
	b := pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der})
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return b
}

// documentedPermissions reads the worker user's permissions from the nsc command in
// docs/operations.md: the test's user gets exactly those.
func documentedPermissions(t *testing.T) (pub, sub []string) {
	return permissionsBlock(t, "<!-- worker permissions")
}

// permissionsBlock reads the --allow-pub and --allow-sub flags of the nsc command after marker in
// docs/operations.md.
func permissionsBlock(t *testing.T, marker string) (pub, sub []string) {
	t.Helper()
	doc := readFile("../docs/operations.md")
	start := strings.Index(doc, marker)
	if start < 0 {
		t.Fatalf("docs/operations.md has no %q block", marker)
	}
	block := doc[start:]
	block = block[:strings.Index(block, "nsc generate creds")]
	for _, m := range regexp.MustCompile(`--allow-(pub|sub) '([^']+)'`).FindAllStringSubmatch(block, -1) {
		if m[1] == "pub" {
			pub = append(pub, m[2])
		} else {
			sub = append(sub, m[2])
		}
	}
	if len(pub) < 5 || len(sub) < 1 {
		t.Fatalf("permissions block parsed to pub=%v sub=%v", pub, sub)
	}
	return pub, sub
}

// authority is an operator with a JetStream-enabled account, issuing users as .creds files.
type authority struct {
	t                     *testing.T
	dir                   string
	operator, account     nkeys.KeyPair
	operatorJWT           string
	accountPub, accountJW string
	sysPub, sysJWT        string
}

func newAuthority(t *testing.T, dir string) *authority {
	t.Helper()
	a := &authority{t: t, dir: dir}
	var err error
	a.operator, _ = nkeys.CreateOperator()
	opPub, _ := a.operator.PublicKey()
	sys, _ := nkeys.CreateAccount()
	a.sysPub, _ = sys.PublicKey()
	sc := jwt.NewAccountClaims(a.sysPub)
	sc.Name = "SYS"
	if a.sysJWT, err = sc.Encode(a.operator); err != nil {
		t.Fatal(err)
	}
	oc := jwt.NewOperatorClaims(opPub)
	oc.Name = "test-operator"
	oc.SystemAccount = a.sysPub
	if a.operatorJWT, err = oc.Encode(a.operator); err != nil {
		t.Fatal(err)
	}
	a.account, _ = nkeys.CreateAccount()
	a.accountPub, _ = a.account.PublicKey()
	ac := jwt.NewAccountClaims(a.accountPub)
	ac.Name = "WORKERS"
	ac.Limits.JetStreamLimits = jwt.JetStreamLimits{MemoryStorage: -1, DiskStorage: -1, Streams: -1, Consumer: -1}
	if a.accountJW, err = ac.Encode(a.operator); err != nil {
		t.Fatal(err)
	}
	return a
}

// user writes a .creds file for a user of the account with these permissions (nil: allow all),
// signed by signer (the account, unless a test wants a stranger).
func (a *authority) user(name string, pub, sub []string, signer nkeys.KeyPair) string {
	t := a.t
	t.Helper()
	kp, _ := nkeys.CreateUser()
	upub, _ := kp.PublicKey()
	uc := jwt.NewUserClaims(upub)
	uc.Name = name
	uc.Pub.Allow.Add(pub...)
	uc.Sub.Allow.Add(sub...)
	ujwt, err := uc.Encode(signer)
	if err != nil {
		t.Fatal(err)
	}
	seed, _ := kp.Seed()
	creds, err := jwt.FormatUserConfig(ujwt, seed)
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(a.dir, name+".creds")
	if err := os.WriteFile(path, creds, 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// startSecureNATS runs a nats-server in operator mode (memory resolver preloaded with the account)
// that requires TLS with a client certificate, and returns its tls:// URL.
func startSecureNATS(t *testing.T, a *authority, ca *testCA) string {
	t.Helper()
	certFile, keyFile, _, _ := ca.issue("nats-server")
	opFile := filepath.Join(a.dir, "operator.jwt")
	if err := os.WriteFile(opFile, []byte(a.operatorJWT), 0o600); err != nil {
		t.Fatal(err)
	}
	conf := fmt.Sprintf(`listen: "127.0.0.1:%d"
operator: %q
system_account: %s
resolver: MEMORY
resolver_preload: {
  %s: %q
  %s: %q
}
jetstream { store_dir: %q }
tls { cert_file: %q, key_file: %q, ca_file: %q, verify: true, timeout: 5 }
`, freePort(t), opFile, a.sysPub, a.sysPub, a.sysJWT, a.accountPub, a.accountJW, t.TempDir(), certFile, keyFile, ca.File)
	confFile := filepath.Join(a.dir, "nats-server.conf")
	if err := os.WriteFile(confFile, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	opts, err := server.ProcessConfigFile(confFile)
	if err != nil {
		t.Fatal(err)
	}
	opts.NoLog, opts.NoSigs = true, true
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatal(err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("secure nats-server not ready")
	}
	t.Cleanup(func() { s.Shutdown(); s.WaitForShutdown() })
	return fmt.Sprintf("tls://127.0.0.1:%d", opts.Port)
}

// The worker against a nats-server that requires TLS (client certificates too) and NKey/JWT users,
// with a user holding exactly the permissions docs/operations.md lists, and MinIO over TLS with a
// private CA and credentials from the standard chain (AWS_* environment): every subject is served,
// including claim-checked bodies and the plain request/reply front, without one permission
// violation. A user without the permissions, a user the server does not know, and an untrusted
// server certificate each stop start-up at once with exit code 2 naming the setting.
func TestTLSAndCredentials(t *testing.T) {
	dir := t.TempDir()
	ca := newTestCA(t, dir, "test")
	auth := newAuthority(t, dir)
	url := startSecureNATS(t, auth, ca)
	clientCert, clientKey, _, _ := ca.issue("worker-client")
	_, _, minioCert, minioKey := ca.issue("minio")
	s3 := miniotest.StartTLS(t, &miniotest.TLS{CertPEM: minioCert, KeyPEM: minioKey, RootCAs: ca.Pool})

	pub, sub := documentedPermissions(t)
	workerCreds := auth.user("artifact-worker", pub, sub, auth.account)
	// Callers hold exactly the client permissions docs/operations.md lists.
	callerPub, callerSub := permissionsBlock(t, "<!-- client permissions")
	callerCreds := auth.user("caller", callerPub, callerSub, auth.account)
	adminCreds := auth.user("admin", nil, nil, auth.account)
	e := &env{url: url, bucket: "it-" + randomHex(5), dir: t.TempDir()}
	seedRegistry(t, e)
	secure := []string{
		"NATS_CREDS=" + workerCreds, "NATS_TLS_CA=" + ca.File, "NATS_TLS_CERT=" + clientCert, "NATS_TLS_KEY=" + clientKey,
		"S3_ENDPOINT=" + s3.Endpoint, "S3_USE_SSL=true", "S3_CA_FILE=" + ca.File,
		"S3_CREDENTIALS=chain", "S3_ACCESS_KEY=", "S3_SECRET_KEY=", "AWS_ACCESS_KEY_ID=" + s3.AccessKey, "AWS_SECRET_ACCESS_KEY=" + s3.SecretKey,
	}

	t.Run("refused", func(t *testing.T) {
		stranger, _ := nkeys.CreateAccount()
		lacking := make([]string, 0, len(pub))
		for _, p := range pub {
			if p != "$JS.API.>" {
				lacking = append(lacking, p)
			}
		}
		otherCA := newTestCA(t, t.TempDir(), "other")
		for _, tt := range []struct {
			name, setting string
			env           []string
		}{
			{"user of an unknown account", "NATS_CREDS", []string{"NATS_CREDS=" + auth.user("stranger", pub, sub, stranger)}},
			{"user without the JetStream API", "NATS_CREDS", []string{"NATS_CREDS=" + auth.user("lacking", lacking, sub, auth.account)}},
			{"NATS server certificate of another CA", "NATS_TLS_CA", []string{"NATS_TLS_CA=" + otherCA.File}},
			{"S3 certificate of another CA", "S3_CA_FILE", []string{"S3_CA_FILE=" + otherCA.File}},
			{"wrong S3 keys from the chain", "S3_CREDENTIALS=chain", []string{"AWS_SECRET_ACCESS_KEY=wrong"}},
			{"plain HTTP to the HTTPS S3", "S3_USE_SSL", []string{"S3_USE_SSL=false", "S3_CA_FILE="}},
			{"plain NATS URL to the TLS server", "NATS_URL", []string{"NATS_URL=" + strings.Replace(url, "tls://", "nats://", 1), "NATS_TLS_CA=", "NATS_TLS_CERT=", "NATS_TLS_KEY="}},
		} {
			t.Run(tt.name, func(t *testing.T) {
				cmd := exec.Command(workerBin, "run")
				cmd.Env = append(append(append(os.Environ(), "NATS_URL="+url, "S3_BUCKET="+e.bucket, "DATA_DIR="+t.TempDir(),
					"HTTP_ADDR=127.0.0.1:0", "LOG_FORMAT=json"), secure...), tt.env...)
				start := time.Now()
				out, err := cmd.CombinedOutput()
				took := time.Since(start)
				t.Logf("FIGURES refused (%s): exit %d after %s", tt.name, cmd.ProcessState.ExitCode(), took.Round(time.Millisecond))
				if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), tt.setting) {
					t.Fatalf("exit %v, want 2 naming %s:\n%s", err, tt.setting, out)
				}
				if took > 15*time.Second {
					t.Errorf("took %s: a refused credential must not be retried like an outage", took)
				}
			})
		}
	})

	// Each documented permission taken away in turn: the worker tries every one before it reports
	// ready, so each missing one stops it at once with exit 2, named.
	t.Run("each permission missing", func(t *testing.T) {
		type perm struct {
			publish bool
			subject string
		}
		var all []perm
		for _, p := range pub {
			all = append(all, perm{true, p})
		}
		for _, s := range sub {
			all = append(all, perm{false, s})
		}
		if len(all) != 19 {
			t.Fatalf("docs/operations.md lists %d worker permissions, this test expects the 19 WorkerPermissions has; update both", len(all))
		}
		for _, missing := range all {
			kind := map[bool]string{true: "publish", false: "subscribe"}[missing.publish]
			t.Run(kind+" "+missing.subject, func(t *testing.T) {
				t.Parallel()
				var p, s []string
				for _, q := range all {
					switch {
					case q == missing:
					case q.publish:
						p = append(p, q.subject)
					default:
						s = append(s, q.subject)
					}
				}
				creds := auth.user("without-"+randomHex(4), p, s, auth.account)
				cmd := exec.Command(workerBin, "run")
				cmd.Env = append(append(append(os.Environ(), "NATS_URL="+url, "S3_BUCKET="+e.bucket, "DATA_DIR="+t.TempDir(),
					"HTTP_ADDR=127.0.0.1:0", "LOG_FORMAT=text"), secure...), "NATS_CREDS="+creds)
				start := time.Now()
				out, err := cmd.CombinedOutput()
				took := time.Since(start)
				t.Logf("FIGURES without %s %s: exit %d after %s", kind, missing.subject, cmd.ProcessState.ExitCode(), took.Round(time.Millisecond))
				named := fmt.Sprintf("%s %q", kind, missing.subject)
				if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), "NATS_CREDS") || !strings.Contains(string(out), strings.ReplaceAll(named, `"`, `\"`)) {
					t.Fatalf("exit %v, want 2 naming NATS_CREDS and %s:\n%s", err, named, out)
				}
				if took > 15*time.Second {
					t.Errorf("took %s: a missing permission must stop the start at once", took)
				}
			})
		}
	})

	w := e.startWorker(t, "secure", secure...)
	var (
		callerMu     sync.Mutex
		callerDenied []string
	)
	nc, err := nats.Connect(url, nats.UserCredentials(callerCreds), nats.RootCAs(ca.File), nats.ClientCert(clientCert, clientKey),
		nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
			callerMu.Lock()
			defer callerMu.Unlock()
			callerDenied = append(callerDenied, err.Error())
		}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	c, err := client.New(ctx, nc)
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	// file_written writes to S3 over TLS and to the WORKSPACE_FILES KV; its 2 MiB body travels by
	// claim check (WORKER_CLAIMS, read back by the worker).
	big := strings.Repeat("0123456789abcdef", 2<<20/16)
	small := "# notes\n"
	for _, f := range []struct{ path, content string }{{"notes/big.txt", big}, {"notes/small.md", small}} {
		req := contracts.FileWrittenRequest{RequestID: "fw-" + randomHex(4), WorkspaceID: "team", Path: f.path, MimeType: "text/plain",
			AgentID: "agent", MessageID: "m-" + randomHex(4), Content: &f.content}
		if err := c.Call(ctx, contracts.SubjectFileWritten, req, nil); err != nil {
			t.Fatalf("file_written %s: %v", f.path, err)
		}
	}
	id, _ := workspace.EncodeID("team", "notes/small.md")
	var art contracts.GetArtifactResult
	if err := c.Call(ctx, contracts.SubjectGetArtifact, contracts.GetArtifactRequest{RequestID: "ga-" + randomHex(4), Ref: id, ServiceID: "text-model"}, &art); err != nil {
		t.Fatalf("get_artifact: %v", err)
	}
	if !strings.Contains(string(mustJSON(t, art)), "# notes") {
		t.Fatalf("get_artifact did not return the file: %s", mustJSON(t, art))
	}
	var info contracts.ArtifactInfo
	if err := c.Call(ctx, contracts.SubjectMetadata, contracts.MetadataRequest{RequestID: "md-" + randomHex(4), ID: id}, &info); err != nil || len(info.Meta.ModifiedBy) != 1 {
		t.Fatalf("metadata: %v %+v", err, info)
	}
	// preprocess caches an older turn's image, 2.6 MB of base64: its index goes to the HISTORY_IMAGES
	// KV, its bytes to the HISTORY_IMAGES_BLOBS object store; get_history_image reads it back, and
	// its reply, too large for one message, travels by claim check (the worker writes WORKER_CLAIMS).
	img := base64.StdEncoding.EncodeToString(testfiles.NoisyPNG(700, 700))
	conv := fmt.Sprintf(`{"request_id":"pp-%s","messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"data:image/png;base64,%s"}}]},{"role":"assistant","content":"ok"},{"role":"user","content":"next"}]}`, randomHex(4), img)
	raw, err := c.CallRaw(ctx, contracts.SubjectPreprocess, []byte(conv))
	if err != nil {
		t.Fatalf("preprocess: %v", err)
	}
	var pp contracts.Reply
	if err := json.Unmarshal(raw, &pp); err != nil || !pp.OK || !strings.Contains(string(pp.Result), "[Picture:history_") {
		t.Fatalf("preprocess did not cache the image: %v %.300s", err, raw)
	}
	md5 := regexp.MustCompile(`history_[0-9a-f]{32}`).FindString(string(pp.Result))
	var hi contracts.GetHistoryImageResult
	if err := c.Call(ctx, contracts.SubjectGetHistoryImage, contracts.GetHistoryImageRequest{RequestID: "hi-" + randomHex(4), ImageMD5: md5}, &hi); err != nil {
		t.Fatalf("get_history_image: %v", err)
	}
	if !strings.Contains(string(mustJSON(t, hi)), img) {
		t.Fatal("get_history_image did not return the image")
	}
	// The JavaScript client holds the same permissions: claim checks both ways, and the deletion of
	// a claimed reply once read.
	admin, err := nats.Connect(url, nats.UserCredentials(adminCreds), nats.RootCAs(ca.File), nats.ClientCert(clientCert, clientKey))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(admin.Close)
	js, _ := jetstream.New(admin)
	claimMsgs := func() uint64 {
		st, err := js.Stream(ctx, "OBJ_"+contracts.ClaimCheckBucket)
		if err != nil {
			t.Fatalf("claim-check bucket: %v", err)
		}
		return st.CachedInfo().State.Msgs
	}
	for _, caller := range secureCallers(t) {
		t.Run(caller.name, func(t *testing.T) {
			before := claimMsgs()
			caller.cmd.Env = append(os.Environ(), "NATS_URL="+url, "NATS_CREDS="+callerCreds, "NATS_TLS_CA="+ca.File,
				"NATS_TLS_CERT="+clientCert, "NATS_TLS_KEY="+clientKey, "IMAGE_MD5="+md5, "IMAGE_HEAD="+img[:1000], "PREFIX="+caller.name+"-"+randomHex(4))
			out, err := caller.cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("%s: %v\n%s", caller.name, err, out)
			}
			var r struct {
				Calls  int      `json:"calls"`
				Failed []string `json:"failed"`
				Errors []string `json:"errors"`
			}
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			if err := json.Unmarshal([]byte(lines[len(lines)-1]), &r); err != nil {
				t.Fatalf("%s printed %q: %v", caller.name, out, err)
			}
			if r.Calls == 0 || len(r.Failed) != 0 || len(r.Errors) != 0 {
				t.Fatalf("%s with the documented client permissions: %d calls, failed %v, server errors %v", caller.name, r.Calls, r.Failed, r.Errors)
			}
			// Every claim it made or read is gone: the worker deletes a request's once answered,
			// the client a reply's once read.
			waitFor(t, 15*time.Second, "the claims deleted", func() bool { return claimMsgs() <= before })
		})
	}
	// An undecodable request is answered with an error and dead-lettered (deadletter.>).
	if raw, err := c.CallRaw(ctx, contracts.SubjectMetadata, []byte("{not json")); err != nil || !strings.Contains(string(raw), contracts.CodeInvalidRequest) {
		t.Fatalf("poison request: %v %s", err, raw)
	}
	waitFor(t, 10*time.Second, "the dead letter", func() bool {
		st, err := js.Stream(ctx, "WORKER_DEADLETTER")
		return err == nil && st.CachedInfo().State.Msgs == 1
	})
	// The plain request/reply front (the NATS micro service) stores the request and the worker answers.
	msg, err := nc.RequestWithContext(ctx, contracts.RequestReplySubject(contracts.SubjectMetadata),
		[]byte(fmt.Sprintf(`{"request_id":"rr-%s","id":%q}`, randomHex(4), id)))
	if err != nil {
		t.Fatalf("request/reply front: %v", err)
	}
	var rr contracts.Reply
	if err := json.Unmarshal(msg.Data, &rr); err != nil || !rr.OK {
		t.Fatalf("request/reply front: %v %s", err, msg.Data)
	}
	waitFor(t, 10*time.Second, "the last outcome logged", func() bool {
		n := 0
		for _, c := range w.handled() {
			n += c
		}
		return n >= 8
	})
	logs := readFile(w.logs)
	t.Logf("FIGURES TLS and credentials: 8 requests over TLS with the documented permissions (%d publish, %d subscribe) in %s; worker handled %v",
		len(pub), len(sub), time.Since(start).Round(time.Millisecond), w.handled())
	if strings.Contains(strings.ToLower(logs), "permissions violation") {
		t.Fatalf("the documented permissions are not enough:\n%s", logs)
	}
	callerMu.Lock()
	defer callerMu.Unlock()
	if len(callerDenied) != 0 {
		t.Fatalf("the documented client permissions are not enough: %v", callerDenied)
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// secureCaller is a caller script of another client, run with the documented client permissions.
type secureCaller struct {
	name string
	cmd  *exec.Cmd
}

// secureCallers are the caller scripts of the other clients: the JavaScript one
// (testdata/js-secure-caller.mjs), left out (logged) when Node.js or clients/js/node_modules is
// missing, a failure under ARTIFACT_WORKER_REQUIRE_JS. (The Python client cannot join: nats-py
// signs with a creds file through its nkeys extra, which is not installed here.)
func secureCallers(t *testing.T) []secureCaller {
	t.Helper()
	dir, _ := filepath.Abs(filepath.Join("..", "clients", "js"))
	if _, err := exec.LookPath("node"); err != nil {
		callerMissing(t, requireJSEnv, "JavaScript", "node is not on PATH")
		return nil
	}
	if _, err := os.Stat(filepath.Join(dir, "node_modules", "@nats-io", "jetstream")); err != nil {
		callerMissing(t, requireJSEnv, "JavaScript", "clients/js/node_modules is missing (make js-deps)")
		return nil
	}
	return []secureCaller{{"js", exec.Command("node", filepath.Join("testdata", "js-secure-caller.mjs"))}}
}
