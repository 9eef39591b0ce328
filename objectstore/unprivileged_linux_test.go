package objectstore_test

import (
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// unprivilegedEnv marks the copy of the test binary that runUnprivileged starts.
const unprivilegedEnv = "OBJECTSTORE_TEST_UNPRIVILEGED"

// runUnprivileged runs test (a top-level test of this package) again in a copy of the test
// binary as user and group nobody (65534), because root ignores file permissions, and fails t
// with its output if it fails. It reports false when t is already that unprivileged run.
func runUnprivileged(t *testing.T, test string) bool {
	t.Helper()
	if os.Getenv(unprivilegedEnv) != "" {
		return false
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// go test's build directory is private to root: run a world-readable copy.
	dir, err := os.MkdirTemp("", "objectstore-unprivileged-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "objectstore.test")
	copyFile(t, exe, bin)
	cmd := exec.Command(bin, "-test.run", "^"+test+"$", "-test.count=1", "-test.v")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), unprivilegedEnv+"=1", "TMPDIR="+os.TempDir())
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s as nobody: %v\n%s", test, err, out)
	}
	t.Logf("%s ran as nobody:\n%s", test, out)
	return true
}

func copyFile(t *testing.T, from, to string) {
	t.Helper()
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.OpenFile(to, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o755)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
	if err := out.Close(); err != nil {
		t.Fatal(err)
	}
}
