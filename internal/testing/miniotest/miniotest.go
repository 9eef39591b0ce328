// Package miniotest runs a real S3 server as a separate process for tests: MinIO, or versitygw
// (the Versity S3 Gateway on its posix backend), the second S3 the worker is tested against.
//
// The server binaries are the project's pinned builds at .tools/bin/minio and .tools/bin/versitygw
// under the repository root, installed by scripts/install-minio.sh and scripts/install-versitygw.sh
// when missing (the first install takes minutes). MinIO is AGPL: its code is never imported, it only
// ever runs as a child process. Which one StartMain and Main start is S3_TEST_SERVER's choice
// (minio, the default, or versitygw); Start and StartKind pick in code.
//
// Every server runs in its own process group, is bound to 127.0.0.1 on free ports, keeps its data
// in a temporary directory and is killed (with its whole process group) when the test ends. On
// Linux the child also gets SIGKILL when the test binary dies without running its cleanups.
package miniotest

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/agentworks/artifact-worker/internal/testing/modroot"
)

// ReadyTimeout bounds how long Start and Restart wait for the server to report live and ready.
const ReadyTimeout = 60 * time.Second

// stopGrace is how long Stop waits after SIGTERM before it kills the process group.
const stopGrace = 5 * time.Second

// Kinds of server.
const (
	MinIO     = "minio"
	VersityGW = "versitygw"
)

// Server is a running (or stopped) S3 server process. Its exported fields are fixed for its lifetime,
// across Stop and Restart. Methods are safe for concurrent use.
type Server struct {
	// Endpoint is the S3 API address, "127.0.0.1:port" (no scheme; plain HTTP).
	Endpoint string
	// AccessKey and SecretKey are the root credentials (random per server).
	AccessKey string
	SecretKey string
	// DataDir is the drive the server stores objects in; it survives Stop and Restart.
	DataDir string
	// Kind is MinIO or VersityGW.
	Kind string

	bin         string
	consoleAddr string
	homeDir     string
	tls         *TLS // nil: plain HTTP

	mu   sync.Mutex
	proc *process // nil while stopped
}

// process is one run of the server binary.
type process struct {
	cmd    *exec.Cmd
	output *tailBuffer
	exited chan struct{} // closed when Wait returns
	err    error         // Wait's result, valid after exited is closed
}

// TLS makes a server speak HTTPS only, with a certificate the test made.
type TLS struct {
	// CertPEM and KeyPEM are the server's certificate (for 127.0.0.1) and key; MinIO reads them from
	// its certs directory as public.crt and private.key.
	CertPEM, KeyPEM []byte
	// RootCAs verifies the certificate (the test's CA), for the readiness checks.
	RootCAs *x509.CertPool
}

// Start runs a MinIO server until the test (or benchmark) ends. It fails the test when the binary
// cannot be installed or the server is not ready within ReadyTimeout.
func Start(t testing.TB) *Server {
	t.Helper()
	skipShort(t)
	return StartTLS(t, nil)
}

