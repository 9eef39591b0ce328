package service_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/agentworks/artifact-worker/internal/miniotest"
	"github.com/agentworks/artifact-worker/internal/workertest"
	"github.com/agentworks/artifact-worker/service"
)

var minio *miniotest.Server

func TestMain(m *testing.M) {
	srv, stop, err := miniotest.StartMain()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	minio = srv
	code := m.Run()
	stop()
	os.Exit(code)
}

func startWorker(t *testing.T, mutate ...func(*service.Config)) *workertest.Worker {
	return workertest.Start(t, minio, mutate...)
}

var randomHex = workertest.RandomHex
