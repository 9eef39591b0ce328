package service_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/internal/testing/natstest"
	"github.com/agentworks/artifact-worker/service"
)

// TestHTTPAddrInUseIsABadSetting: an HTTP_ADDR the worker cannot listen on is a bad setting (a
// *SettingError naming HTTP_ADDR, exit code 2 from worker run), which waiting or restarting does not fix.
func TestHTTPAddrInUseIsABadSetting(t *testing.T) {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = busy.Close() })
	ns := natstest.Start(t)
	cfg := service.Config{NATSURL: ns.ClientURL(), DataDir: t.TempDir(), HTTPAddr: busy.Addr().String()}
	svc, err := service.New(context.Background(), cfg, slog.New(slog.NewTextHandler(io.Discard, nil)))
	var se *service.SettingError
	if svc != nil || !errors.As(err, &se) || se.Settings != "HTTP_ADDR" || !strings.Contains(err.Error(), busy.Addr().String()) {
		t.Fatalf("service.New = %v, %v; want a SettingError naming HTTP_ADDR and the address", svc, err)
	}
}
