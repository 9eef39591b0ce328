package service

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/agentworks/artifact-worker/httpapi"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/scope"
)

// httpTokens returns the bearer tokens of the /artifacts endpoints and the scope each grants:
// HTTP_TOKEN with HTTP_SCOPE (default "*"), then every line of HTTP_TOKENS_FILE.
func httpTokens(c Config) ([]httpapi.Token, error) {
	var out []httpapi.Token
	if c.HTTPToken != "" {
		sc := scope.All
		if c.HTTPScope != "" {
			var err error
			if sc, err = scope.Parse(c.HTTPScope); err != nil {
				return nil, fmt.Errorf("HTTP_SCOPE: %w", err)
			}
		}
		out = append(out, httpapi.Token{Secret: c.HTTPToken, Scope: sc})
	}
	if c.HTTPTokensFile != "" {
		data, err := os.ReadFile(c.HTTPTokensFile)
		if err != nil {
			return nil, fmt.Errorf("HTTP_TOKENS_FILE: %w", err)
		}
		ts, err := parseTokens(data)
		if err != nil {
			return nil, fmt.Errorf("HTTP_TOKENS_FILE: %s: %w", c.HTTPTokensFile, err)
		}
		out = append(out, ts...)
	}
	return out, nil
}

// parseTokens reads a tokens file: one "<token> <scope>" per line (the scope as the
// Artifact-Worker-Scope header writes it); blank lines and lines starting with '#' are skipped.
func parseTokens(data []byte) ([]httpapi.Token, error) {
	var out []httpapi.Token
	seen := map[string]bool{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		secret, rest, ok := strings.Cut(line, " ")
		if !ok {
			secret, rest, ok = strings.Cut(line, "\t")
		}
		if !ok || strings.TrimSpace(rest) == "" {
			return nil, fmt.Errorf("line %d: not \"<token> <scope>\"", n)
		}
		if len(secret) < 16 {
			return nil, fmt.Errorf("line %d: a token has at least 16 characters", n)
		}
		if seen[secret] {
			return nil, fmt.Errorf("line %d: the token is given twice", n)
		}
		seen[secret] = true
		s, err := scope.Parse(strings.TrimSpace(rest))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, httpapi.Token{Secret: secret, Scope: s})
	}
	return out, sc.Err()
}

// validateScopeSettings reports the scope settings' problems through bad.
func validateScopeSettings(c Config, bad func(name, format string, args ...any)) {
	if c.HTTPScope != "" {
		if c.HTTPToken == "" {
			bad("HTTP_SCOPE", "set without HTTP_TOKEN (it is the scope of the requests that token authenticates)")
		} else if _, err := scope.Parse(c.HTTPScope); err != nil {
			bad("HTTP_SCOPE", "%v", err)
		}
	}
	if c.HTTPTokensFile != "" {
		if _, err := httpTokens(Config{HTTPTokensFile: c.HTTPTokensFile}); err != nil {
			bad("HTTP_TOKENS_FILE", "%v", strings.TrimPrefix(err.Error(), "HTTP_TOKENS_FILE: "))
		}
	}
	if c.RequireScope {
		switch {
		case c.HTTPToken == "" && c.HTTPTokensFile == "":
			bad("REQUIRE_SCOPE", "the /artifacts endpoints would read every artifact unauthenticated: set HTTP_TOKENS_FILE (a scope per token), or HTTP_TOKEN with HTTP_SCOPE")
		case c.HTTPToken != "" && c.HTTPScope == "":
			bad("REQUIRE_SCOPE", "HTTP_TOKEN needs an explicit HTTP_SCOPE (\"*\" to read everything)")
		}
	}
}

// httpAuth is the /artifacts endpoints' authentication, their refusals logged and counted on
// MetricScopeRefusals (subject: the endpoint).
func httpAuth(c Config, meter metric.Meter, log *slog.Logger) (httpapi.Auth, error) {
	tokens, err := httpTokens(c)
	if err != nil {
		return httpapi.Auth{}, err
	}
	au := httpapi.Auth{Tokens: tokens}
	var refusals metric.Int64Counter
	if meter != nil {
		if refusals, err = meter.Int64Counter(messaging.MetricScopeRefusals, metric.WithDescription(messaging.ScopeRefusalsDescription)); err != nil {
			return httpapi.Auth{}, err
		}
	}
	au.Refused = func(ctx context.Context, endpoint string, r *scope.Refusal) {
		log.WarnContext(ctx, "request", "subject", endpoint, "outcome", "error_reply", "code", "artifact_not_found",
			"scope_refused", r.Reason, "scope_refused_ref", r.Ref, "scope", scope.From(ctx).String())
		if refusals != nil {
			refusals.Add(ctx, 1, metric.WithAttributes(attribute.String("subject", endpoint), attribute.String("reason", r.Reason)))
		}
	}
	return au, nil
}
