package integration

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// A bad setting stops start-up with exit code 2 and a message naming every bad setting.
func TestBadSettingsExitTwoNamingThem(t *testing.T) {
	cmd := exec.Command(workerBin, "run")
	cmd.Env = append(os.Environ(), "NATS_URL=http://not-nats", "ACK_WAIT=1s", "S3_ENDPOINT=minio:9000", "DATA_DIR="+t.TempDir())
	out, err := cmd.CombinedOutput()
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 {
		t.Fatalf("exit = %v, want 2\n%s", err, out)
	}
	for _, name := range []string{"NATS_URL", "ACK_WAIT", "S3_ACCESS_KEY", "S3_SECRET_KEY"} {
		if !strings.Contains(string(out), name) {
			t.Errorf("start-up message does not name %s:\n%s", name, out)
		}
	}
}

// Wrong S3 keys are a bad setting, not an outage: the worker exits 2 at once naming them, instead of
// waiting StartupTimeout for a storage that will never accept them.
func TestWrongS3KeysExitTwoAtOnce(t *testing.T) {
	n := startNATS(t)
	cmd := exec.Command(workerBin, "run")
	cmd.Env = append(os.Environ(), "NATS_URL="+n.URL(), "S3_ENDPOINT="+minio.Endpoint, "S3_ACCESS_KEY="+minio.AccessKey,
		"S3_SECRET_KEY=wrong-"+minio.SecretKey, "S3_BUCKET=it-"+randomHex(5), "DATA_DIR="+t.TempDir(), "HTTP_ADDR=127.0.0.1:0")
	start := time.Now()
	out, err := cmd.CombinedOutput()
	took := time.Since(start)
	t.Logf("FIGURES wrong S3 keys: exit %d after %s", cmd.ProcessState.ExitCode(), took.Round(time.Millisecond))
	if cmd.ProcessState == nil || cmd.ProcessState.ExitCode() != 2 {
		t.Fatalf("exit = %v, want 2\n%s", err, out)
	}
	if took > 10*time.Second {
		t.Errorf("took %s to give up: a refused key must not be retried like an outage", took)
	}
	for _, name := range []string{"S3_ACCESS_KEY", "S3_SECRET_KEY"} {
		if !strings.Contains(string(out), name) {
			t.Errorf("start-up message does not name %s:\n%s", name, out)
		}
	}
}

// Settings that cannot work are not outages: each stops start-up at once with exit code 2 and a
// message naming the setting, instead of being retried for the start-up wait (60 s) and exiting 1.
func TestWrongSettingsExitTwoAtOnce(t *testing.T) {
	plain := startNATS(t)
	noJS, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true}) // JetStream off
	if err != nil {
		t.Fatal(err)
	}
	go noJS.Start()
	if !noJS.ReadyForConnections(10 * time.Second) {
		t.Fatal("nats-server without JetStream not ready")
	}
	t.Cleanup(noJS.Shutdown)
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { taken.Close() })
	notPEM := filepath.Join(t.TempDir(), "ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	s3 := []string{"S3_ENDPOINT=" + minio.Endpoint, "S3_ACCESS_KEY=" + minio.AccessKey, "S3_SECRET_KEY=" + minio.SecretKey, "S3_BUCKET=it-" + randomHex(5)}
	for _, tt := range []struct {
		name, setting, says string
		env                 []string
	}{
		{"NATS without JetStream", "NATS_URL", "JetStream", append([]string{"NATS_URL=" + noJS.ClientURL()}, s3...)},
		{"embedded NATS port in use", "EMBEDDED_NATS_ADDR", "cannot listen", append([]string{"NATS_URL=", "EMBEDDED_NATS_ADDR=" + taken.Addr().String()}, s3...)},
		{"TLS to a plain NATS", "NATS_URL", "TLS", append([]string{"NATS_URL=" + strings.Replace(plain.URL(), "nats://", "tls://", 1)}, s3...)},
		{"NATS CA file not PEM", "NATS_TLS_CA", "PEM", append([]string{"NATS_URL=" + plain.URL(), "NATS_TLS_CA=" + notPEM}, s3...)},
		{"HTTPS to a plain S3", "S3_USE_SSL", "plain HTTP", append([]string{"NATS_URL=" + plain.URL(), "S3_USE_SSL=true"}, s3...)},
		{"replicas on a single server", "JETSTREAM_REPLICAS", "not clustered", append([]string{"NATS_URL=" + plain.URL(), "JETSTREAM_REPLICAS=3"}, s3...)},
	} {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cmd := exec.Command(workerBin, "run")
			cmd.Env = append(append(os.Environ(), "DATA_DIR="+t.TempDir(), "HTTP_ADDR=127.0.0.1:0", "LOG_FORMAT=json"), tt.env...)
			start := time.Now()
			out, err := cmd.CombinedOutput()
			took := time.Since(start)
			t.Logf("FIGURES %s: exit %d after %s", tt.name, cmd.ProcessState.ExitCode(), took.Round(time.Millisecond))
			if cmd.ProcessState.ExitCode() != 2 || !strings.Contains(string(out), tt.setting) || !strings.Contains(string(out), tt.says) {
				t.Fatalf("exit %v, want 2 naming %s (%q):\n%s", err, tt.setting, tt.says, out)
			}
			if took > 15*time.Second {
				t.Errorf("took %s: a wrong setting must not be retried like an outage", took)
			}
		})
	}
}

// An S3 endpoint where nothing answers is an outage (waited for), named by S3_ENDPOINT, the setting
// to check, not S3_BUCKET.
func TestUnreachableS3IsNamedByItsEndpoint(t *testing.T) {
	n := startNATS(t)
	nowhere := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(workerBin, "run")
	logs := filepath.Join(t.TempDir(), "worker.log")
	logFile, err := os.Create(logs)
	if err != nil {
		t.Fatal(err)
	}
	defer logFile.Close()
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.Env = append(os.Environ(), "NATS_URL="+n.URL(), "S3_ENDPOINT="+nowhere, "S3_ACCESS_KEY=k", "S3_SECRET_KEY=s",
		"DATA_DIR="+t.TempDir(), "HTTP_ADDR=127.0.0.1:0", "LOG_FORMAT=json")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	var line string
	waitFor(t, 30*time.Second, "the wait for the storage logged", func() bool {
		for _, l := range strings.Split(readFile(logs), "\n") {
			if strings.Contains(l, `"dependency":"storage"`) {
				line = l
				return true
			}
		}
		return false
	})
	if !strings.Contains(line, "S3_ENDPOINT "+nowhere) || strings.Contains(line, "S3_BUCKET") {
		t.Fatalf("the storage wait does not name S3_ENDPOINT %s (or names S3_BUCKET):\n%s", nowhere, line)
	}
}
