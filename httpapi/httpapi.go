// Package httpapi serves the worker's HTTP endpoints: /healthz (the process is alive), /readyz (every
// readiness check passes: NATS connected, storage reachable, consumers bound), /metrics, and the
// artifact endpoints for the chat panel when an Artifacts implementation is given.
package httpapi

import (
	"context"
	"encoding/json"
	"net/http"
	"time"
)

// Check is one readiness condition; it returns nil when ready.
type Check struct {
	Name string
	Func func(context.Context) error
}

// Server holds the handlers. Create it with New and serve Handler().
type Server struct {
	mux    *http.ServeMux
	checks []Check
}

// New returns the HTTP handlers.
func New(metrics http.Handler, checks []Check) *Server {
	s := &Server{mux: http.NewServeMux(), checks: checks}
	s.mux.HandleFunc("GET /healthz", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]string{"status": "ok"})
	})
	s.mux.HandleFunc("GET /readyz", s.ready)
	if metrics != nil {
		s.mux.Handle("GET /metrics", metrics)
	}
	return s
}

// Handler returns the root handler.
func (s *Server) Handler() http.Handler { return s.mux }

func (s *Server) ready(w http.ResponseWriter, r *http.Request) {
	ctx, cancel := context.WithTimeout(r.Context(), 2*time.Second)
	defer cancel()
	status := http.StatusOK
	results := make(map[string]string, len(s.checks))
	for _, c := range s.checks {
		if err := c.Func(ctx); err != nil {
			status = http.StatusServiceUnavailable
			results[c.Name] = err.Error()
			continue
		}
		results[c.Name] = "ok"
	}
	writeJSON(w, status, map[string]any{"ready": status == http.StatusOK, "checks": results})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}
