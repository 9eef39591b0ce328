// Package bearer checks an HTTP Authorization header against a bearer token, for the worker's HTTP
// endpoints and `worker mcp --http`.
package bearer

import (
	"crypto/subtle"
	"strings"
)

// Valid reports whether header (the Authorization header's value) carries token with the Bearer
// scheme. The scheme is matched without regard to case (RFC 9110, section 11.1); the token is
// compared in constant time. An empty token is never valid.
func Valid(header, token string) bool {
	scheme, credentials, ok := strings.Cut(header, " ")
	if !ok || token == "" || !strings.EqualFold(scheme, "Bearer") {
		return false
	}
	return subtle.ConstantTimeCompare([]byte(strings.TrimLeft(credentials, " ")), []byte(token)) == 1
}
