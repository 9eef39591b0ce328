package mcpserver

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/agentworks/artifact-worker/internal/bearer"
)

// HTTPOptions protects the streamable HTTP endpoint.
type HTTPOptions struct {
	// Token, when not empty, is required on every request as "Authorization: Bearer <Token>";
	// a request without it or with another gets 401.
	Token string
	// TrustedOrigins are browser origins ("https://inspector.example:6274") allowed to call besides
	// the server's own; a request from any other Origin gets 403.
	TrustedOrigins []string
}

// Validate reports every trusted origin that is not of the form scheme://host[:port].
func (o HTTPOptions) Validate() error {
	var errs []error
	for _, origin := range o.TrustedOrigins {
		u, err := url.Parse(origin)
		if err != nil || u.Scheme == "" || u.Host == "" || u.Path != "" || u.RawQuery != "" || u.Fragment != "" {
			errs = append(errs, fmt.Errorf("trusted origin %q: want scheme://host[:port]", origin))
		}
	}
	return errors.Join(errs...)
}

// ErrTokenRequired is returned by CheckListener for an address beyond loopback without a token.
var ErrTokenRequired = errors.New("a bearer token is required to listen beyond loopback")

// CheckListener refuses to serve on an address reachable from other hosts (anything but a loopback
// IP, including every interface) without a token: the tools read every artifact and write
// workspace files.
func CheckListener(addr net.Addr, token string) error {
	tcp, ok := addr.(*net.TCPAddr)
	if token != "" || ok && tcp.IP.IsLoopback() {
		return nil
	}
	return fmt.Errorf("%s: %w", addr, ErrTokenRequired)
}

// HTTPHandler serves s as streamable HTTP. It is stateless, so clients of the 2026-07-28 protocol
// (no initialize, no session) and of the earlier ones (a session per request) are both served;
// the tools need nothing from a session. Every request first passes the Origin check (a browser
// page of a foreign origin gets 403, whatever the method), then the token (401). Requests that
// arrive on a loopback address with a Host that is not loopback get 403 (DNS rebinding).
func HTTPHandler(s *mcp.Server, o HTTPOptions) (http.Handler, error) {
	if err := o.Validate(); err != nil {
		return nil, err
	}
	trusted := map[string]bool{}
	for _, origin := range o.TrustedOrigins {
		trusted[strings.ToLower(origin)] = true
	}
	var h http.Handler = mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
		&mcp.StreamableHTTPOptions{Stateless: true})
	if o.Token != "" {
		h = requireToken(h, o.Token)
	}
	return checkOrigin(h, trusted), nil
}

// checkOrigin refuses requests whose Origin is neither trusted nor the server's own (same host and
// port as the Host the request was sent to). Clients other than browsers send no Origin.
func checkOrigin(next http.Handler, trusted map[string]bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin := r.Header.Get("Origin")
		if origin != "" && !trusted[strings.ToLower(origin)] {
			u, err := url.Parse(origin)
			if err != nil || !strings.EqualFold(u.Host, r.Host) {
				http.Error(w, fmt.Sprintf("Forbidden: Origin %q is not allowed (worker mcp --allow-origin)", origin), http.StatusForbidden)
				return
			}
		}
		next.ServeHTTP(w, r)
	})
}

func requireToken(next http.Handler, token string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !bearer.Valid(r.Header.Get("Authorization"), token) {
			w.Header().Set("WWW-Authenticate", `Bearer realm="mcp"`)
			http.Error(w, "Unauthorized: a valid bearer token is required", http.StatusUnauthorized)
			return
		}
		next.ServeHTTP(w, r)
	})
}
