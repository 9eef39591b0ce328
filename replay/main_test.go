package replay_test

import (
	"fmt"
	"os"
	"testing"

	"github.com/agentworks/artifact-worker/internal/miniotest"
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
