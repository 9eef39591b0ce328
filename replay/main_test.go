package replay_test

import (
	"os"
	"testing"

	"github.com/agentworks/artifact-worker/internal/testing/miniotest"
)

var minio *miniotest.Server

func TestMain(m *testing.M) { os.Exit(miniotest.Main(m, &minio)) }
