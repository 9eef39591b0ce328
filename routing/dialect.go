package routing

import (
	"github.com/agentworks/artifact-worker/dialects"
)

// ErrUnknownDialect is wrapped by ParseDialect's error for a name that is not a dialect
// (dialects.ErrUnknown).
var ErrUnknownDialect = dialects.ErrUnknown

// ParseDialect is the one validator of a request's dialect: it returns the canonical name of one
// of contracts.Dialects (case and surrounding spaces ignored; empty is openai-chat, the default),
// or an error wrapping ErrUnknownDialect. Every handler that takes a dialect calls it.
func ParseDialect(name string) (string, error) {
	d, err := dialects.Parse(name)
	if err != nil {
		return "", err
	}
	return d.Name, nil
}

// DialectProvider names the provider whose API a dialect speaks, as the registry names providers
// ("openai", "anthropic", "google", "bedrock"); a dialect that fronts any provider (langchain)
// gives "" (dialects.Dialect.Provider).
func DialectProvider(dialect string) string {
	return dialects.Get(dialect).Provider
}

// DialectCarries reports whether a dialect's tool result can hold media of the given kind
// (contracts.BinaryImage, BinaryDocument, BinaryAudio, BinaryVideo) and format ("png", "pdf").
func DialectCarries(dialect, kind, format string) bool {
	return dialects.Get(dialect).Carries(kind, format)
}

// normalizeDialect is ParseDialect for callers that never fail: an unknown name is openai-chat.
func normalizeDialect(name string) string { return dialects.Get(name).Name }
