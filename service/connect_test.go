package service

import (
	"io"
	"log/slog"
	"net"
	"strings"
	"testing"
)

// A refused connection names the setting the operator used: EMBEDDED_NATS_ADDR on the embedded
// default (`worker call` with no worker running), NATS_URL when it is set.
func TestConnectRefusedNamesTheSettingUsed(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close() // nothing listens there now
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	_, err = Connect(Config{EmbeddedNATSAddr: addr}, "t", log)
	if err == nil || !strings.HasPrefix(err.Error(), "EMBEDDED_NATS_ADDR "+addr+" ") {
		t.Errorf("embedded default: %v, want it to start with EMBEDDED_NATS_ADDR %s", err, addr)
	}
	_, err = Connect(Config{NATSURL: "nats://" + addr}, "t", log)
	if err == nil || !strings.HasPrefix(err.Error(), "NATS_URL nats://"+addr+": ") {
		t.Errorf("NATS_URL: %v, want it to start with NATS_URL", err)
	}
}