// StartTLS is Start for a server that speaks HTTPS only with the certificate in tlsCfg (plain HTTP
// when tlsCfg is nil).
func StartTLS(t testing.TB, tlsCfg *TLS) *Server {
	t.Helper()
	skipShort(t)
	s, err := newServer(t.TempDir(), MinIO)
	if err != nil {
		t.Fatalf("miniotest: %v", err)
	}
	if tlsCfg != nil {
		certs := filepath.Join(s.homeDir, "certs")
		if err := os.MkdirAll(certs, 0o700); err != nil {
			t.Fatalf("miniotest: %v", err)
		}
		if err := os.WriteFile(filepath.Join(certs, "public.crt"), tlsCfg.CertPEM, 0o600); err != nil {
			t.Fatalf("miniotest: %v", err)
		}
		if err := os.WriteFile(filepath.Join(certs, "private.key"), tlsCfg.KeyPEM, 0o600); err != nil {
			t.Fatalf("miniotest: %v", err)
		}
		s.tls = tlsCfg
	}
	if err := s.start(); err != nil {
		t.Fatalf("miniotest: %v", err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

// ShortSkip is why a test that needs an S3 server skips under -short.
const ShortSkip = "-short: needs a MinIO process (make test runs it)"

// skipShort skips t under -short (`make unit`): the fast tier starts no S3 server and installs none.
func skipShort(t testing.TB) {
	t.Helper()
	if testing.Short() {
		t.Skip(ShortSkip)
	}
}

// SkipWithout skips t when srv is nil: Main started no server (-short).
func SkipWithout(t testing.TB, srv *Server) {
	t.Helper()
	if srv == nil {
		t.Skip(ShortSkip)
	}
}

// StartKind runs a server of the given kind (MinIO or VersityGW) until the test ends.
func StartKind(t testing.TB, kind string) *Server {
	t.Helper()
	skipShort(t)
	s, err := newServer(t.TempDir(), kind)
	if err == nil {
		err = s.start()
	}
	if err != nil {
		t.Fatalf("miniotest: %v", err)
	}
	t.Cleanup(func() { _ = s.Stop() })
	return s
}

// KindFromEnv is the kind S3_TEST_SERVER names: MinIO when it is empty.
func KindFromEnv() (string, error) {
	switch k := os.Getenv("S3_TEST_SERVER"); k {
	case "", MinIO:
		return MinIO, nil
	case VersityGW:
		return VersityGW, nil
	default:
		return "", fmt.Errorf("miniotest: S3_TEST_SERVER=%q: want %s or %s", k, MinIO, VersityGW)
	}
}

// StartMain runs a server of the kind S3_TEST_SERVER names (MinIO by default) for a whole test
// binary, typically from TestMain. The returned stop function kills the server and removes its
// directories; call it before os.Exit.
func StartMain() (*Server, func(), error) {
	kind, err := KindFromEnv()
	if err != nil {
		return nil, nil, err
	}
	return StartMainKind(kind)
}

// StartMainKind is StartMain for the given kind.
func StartMainKind(kind string) (*Server, func(), error) {
	dir, err := os.MkdirTemp("", "miniotest-")
	if err != nil {
		return nil, nil, fmt.Errorf("miniotest: %w", err)
	}
	cleanup := func() { _ = os.RemoveAll(dir) }
	s, err := newServer(dir, kind)
	if err == nil {
		err = s.start()
	}
	if err != nil {
		cleanup()
		return nil, nil, fmt.Errorf("miniotest: %w", err)
	}
	return s, func() {
		_ = s.Stop()
		cleanup()
	}, nil
}

// URL returns the S3 API base URL, "http://127.0.0.1:port" (https with TLS).
func (s *Server) URL() string {
	if s.tls != nil {
		return "https://" + s.Endpoint
	}
	return "http://" + s.Endpoint
}

// Running reports whether the server process is running (it may not be ready yet).
func (s *Server) Running() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return false
	}
	select {
	case <-s.proc.exited:
		return false
	default:
		return true
	}
}

// PID returns the process id of the running server (also its process group id), 0 when stopped.
func (s *Server) PID() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.proc == nil {
		return 0
	}
	return s.proc.cmd.Process.Pid
}

// Stop terminates the server: SIGTERM, then SIGKILL to its process group after a short grace
// period. It returns when the process has exited. Stopping a stopped server does nothing.
func (s *Server) Stop() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.stopLocked()
}

// Restart stops the server if it runs and starts it again on the same ports with the same data
// directory and credentials, then waits until it is ready.
func (s *Server) Restart() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.stopLocked(); err != nil {
		return err
	}
	return s.startLocked()
}

func newServer(root, kind string) (*Server, error) {
	bin, err := ensureBinary(kind)
	if err != nil {
		return nil, err
	}
	addrs, err := freeAddrs(2)
	if err != nil {
		return nil, err
	}
	s := &Server{
		Endpoint:    addrs[0],
		AccessKey:   "mt-" + randomHex(8),
		SecretKey:   randomHex(20),
		DataDir:     filepath.Join(root, "data"),
		Kind:        kind,
		bin:         bin,
		consoleAddr: addrs[1],
		homeDir:     filepath.Join(root, "home"),
	}
	for _, d := range []string{s.DataDir, s.homeDir} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (s *Server) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.startLocked()
}

