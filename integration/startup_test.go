package integration

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
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
