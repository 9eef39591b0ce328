package llmservices_test

import (
	"testing"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/internal/testing/testfiles"
	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/routing"
)

// TestNameDecisions: model names typed the way runtimes, gateways, clouds and local servers send
// them (issue 28: every group, the names that got media their API rejects, those that got a
// description although the model reads the file, and Ollama tags), each with the entry that
// decides ("" for unresolved: text only, counted), the provider serving it, and whether a PNG
// reaches the model as an image part and a PDF as a file part (openai-chat).
func TestNameDecisions(t *testing.T) {
	t.Parallel()
	// The deployment-name group needs an alias, as an operator writes it.
	r, err := llmservices.Parse([]byte(`{"extends": "builtin", "services": [
	 {"id": "my-gpt4o-deployment", "like": "azure/gpt-4o"},
	 {"id": "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3", "like": "us.anthropic.claude-sonnet-4-5-20250929-v1:0"}]}`), "aliases.json")
	if err != nil {
		t.Fatal(err)
	}
	png, pdf := testfiles.PNG(32, 32), testfiles.PDF()
	tests := []struct {
		group, name, entry, servedBy string
		image, pdf                   bool
	}{
		{"hosted", "gpt-4o", "gpt-4o", "", true, true},
		{"hosted", "gpt-4o-2024-08-06", "gpt-4o-2024-08-06", "", true, true},
		{"hosted", "gpt-4.1-mini", "gpt-4.1-mini", "", true, true},
		{"hosted", "gpt-5.1", "gpt-5.1", "", true, true},
		{"hosted", "o3-mini", "o3-mini", "", false, false},
		{"hosted", "o1-mini", "o1-mini", "", false, false},
		{"hosted", "gpt-3.5-turbo-0125", "gpt-3.5-turbo-0125", "", false, false},
		{"hosted", "chatgpt-4o-latest", "chatgpt-4o-latest", "", true, true},
		{"hosted", "claude-sonnet-4-5", "claude-sonnet-4-5", "", true, true},
		{"hosted", "claude-opus-4-5@20251101", "claude-opus-4-5-20251101", "vertex", true, true},
		{"hosted", "gemini-2.5-pro", "gemini-2.5-pro", "", true, true},
		{"hosted", "gemini-2.5-flash-lite", "gemini-2.5-flash-lite", "", true, true},
		{"hosted", "gemini-3-pro-preview", "gemini-3-pro-preview", "", true, true},
		{"hosted", "grok-4", "grok-4", "", true, false},
		{"hosted", "grok-2-vision-1212", "grok-2-vision-1212", "", true, false},
		{"hosted", "pixtral-large-latest", "pixtral-large-latest", "", true, false},
		{"hosted", "mistral-large-latest", "mistral-large-latest", "", true, false},
		{"hosted", "deepseek-chat", "deepseek-chat", "", false, false},
		{"hosted", "deepseek-reasoner", "deepseek-reasoner", "", false, false},
		{"hosted", "qwen-vl-max", "qwen-vl-max", "", true, false},
		{"hosted", "qwen3-vl-plus", "qwen3-vl-plus", "", true, false},
		{"hosted", "qwen-plus", "qwen-plus", "", false, false},
		{"hosted", "kimi-k2-thinking", "kimi-k2-thinking", "", false, false},
		{"prefix", "models/gemini-2.0-flash", "gemini-2.0-flash", "google", true, true},
		{"prefix", "x-ai/grok-4", "grok-4", "xai", true, false},
		{"prefix", "openai/gpt-4o", "gpt-4o", "openai", true, true},
		{"prefix", "openrouter/anthropic/claude-3.5-sonnet", "claude-3.5-sonnet", "openrouter", true, true},
		{"prefix", "openrouter/google/gemini-2.5-flash:free", "gemini-2.5-flash", "openrouter", true, true},
		{"prefix", "azure/gpt-4.1", "gpt-4.1", "azure", true, true},
		{"prefix", "vertex_ai/claude-sonnet-4@20250514", "claude-sonnet-4", "vertex", true, true},
		{"prefix", "vertex_ai/gemini-2.5-pro", "gemini-2.5-pro", "vertex", true, true},
		{"prefix", "groq/meta-llama/llama-4-scout-17b-16e-instruct", "llama-4-scout-17b-16e-instruct", "groq", true, false},
		{"prefix", "mistral:pixtral-large-latest", "pixtral-large-latest", "mistral", true, false},
		{"prefix", "openai:gpt-4o", "gpt-4o", "openai", true, true},
		{"prefix", "anthropic:claude-sonnet-4-5", "claude-sonnet-4-5", "anthropic", true, true},
		{"prefix", "google_genai:gemini-2.5-pro", "gemini-2.5-pro", "google", true, true},
		{"host", "google-genai:gemini-2.5-flash", "gemini-2.5-flash", "google", true, true},
		{"host", "sambanova/Llama-4-Maverick-17B-128E-Instruct", "llama-4-maverick-17b-128e-instruct", "sambanova", true, false},
		{"host", "deepinfra/meta-llama/Llama-3.2-11B-Vision-Instruct", "llama-3.2-11b-vision-instruct", "deepinfra", true, false},
		{"host", "nvidia_nim/meta/llama-3.2-90b-vision-instruct", "llama-3.2-90b-vision-instruct", "nvidia_nim", true, false},
		{"host", "perplexity/sonar-pro", "sonar-pro", "perplexity", true, false},
		{"host", "github/gpt-4o", "gpt-4o", "github", true, true},
		{"host", "hosted_vllm/meta-llama/Llama-3.2-11B-Vision-Instruct", "llama-3.2-11b-vision-instruct", "vllm", true, false},
		{"host", "litellm_proxy/gpt-4o", "gpt-4o", "litellm_proxy", true, true},
		{"host", "cerebras/llama3.1-8b", "llama3.1-8b", "cerebras", false, false},
		{"host", "cerebras/gpt-oss-120b", "gpt-oss-120b", "cerebras", false, false},
		{"bedrock", "bedrock/us.amazon.nova-pro-v1:0", "nova-pro", "bedrock", true, true},
		{"bedrock", "us.anthropic.claude-sonnet-4-5-20250929-v1:0", "claude-sonnet-4-5", "bedrock", true, true},
		{"bedrock", "eu.anthropic.claude-3-7-sonnet-20250219-v1:0", "claude-3-7-sonnet", "bedrock", true, true},
		{"bedrock", "apac.anthropic.claude-sonnet-4-20250514-v1:0", "claude-sonnet-4", "bedrock", true, true},
		{"bedrock", "global.anthropic.claude-opus-4-5-20251101-v1:0", "claude-opus-4-5-20251101", "bedrock", true, true},
		{"bedrock", "us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0", "claude-3-5-sonnet-20240620", "bedrock", true, true},
		{"bedrock", "us-gov.anthropic.claude-3-haiku-20240307-v1:0", "claude-3-haiku", "bedrock", true, false},
		{"bedrock", "arn:aws:bedrock:us-east-1:123456789012:inference-profile/us.anthropic.claude-3-5-sonnet-20240620-v1:0", "claude-3-5-sonnet-20240620", "bedrock", true, true},
		{"bedrock", "arn:aws:bedrock:us-west-2::foundation-model/anthropic.claude-3-haiku-20240307-v1:0", "claude-3-haiku", "bedrock", true, false},
		{"bedrock", "arn:aws-us-gov:bedrock:us-gov-west-1:123456789012:inference-profile/us-gov.anthropic.claude-3-5-sonnet-20240620-v1:0", "claude-3-5-sonnet-20240620", "bedrock", true, true},
		{"bedrock", "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3", "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/a1b2c3", "bedrock", true, true},
		{"bedrock", "arn:aws:bedrock:us-east-1:123456789012:application-inference-profile/zz9999", "", "", false, false},
		{"alias", "my-gpt4o-deployment", "my-gpt4o-deployment", "azure", true, true},
		{"alias", "azure/my-gpt4o-deployment", "my-gpt4o-deployment", "azure", true, true},
		{"wrong", "gpt-4o-search-preview", "gpt-4o-search-preview", "", false, false},
		{"wrong", "gpt-4o-mini-search-preview", "gpt-4o-mini-search-preview", "", false, false},
		{"wrong", "gpt-4o-mini-search-preview-2025-03-11", "gpt-4o-mini-search-preview-2025-03-11", "", false, false},
		{"wrong", "openrouter/openai/gpt-4o-mini-search-preview", "gpt-4o-mini-search-preview", "openrouter", false, false},
		{"wrong", "gpt-4o-search-preview-2025-03-11", "gpt-4o-search-preview", "", false, false},
		{"wrong", "openrouter/openai/gpt-4o-search-preview", "gpt-4o-search-preview", "openrouter", false, false},
		{"wrong", "gpt-4-turbo-preview", "gpt-4-turbo-preview", "", false, false},
		{"wrong", "grok-beta", "grok-beta", "", false, false},
		{"wrong", "cerebras/llama-4-scout-17b-16e-instruct", "llama-4-scout-17b-16e-instruct", "cerebras", false, false},
		{"wrong", "litellm_proxy/small", "", "", false, false},
		{"wrong", "acme/custom", "", "", false, false},
		{"one-word", "auto", "", "", false, false},
		{"one-word", "free", "", "", false, false},
		{"one-word", "small", "", "", false, false},
		{"one-word", "custom", "", "", false, false},
		{"one-word", "frontier", "", "", false, false},
		{"one-word", "openrouter/auto", "openrouter/auto", "openrouter", true, true},
		{"one-word", "openrouter/free", "openrouter/free", "openrouter", true, false},
		{"one-word", "morph/auto", "morph/auto", "morph", false, false},
		{"one-word", "kilo-auto/small", "kilo-auto/small", "", true, false},
		{"one-word", "perplexity/sonar", "perplexity/sonar", "perplexity", false, false},
		{"one-word", "litellm_proxy/auto", "", "", false, false},
		{"ollama", "llava", "ollama/llava", "ollama", true, false},
		{"ollama", "llava:13b", "ollama/llava", "ollama", true, false},
		{"ollama", "llava:7b-v1.6", "ollama/llava", "ollama", true, false},
		{"ollama", "llama3.2-vision", "ollama/llama3.2-vision", "ollama", true, false},
		{"ollama", "llama3.2-vision:11b", "ollama/llama3.2-vision", "ollama", true, false},
		{"ollama", "llama3.2-vision:90b", "ollama/llama3.2-vision", "ollama", true, false},
		{"ollama", "qwen2.5vl:7b", "ollama/qwen2.5vl", "ollama", true, false},
		{"ollama", "qwen2.5vl:72b", "ollama/qwen2.5vl", "ollama", true, false},
		{"ollama", "gemma3", "ollama/gemma3", "ollama", true, false},
		{"ollama", "gemma3:4b", "ollama/gemma3", "ollama", true, false},
		{"ollama", "gemma3:27b", "ollama/gemma3", "ollama", true, false},
		{"ollama", "gemma3:1b", "ollama/gemma3:1b", "ollama", false, false},
		{"ollama", "gemma3:270m", "ollama/gemma3:270m", "ollama", false, false},
		{"ollama", "gemma3:12b-it-qat", "ollama/gemma3", "ollama", true, false},
		{"ollama", "mistral-small3.1:24b", "ollama/mistral-small3.1", "ollama", true, false},
		{"ollama", "minicpm-v:8b", "ollama/minicpm-v", "ollama", true, false},
		{"ollama", "granite3.2-vision:2b", "ollama/granite3.2-vision", "ollama", true, false},
		{"ollama", "llama4:scout", "ollama/llama4", "ollama", true, false},
		{"ollama", "moondream", "ollama/moondream", "ollama", true, false},
		{"ollama", "ollama/llava", "ollama/llava", "ollama", true, false},
		{"ollama", "ollama_chat/llava:13b", "ollama/llava", "ollama", true, false},
		{"ollama", "ollama:llava", "ollama/llava", "ollama", true, false},
		{"ollama", "ollama_chat/gemma3:12b", "ollama/gemma3", "ollama", true, false},
		{"ollama", "ollama/llama3.1:8b", "ollama/llama3.1", "ollama", false, false},
		{"ollama", "qwen3:8b", "ollama/qwen3", "ollama", false, false},
		{"ollama", "llama3.2:3b", "ollama/llama3.2", "ollama", false, false},
		{"ollama", "deepseek-r1:14b", "ollama/deepseek-r1", "ollama", false, false},
		{"ollama", "gpt-oss:20b", "ollama/gpt-oss", "ollama", false, false},
		{"ollama", "ollama/unknownfam", "", "", false, false},
		{"ollama", "ollama/unknownfam:7b", "", "", false, false},
		{"ollama", "llava-hf/llava-1.5-7b-hf", "ollama/llava", "vllm", true, false},
		{"ollama", "llava-hf/llava-v1.6-mistral-7b-hf", "llava-v1.6-mistral-7b-hf", "", true, false},
		{"huggingface", "Qwen/Qwen2.5-VL-7B-Instruct", "qwen2.5-vl-7b-instruct", "alibaba", true, false},
		{"huggingface", "Qwen/Qwen2.5-VL-7B-Instruct-AWQ", "qwen2.5-vl-7b-instruct", "alibaba", true, false},
		{"huggingface", "hosted_vllm/Qwen/Qwen2.5-VL-72B-Instruct", "qwen2.5-vl-72b-instruct", "vllm", true, false},
		{"huggingface", "google/gemma-3-27b-it", "gemma-3-27b-it", "google", true, false},
		{"huggingface", "google/gemma-3-1b-it", "ollama/gemma3:1b", "vllm", false, false},
		{"huggingface", "lm_studio/lmstudio-community/gemma-3-12b-it-GGUF", "gemma-3-12b-it", "lmstudio", true, false},
		{"huggingface", "mlx-community/Qwen2.5-VL-7B-Instruct-4bit", "qwen2.5-vl-7b-instruct", "", true, false},
		{"huggingface", "mistralai/Mistral-Small-3.1-24B-Instruct-2503", "mistral-small-3.1-24b-instruct", "mistral", true, false},
		{"huggingface", "openbmb/MiniCPM-V-2_6", "ollama/minicpm-v", "vllm", true, false},
		{"huggingface", "ibm-granite/granite-vision-3.2-2b", "ollama/granite3.2-vision", "vllm", true, false},
		{"huggingface", "meta-llama/Llama-3.1-8B-Instruct", "llama-3.1-8b-instruct", "meta", false, false},
		{"huggingface", "Qwen/Qwen2.5-7B-Instruct", "qwen2.5-7b-instruct", "alibaba", false, false},
		{"huggingface", "bartowski/MiniCPM-V-2_6-GGUF", "ollama/minicpm-v", "vllm", true, false},
		{"huggingface", "unsloth/Qwen2.5-VL-7B-Instruct-GGUF", "qwen2.5-vl-7b-instruct", "", true, false},
		{"huggingface", "hosted_vllm/openbmb/MiniCPM-V-2_6", "ollama/minicpm-v", "vllm", true, false},
		{"together", "together_ai/meta-llama/Llama-3.2-90B-Vision-Instruct-Turbo", "llama-3.2-90b-vision-instruct", "together", true, false},
		{"together", "together_ai/meta-llama/Llama-3.2-11B-Vision-Instruct-Turbo", "llama-3.2-11b-vision-instruct", "together", true, false},
		{"together", "together_ai/meta-llama/Meta-Llama-3.1-8B-Instruct-Turbo", "meta-llama-3.1-8b-instruct-turbo", "together", false, false},
		{"retired", "gpt-4-vision-preview", "gpt-4-vision-preview", "", true, false},
		{"retired", "gpt-4-1106-vision-preview", "gpt-4-vision-preview", "", true, false},
		{"retired", "gemini-pro-vision", "gemini-pro-vision", "", true, false},
		{"retired", "gemini-1.0-pro-vision-001", "gemini-pro-vision", "", true, false},
		{"retired", "gemini-1.5-flash-8b", "gemini-1.5-flash-8b", "", true, true},
		{"retired", "gemini-1.5-flash-8b-001", "gemini-1.5-flash-8b", "", true, true},
		{"retired", "gemini-2.0-flash-exp", "gemini-2.0-flash-exp", "", true, true},
		{"retired", "groq/llama-3.2-11b-vision-preview", "llama-3.2-11b-vision-preview", "groq", true, false},
		{"retired", "groq/llava-v1.5-7b-4096-preview", "llava-v1.5-7b-4096-preview", "groq", true, false},
		{"retired", "claude-3-opus-20240229", "claude-3-opus-20240229", "", true, true},
		{"retired", "grok-vision-beta", "grok-vision-beta", "", true, false},
		{"unknown", "acme/random-model-7b", "", "", false, false},
		{"unknown", "my-company-model", "", "", false, false},
		{"unknown", "acme/gpt-4o-turbo-ultra", "", "", false, false},
	}
	groups := map[string]int{}
	missed := 0 // names of the groups that got a description although the model reads the file
	for _, tt := range tests {
		groups[tt.group]++
		switch tt.group {
		case "ollama", "huggingface", "alias", "together", "retired", "bedrock":
			if tt.image || tt.pdf {
				missed++
			}
		}
	}
	if len(tests) < 120 || groups["ollama"] < 20 || groups["wrong"] < 8 || missed < 30 {
		t.Fatalf("%d names (%v), %d of the missed groups' media readers: want at least 120, 20 Ollama tags, the 8 wrong ones and 30 missed ones", len(tests), groups, missed)
	}
	for _, tt := range tests {
		t.Run(tt.group+"/"+tt.name, func(t *testing.T) {
			e, ok := r.Resolve(tt.name)
			if ok != (tt.entry != "") || e.ID != tt.entry || e.ServedBy != tt.servedBy {
				t.Fatalf("Resolve(%q) = %q served by %q (ok %v, tried %v), want %q served by %q", tt.name, e.ID, e.ServedBy, ok, e.Tried, tt.entry, tt.servedBy)
			}
			d := r.Decide(tt.name)
			if want := map[bool]string{true: contracts.DecidedByRegistry, false: contracts.DecidedByNone}[ok]; d.DecidedBy != want || d.Entry != tt.entry || d.ServedBy != tt.servedBy {
				t.Errorf("Decide(%q) = %+v, want %s by %q served by %q", tt.name, d, want, tt.entry, tt.servedBy)
			}
			caps := routing.NewCapabilities(r.Capabilities(tt.name)...)
			formats := r.Formats(tt.name, "openai")
			img := routing.Route(routing.Input{ID: "shot", Filename: "shot.png", DeclaredMIME: "image/png", Content: png,
				Capabilities: caps, Formats: formats, Dialect: contracts.DialectOpenAIChat})
			if got := img.Routing == contracts.RouteImageURL; got != tt.image {
				t.Errorf("%q: a PNG is routed %q, want an image part %v (capabilities %v)", tt.name, img.Routing, tt.image, e.Capabilities)
			}
			doc := routing.Route(routing.Input{ID: "doc", Filename: "report.pdf", DeclaredMIME: "application/pdf", Content: pdf,
				Capabilities: caps, Formats: formats, Dialect: contracts.DialectOpenAIChat})
			if got := doc.Routing == contracts.RouteFile; got != tt.pdf {
				t.Errorf("%q: a PDF is routed %q, want a file part %v (capabilities %v, file formats %v)", tt.name, doc.Routing, tt.pdf, e.Capabilities, formats.File)
			}
		})
	}
}