func (s *Server) startLocked() error {
	out := &tailBuffer{max: 64 << 10}
	var cmd *exec.Cmd
	switch s.Kind {
	case VersityGW:
		if s.tls != nil {
			return errors.New("TLS is set up for MinIO only")
		}
		cmd = exec.Command(s.bin, "--port", s.Endpoint, "--quiet", "posix", s.DataDir)
		cmd.Env = append(os.Environ(),
			"ROOT_ACCESS_KEY="+s.AccessKey,
			"ROOT_SECRET_KEY="+s.SecretKey,
			"HOME="+s.homeDir,
		)
	default:
		cmd = exec.Command(s.bin, "server", s.DataDir,
			"--address", s.Endpoint,
			"--console-address", s.consoleAddr,
			"--certs-dir", filepath.Join(s.homeDir, "certs"),
		)
		cmd.Env = append(os.Environ(),
			"MINIO_ROOT_USER="+s.AccessKey,
			"MINIO_ROOT_PASSWORD="+s.SecretKey,
			"MINIO_BROWSER=off",
			"MINIO_UPDATE=off",
			"HOME="+s.homeDir, // MinIO creates ~/.minio; keep it out of the real home
		)
	}
	cmd.Stdout = out
	cmd.Stderr = out
	cmd.SysProcAttr = sysProcAttr()
	cmd.WaitDelay = 5 * time.Second // do not hang on output pipes held by stray children
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("start %s: %w", s.bin, err)
	}
	p := &process{cmd: cmd, output: out, exited: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		close(p.exited)
	}()
	s.proc = p

	if err := s.waitReady(p); err != nil {
		_ = s.stopLocked()
		return fmt.Errorf("%w\n--- %s output ---\n%s", err, s.Kind, out.String())
	}
	return nil
}

// waitReady polls the liveness and readiness probes until both answer 200, then a signed S3
// request until it succeeds: MinIO reports ready slightly before it has initialized IAM, and
// answers "Server not initialized yet" (503) to signed requests in between.
func (s *Server) waitReady(p *process) error {
	ctx, cancel := context.WithTimeout(context.Background(), ReadyTimeout)
	defer cancel()
	httpClient := &http.Client{Timeout: 2 * time.Second}
	var transport http.RoundTripper
	if s.tls != nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{RootCAs: s.tls.RootCAs, MinVersion: tls.VersionTLS12}
		httpClient.Transport, transport = tr, tr
	}
	probe := func(path string) bool {
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, s.URL()+path, nil)
		if err != nil {
			return false
		}
		resp, err := httpClient.Do(req)
		if err != nil {
			return false
		}
		_ = resp.Body.Close()
		return resp.StatusCode == http.StatusOK
	}
	s3, err := minio.New(s.Endpoint, &minio.Options{
		Creds:      credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""),
		Region:     "us-east-1",
		MaxRetries: 1,
		Secure:     s.tls != nil,
		Transport:  transport,
	})
	if err != nil {
		return err
	}
	signed := func() error {
		ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		_, err := s3.ListBuckets(ctx)
		return err
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	var last error
	for {
		// versitygw has no health probes: a signed request is its readiness.
		if s.Kind == VersityGW || (probe("/minio/health/live") && probe("/minio/health/ready")) {
			if last = signed(); last == nil {
				return nil
			}
		}
		select {
		case <-p.exited:
			return fmt.Errorf("%s on %s exited before it was ready: %v", s.Kind, s.Endpoint, p.err)
		case <-ctx.Done():
			if last != nil {
				return fmt.Errorf("%s on %s not ready within %s: last S3 request: %v", s.Kind, s.Endpoint, ReadyTimeout, last)
			}
			return fmt.Errorf("%s on %s not ready within %s", s.Kind, s.Endpoint, ReadyTimeout)
		case <-tick.C:
		}
	}
}

