package integration

import (
	"os"
	"os/exec"
	"strings"
	"testing"
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
