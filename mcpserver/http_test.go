package mcpserver_test

import (
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentworks/artifact-worker/mcpserver"
	"github.com/agentworks/artifact-worker/service/servicetest"
)

// bearer adds an Authorization header to every request.
type bearer struct{ token string }

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return http.DefaultTransport.RoundTrip(r)
}

func TestHTTPTokenAndOrigin(t *testing.T) {
	w := servicetest.Start(t, minio)
	h, err := mcpserver.HTTPHandler(mcpserver.New(w.Client, mcpserver.Config{}), mcpserver.HTTPOptions{Token: "right", TrustedOrigins: []string{"https://inspector.example:6274"}})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)

	connect := func(token string) (*mcp.ClientSession, error) {
		tr := &mcp.StreamableClientTransport{Endpoint: srv.URL, HTTPClient: &http.Client{Transport: bearer{token}}}
		return mcp.NewClient(&mcp.Implementation{Name: "test", Version: "1"}, nil).Connect(context.Background(), tr, nil)
	}
	cs, err := connect("right")
	if err != nil {
		t.Fatalf("with the token: %v", err)
	}
	t.Cleanup(func() { cs.Close() })
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil || len(res.Tools) != 3 {
		t.Fatalf("tools with the token: %v %+v", err, res)
	}
	t.Logf("protocol version negotiated by the Go SDK client: %s", cs.InitializeResult().ProtocolVersion)

	post := func(header map[string]string) int {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	for _, tc := range []struct {
		name   string
		header map[string]string
		want   int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer wrong"}, http.StatusUnauthorized},
		{"not bearer", map[string]string{"Authorization": "Basic cmlnaHQ="}, http.StatusUnauthorized},
		{"foreign origin", map[string]string{"Authorization": "Bearer right", "Origin": "https://evil.example"}, http.StatusForbidden},
		{"foreign origin without token", map[string]string{"Origin": "https://evil.example"}, http.StatusForbidden},
		{"own origin", map[string]string{"Authorization": "Bearer right", "Origin": srv.URL}, http.StatusOK},
		{"trusted origin", map[string]string{"Authorization": "Bearer right", "Origin": "https://inspector.example:6274"}, http.StatusOK},
	} {
		if got := post(tc.header); got != tc.want {
			t.Errorf("%s: %d, want %d", tc.name, got, tc.want)
		}
	}
	if _, err := connect("wrong"); err == nil {
		t.Error("the SDK client connected with a wrong token")
	}
	if _, err := mcpserver.HTTPHandler(nil, mcpserver.HTTPOptions{TrustedOrigins: []string{"inspector.example"}}); err == nil {
		t.Error("an origin without a scheme was taken")
	}
}

func TestCheckListener(t *testing.T) {
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:0", "", true},
		{"[::1]:0", "", true},
		{"0.0.0.0:0", "", false},
		{"0.0.0.0:0", "t", true},
	} {
		ln, err := net.Listen("tcp", tc.addr)
		if err != nil {
			t.Logf("%s: %v (skipped)", tc.addr, err)
			continue
		}
		err = mcpserver.CheckListener(ln.Addr(), tc.token)
		ln.Close()
		if (err == nil) != tc.ok || err != nil && !errors.Is(err, mcpserver.ErrTokenRequired) {
			t.Errorf("%s token %q: %v", tc.addr, tc.token, err)
		}
	}
}

// TestHTTPDNSRebinding: without a token, a page whose name was rebound to the loopback address is
// same-origin by the Origin check (its Origin and Host agree) and must still be refused, by its
// Host (HTTPHandler's doc comment; the SDK's localhost protection).
func TestHTTPDNSRebinding(t *testing.T) {
	t.Parallel()
	h, err := mcpserver.HTTPHandler(mcpserver.New(nil, mcpserver.Config{}), mcpserver.HTTPOptions{})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	_, port, _ := net.SplitHostPort(strings.TrimPrefix(srv.URL, "http://"))
	for _, tc := range []struct {
		host string
		want int
	}{
		{"attacker.example:" + port, http.StatusForbidden},
		{"127.0.0.1:" + port, http.StatusOK},
		{"localhost:" + port, http.StatusOK},
	} {
		req, _ := http.NewRequest(http.MethodPost, srv.URL, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{}}`))
		req.Host = tc.host
		req.Header.Set("Origin", "http://"+tc.host)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("Host and Origin %s: %d, want %d", tc.host, resp.StatusCode, tc.want)
		}
	}
}