func (s *Server) stopLocked() error {
	p := s.proc
	if p == nil {
		return nil
	}
	s.proc = nil
	pgid := p.cmd.Process.Pid // Setpgid: the group id is the leader's pid
	_ = syscall.Kill(-pgid, syscall.SIGTERM)
	select {
	case <-p.exited:
	case <-time.After(stopGrace):
	}
	// Kill whatever is left in the group, the leader included if it ignored SIGTERM.
	_ = syscall.Kill(-pgid, syscall.SIGKILL)
	select {
	case <-p.exited:
		return nil
	case <-time.After(10 * time.Second):
		return fmt.Errorf("%s (pid %d) did not exit after SIGKILL", s.Kind, pgid)
	}
}

// ensureBinary returns the path of the pinned binary of kind, running its install script
// (scripts/install-<kind>.sh) when the binary or its version stamp is missing. A file lock keeps
// concurrent test binaries from building it twice.
func ensureBinary(kind string) (string, error) {
	if kind != MinIO && kind != VersityGW {
		return "", fmt.Errorf("unknown server kind %q", kind)
	}
	root, err := modroot.Find()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(root, ".tools", "bin", kind)
	stamp := filepath.Join(root, ".tools", "bin", "."+kind+"-version")
	if installed(bin, stamp) {
		return bin, nil
	}
	if err := os.MkdirAll(filepath.Join(root, ".tools"), 0o755); err != nil {
		return "", err
	}
	lock, err := os.OpenFile(filepath.Join(root, ".tools", "."+kind+"-install.lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return "", err
	}
	defer lock.Close()
	if err := syscall.Flock(int(lock.Fd()), syscall.LOCK_EX); err != nil {
		return "", fmt.Errorf("lock %s install: %w", kind, err)
	}
	defer func() { _ = syscall.Flock(int(lock.Fd()), syscall.LOCK_UN) }()
	if installed(bin, stamp) { // another test binary installed it while we waited
		return bin, nil
	}
	script := filepath.Join(root, "scripts", "install-"+kind+".sh")
	cmd := exec.Command("bash", script)
	cmd.Dir = root
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s: %w\n%s", script, err, out)
	}
	if !installed(bin, stamp) {
		return "", fmt.Errorf("%s did not produce %s", script, bin)
	}
	return bin, nil
}

func installed(bin, stamp string) bool {
	fi, err := os.Stat(bin)
	if err != nil || fi.Mode()&0o111 == 0 {
		return false
	}
	_, err = os.Stat(stamp)
	return err == nil
}

// freeAddrs returns n distinct loopback addresses whose ports were free a moment ago.
func freeAddrs(n int) ([]string, error) {
	addrs := make([]string, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close() // hold all of them until every port is chosen, so they differ
		addrs = append(addrs, "127.0.0.1:"+strconv.Itoa(l.Addr().(*net.TCPAddr).Port))
	}
	return addrs, nil
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// tailBuffer keeps the last max bytes written to it; safe for concurrent use.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	buf bytes.Buffer
}

func (b *tailBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.buf.Write(p)
	if extra := b.buf.Len() - b.max; extra > 0 {
		b.buf.Next(extra)
	}
	return len(p), nil
}

func (b *tailBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// Main runs a test binary's tests with one server of the kind S3_TEST_SERVER names (MinIO by
// default), stored in *srv for the tests, and returns the exit code for os.Exit. Use it as the whole TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(miniotest.Main(m, &minio)) }
//
// Under -short (`make unit`) it starts nothing and leaves *srv nil: the tests that need the server
// skip (SkipWithout), and nothing is installed.
func Main(m *testing.M, srv **Server) int {
	flag.Parse()
	if testing.Short() {
		return m.Run()
	}
	s, stop, err := StartMain()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer stop()
	*srv = s
	return m.Run()
}
