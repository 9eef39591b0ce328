package service_test

import (
	"os"
	"testing"

	"github.com/agentworks/artifact-worker/internal/testing/miniotest"
	"github.com/agentworks/artifact-worker/service"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

var minio *miniotest.Server

func TestMain(m *testing.M) { os.Exit(miniotest.Main(m, &minio)) }

func startWorker(t *testing.T, mutate ...func(*service.Config)) *servicetest.Worker {
	return servicetest.Start(t, minio, mutate...)
}

var randomHex = servicetest.RandomHex
