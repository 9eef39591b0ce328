package service

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"strings"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/handlers"
	"github.com/agentworks/artifact-worker/httpapi"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/scope"
)

// httpToken is a bearer token of the /artifacts endpoints, with the tenant whose artifacts it reads
// ("": the pool's own).
type httpToken struct {
	httpapi.Token
	tenant string
}

// httpTokens returns the bearer tokens of the /artifacts endpoints and the scope each grants:
// HTTP_TOKEN with HTTP_SCOPE (default "*"), then every line of HTTP_TOKENS_FILE.
func httpTokens(c Config) ([]httpToken, error) {
	var out []httpToken
	if c.HTTPToken != "" {
		sc := scope.All
		if c.HTTPScope != "" {
			var err error
			if sc, err = scope.Parse(c.HTTPScope); err != nil {
				return nil, fmt.Errorf("HTTP_SCOPE: %w", err)
			}
		}
		out = append(out, httpToken{Token: httpapi.Token{Secret: c.HTTPToken, Scope: sc}})
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
// Artifact-Worker-Scope header writes it), or "<token> tenant:<name> <scope>" for a token that
// reads tenant name's artifacts (TENANTS); blank lines and lines starting with '#' are skipped.
func parseTokens(data []byte) ([]httpToken, error) {
	var out []httpToken
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
		rest = strings.TrimSpace(rest)
		tenant := ""
		if t, ok := strings.CutPrefix(rest, "tenant:"); ok {
			tenant, rest, _ = strings.Cut(strings.Replace(t, "\t", " ", 1), " ")
			if err := contracts.ValidateTenant(tenant); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
			if rest = strings.TrimSpace(rest); rest == "" {
				return nil, fmt.Errorf("line %d: not \"<token> tenant:<name> <scope>\"", n)
			}
		}
		s, err := scope.Parse(rest)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, httpToken{Token: httpapi.Token{Secret: secret, Scope: s}, tenant: tenant})
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
		tokens, err := httpTokens(Config{HTTPTokensFile: c.HTTPTokensFile})
		if err != nil {
			bad("HTTP_TOKENS_FILE", "%v", strings.TrimPrefix(err.Error(), "HTTP_TOKENS_FILE: "))
		}
		tenants, _ := parseTenants(c.Tenants)
		for _, t := range tokens {
			if t.tenant != "" && !slices.Contains(tenants, t.tenant) {
				bad("HTTP_TOKENS_FILE", "a token of tenant %q, which TENANTS does not list", t.tenant)
				break
			}
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
// MetricScopeRefusals (subject: the endpoint). A tenant's token reads tenants[its tenant].
func httpAuth(c Config, meter metric.Meter, log *slog.Logger, tenants map[string]*handlers.Artifacts) (httpapi.Auth, error) {
	tokens, err := httpTokens(c)
	if err != nil {
		return httpapi.Auth{}, err
	}
	var au httpapi.Auth
	for _, t := range tokens {
		if t.tenant != "" {
			a, ok := tenants[t.tenant]
			if !ok {
				return httpapi.Auth{}, fmt.Errorf("HTTP_TOKENS_FILE: a token of tenant %q, which TENANTS does not list", t.tenant)
			}
			t.Artifacts = a
		}
		au.Tokens = append(au.Tokens, t.Token)
	}
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
