package service

import (
	"fmt"
	"net"
	"path/filepath"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// startEmbeddedNATS runs an in-process nats-server with JetStream on addr, storing under dataDir.
// The caller shuts it down after the worker's connections are closed.
func startEmbeddedNATS(addr, dataDir string) (*server.Server, error) {
	host, portStr, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("EMBEDDED_NATS_ADDR %q: %w", addr, err)
	}
	port, err := strconv.Atoi(portStr)
	if err != nil {
		return nil, fmt.Errorf("EMBEDDED_NATS_ADDR %q: %w", addr, err)
	}
	// nats-server does not report a port it cannot listen on (it never becomes ready): try it first.
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, &SettingError{Settings: "EMBEDDED_NATS_ADDR", Err: fmt.Errorf("the embedded nats-server cannot listen on %s (in use, or not this host's; set NATS_URL to use a running server): %w", addr, err)}
	}
	_ = l.Close()
	s, err := server.NewServer(&server.Options{
		ServerName: "worker-embedded",
		Host:       host,
		Port:       port,
		JetStream:  true,
		StoreDir:   filepath.Join(dataDir, "jetstream"),
		NoSigs:     true,
		NoLog:      true,
	})
	if err != nil {
		return nil, fmt.Errorf("embedded nats-server: %w", err)
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("embedded nats-server on %s not ready within 10s", addr)
	}
	return s, nil
}
