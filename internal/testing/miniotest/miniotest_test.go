package miniotest_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"syscall"
	"testing"
	"time"

	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"

	"github.com/agentworks/artifact-worker/internal/testing/miniotest"
)

func client(t *testing.T, s *miniotest.Server) *minio.Client {
	t.Helper()
	c, err := minio.New(s.Endpoint, &minio.Options{
		Creds:      credentials.NewStaticV4(s.AccessKey, s.SecretKey, ""),
		Region:     "us-east-1",
		MaxRetries: 1,
	})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func healthy(s *miniotest.Server) bool {
	c := &http.Client{Timeout: time.Second}
	resp, err := c.Get(s.URL() + "/minio/health/ready")
	if err != nil {
		return false
	}
	resp.Body.Close()
	return resp.StatusCode == http.StatusOK
}

func TestStartStopRestartKeepsData(t *testing.T) {
	s := miniotest.Start(t)
	if !healthy(s) || !s.Running() {
		t.Fatal("server not ready after Start")
	}
	if s.Endpoint == "" || s.AccessKey == "" || s.SecretKey == "" || s.DataDir == "" {
		t.Fatalf("incomplete server: %+v", s)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	c := client(t, s)
	if err := c.MakeBucket(ctx, "keep", minio.MakeBucketOptions{}); err != nil {
		t.Fatal(err)
	}
	body := []byte("survives restarts")
	if _, err := c.PutObject(ctx, "keep", "k", bytes.NewReader(body), int64(len(body)), minio.PutObjectOptions{}); err != nil {
		t.Fatal(err)
	}

	endpoint := s.Endpoint
	if err := s.Stop(); err != nil {
		t.Fatal(err)
	}
	if s.Running() || healthy(s) {
		t.Fatal("server still answers after Stop")
	}
	if err := s.Stop(); err != nil {
		t.Fatalf("second Stop: %v", err)
	}

	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if s.Endpoint != endpoint || !healthy(s) {
		t.Fatalf("after Restart: endpoint %s (was %s), healthy %v", s.Endpoint, endpoint, healthy(s))
	}
	obj, err := c.GetObject(ctx, "keep", "k", minio.GetObjectOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer obj.Close()
	got, err := io.ReadAll(obj)
	if err != nil {
		t.Fatalf("read after Restart: %v", err)
	}
	if !bytes.Equal(got, body) {
		t.Fatalf("got %q, want %q", got, body)
	}

	// Restart of a running server works too.
	if err := s.Restart(); err != nil {
		t.Fatal(err)
	}
	if !healthy(s) {
		t.Fatal("not healthy after restarting a running server")
	}
}

func TestStartMainCleansUp(t *testing.T) {
	s, stop, err := miniotest.StartMain()
	if err != nil {
		t.Fatal(err)
	}
	pid := s.PID()
	if pid <= 0 {
		t.Fatalf("PID() = %d for a running server", pid)
	}
	stop()
	if err := syscall.Kill(pid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Fatalf("minio pid %d still exists after stop (kill 0: %v)", pid, err)
	}
	if _, err := os.Stat(s.DataDir); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("data dir %s not removed: %v", s.DataDir, err)
	}
}
