package service_test

import (
	"os"
	"testing"

	"github.com/agentworks/artifact-worker/internal/miniotest"
	"github.com/agentworks/artifact-worker/internal/workertest"
	"github.com/agentworks/artifact-worker/service"
)

var minio *miniotest.Server

func TestMain(m *testing.M) { os.Exit(miniotest.Main(m, &minio)) }

func startWorker(t *testing.T, mutate ...func(*service.Config)) *workertest.Worker {
	return workertest.Start(t, minio, mutate...)
}

var randomHex = workertest.RandomHex
