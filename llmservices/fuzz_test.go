package llmservices_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/llmservices"
)

// FuzzResolve: a service_id is outside input. Whatever it is, resolution ends, never panics, and
// its parts agree: Capabilities is the entry's (text only without one), Decide names the same
// entry, and Canonical is idempotent.
func FuzzResolve(f *testing.F) {
	for _, s := range []string{
		"gpt-4o", "openai/gpt-4o", "us.anthropic.claude-3-5-sonnet-20240620-v1:0", "claude-opus-4-5@20251101",
		"openrouter/google/gemini-2.5-flash:free", "~anthropic/claude-opus-4-5", "ft:gpt-4o-2024-08-06:acme::x",
		"a@b@c", "::", "@", "/", ".", "-v1:0", "x-latest-latest", "-2024-08-06", "global.x.-v1", "ＧＰＴ-4o",
		"llava:13b", "ollama_chat/gemma3:1b-it-qat", "ollama:", "ollama/", ":7b", "gemma3::", "Qwen/Qwen2.5-VL-7B-Instruct-AWQ",
		"unsloth/-", "a/b/c/d-7b-it", "arn:aws:bedrock:::/", "arn:aws:bedrock:us-east-1:1:application-inference-profile/x",
		"us-gov.anthropic.claude-3-haiku-20240307-v1:0", "together_ai/x-turbo", "openrouter/auto", "litellm_proxy/small",
	} {
		f.Add(s)
	}
	r := llmservices.Default()
	f.Fuzz(func(t *testing.T, name string) {
		e, ok := r.Resolve(name)
		caps := r.Capabilities(name)
		d := r.Decide(name)
		if ok {
			if !slices.Equal(caps, e.Capabilities) || d.DecidedBy != contracts.DecidedByRegistry || d.Entry != e.ID || d.ServedBy != e.ServedBy {
				t.Fatalf("%q: Resolve %q %v, Capabilities %v, Decide %+v", name, e.ID, e.Capabilities, caps, d)
			}
		} else if !slices.Equal(caps, []string{contracts.CapText}) || d.DecidedBy != contracts.DecidedByNone {
			t.Fatalf("%q resolves to nothing but Capabilities %v, Decide %+v", name, caps, d)
		}
		if len(e.Tried) > len(name)+2 {
			t.Fatalf("%q: %d forms tried for a name of %d bytes", name, len(e.Tried), len(name))
		}
		c := llmservices.Canonical(name)
		if again := llmservices.Canonical(c); again != c {
			t.Fatalf("Canonical(%q) = %q, Canonical of that = %q", name, c, again)
		}
		if c != strings.TrimSpace(c) && c != "" {
			t.Fatalf("Canonical(%q) = %q has surrounding spaces", name, c)
		}
	})
}
