// Package natstest starts real, embedded nats-servers with JetStream for tests.
package natstest

import (
	"fmt"
	"net/url"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
)

// Options tunes the test server. The zero value gives JetStream on a random loopback port with a
// store under t.TempDir() and the default 1 MiB max payload.
type Options struct {
	// Port, when non-zero, binds that port (a restarted server keeps its clients' URL).
	Port int
	// StoreDir, when set, is the JetStream store directory (reuse it to keep data across restarts).
	StoreDir string
	// MaxPayload overrides the 1 MiB default.
	MaxPayload int32
	// Cluster, when Cluster.Port is set, makes the server one node of a JetStream cluster.
	Cluster Cluster
	// Host, when set, is the address the server listens on (clients, routes and monitoring)
	// instead of loopback: a server run in a network namespace of its own listens on its address
	// there.
	Host string
}

// Cluster places a server in a cluster: every node has a unique Name, the same ClusterName, its
// own route Port on loopback, and Routes to the route ports of the others (its own may be listed).
type Cluster struct {
	Name        string
	ClusterName string
	Port        int
	Routes      []string // "nats-route://127.0.0.1:port"
	// HTTPPort, when set, serves monitoring (/healthz: 200 once this node's JetStream assets are
	// current, what a rolling restart waits for) on loopback.
	HTTPPort int
	// Advertise, when set, is the route URL ("host:port") this node gives its peers to reach it,
	// instead of its own route port: a test that routes the cluster through proxies points it at
	// one, so that no peer dials this node's route port directly.
	Advertise string
	// PingInterval and PingMax, when set, are the cluster's route ping settings (nats-server's
	// cluster ping_interval and ping_max): a route whose peer stops answering (a network that drops
	// the packets) is closed after about PingInterval x (PingMax+1); by default, after 30 s x 3.
	PingInterval time.Duration
	PingMax      int
}

// Start runs an embedded nats-server until the test ends.
func Start(t testing.TB, opts ...Options) *server.Server {
	t.Helper()
	var o Options
	if len(opts) > 0 {
		o = opts[0]
	}
	if o.StoreDir == "" {
		o.StoreDir = t.TempDir()
	}
	s, err := NewServer(o)
	if err != nil {
		t.Fatalf("natstest: %v", err)
	}
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	return s
}

// NewServer starts an embedded nats-server outside of a test (TestMain, helper processes). The
// caller shuts it down.
func NewServer(o Options) (*server.Server, error) {
	port := o.Port
	if port == 0 {
		port = server.RANDOM_PORT
	}
	host := o.Host
	if host == "" {
		host = "127.0.0.1"
	}
	sopts := &server.Options{
		Host:      host,
		Port:      port,
		JetStream: true,
		StoreDir:  o.StoreDir,
		NoLog:     true,
		NoSigs:    true,
	}
	if o.MaxPayload > 0 {
		sopts.MaxPayload = o.MaxPayload
	}
	if c := o.Cluster; c.Port != 0 {
		sopts.ServerName = c.Name
		sopts.Cluster = server.ClusterOpts{Name: c.ClusterName, Host: host, Port: c.Port, Advertise: c.Advertise,
			PingInterval: c.PingInterval, MaxPingsOut: c.PingMax}
		sopts.HTTPHost, sopts.HTTPPort = host, c.HTTPPort
		for _, r := range c.Routes {
			u, err := url.Parse(r)
			if err != nil {
				return nil, fmt.Errorf("natstest: route %q: %w", r, err)
			}
			sopts.Routes = append(sopts.Routes, u)
		}
	}
	s, err := server.NewServer(sopts)
	if err != nil {
		return nil, err
	}
	go s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, errNotReady
	}
	return s, nil
}

type notReadyError struct{}

func (notReadyError) Error() string { return "nats-server not ready within 10s" }

var errNotReady error = notReadyError{}

// Connect opens a client connection to s that is closed when the test ends.
func Connect(t testing.TB, s *server.Server, opts ...nats.Option) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL(), opts...)
	if err != nil {
		t.Fatalf("natstest: connect: %v", err)
	}
	t.Cleanup(nc.Close)
	return nc
}
