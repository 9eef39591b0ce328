package llmservices

import "strings"

// Name resolution: how a model name as a runtime writes it ("openai/gpt-4o",
// "us.anthropic.claude-3-5-sonnet-20240620-v1:0", "gemini-2.5-pro@001") reaches a registry entry.
//
// The name is trimmed and lower-cased, then looked up as it is. While it is not found, the first
// rule below that changes it is applied and the result looked up again; the first hit wins, so
// the most specific known entry decides. When no rule applies the name is unresolved (text only).
//
// Spelling rules (where and how a model is served; they never change the model):
//
//  1. fine-tune: "ft:BASE:org:..." → BASE
//  2. gateway alias: a leading "~" is dropped ("~anthropic/claude-sonnet-latest")
//  3. gateway variant: a trailing ":word" of letters only is dropped (":free", ":thinking",
//     ":beta", ":extended"), so Bedrock's ":0" stays
//  3a. provider:model, as LangChain's init_chat_model, Pydantic AI and the AI SDK's provider
//     registry write it: a leading "provider:" (letters, digits, "-", "_") before a name that
//     starts with a letter is dropped ("openai:gpt-4o", "google-gla:gemini-2.5-flash")
//  4. Vertex: "@20251101" and "@latest" become "-20251101" and "-latest"; any other "@..." suffix
//     is dropped ("@001", "@default"); an "@" followed by a "/" is a path ("workers-ai/@cf/...")
//  5. provider prefix: the first path segment is dropped ("openrouter/google/gemini-3-pro" →
//     "google/gemini-3-pro" → "gemini-3-pro"; "models/", "vertex_ai/", "bedrock/", "azure/", ...)
//  6. Bedrock version: a trailing "-v1:0" ("-vN:M") is dropped
//  7. region, inference profile or vendor: a leading "word." of letters only is dropped ("us.",
//     "eu.", "apac.", "global.", "anthropic.", "meta.")
//  8. Bedrock version without ":M" ("-v1"), only in a name rule 6 or 7 applied to
//
// Before them all, a Bedrock ARN ("arn:aws:bedrock:REGION:ACCOUNT:inference-profile/ID", also
// foundation-model/, application-inference-profile/, provisioned-model/; any aws partition) becomes
// its ID, served by bedrock. Rule 7's region may carry one hyphen ("us-gov.").
//
// Version rules (fall back from a snapshot to its model), once no spelling rule applies:
//
//  9. "-latest" is dropped
//  10. a dated or numbered snapshot suffix is dropped: "-2024-08-06", "-20250514", "-08-2024",
//     "-05-20", "-0125" (four digits), "-001" (three digits)
//  11. a quantisation suffix is dropped ("-fp8", "-awq", "-gguf", "-int4", "-bnb-4bit", ...: see
//     quantSuffixes); served by Together, its "-turbo" serving suffix too
//
// One-word ids ("auto", "free", "small", "custom", "sonar": letters only) are found only as the
// name is written, never as what a rule left: "litellm_proxy/small" or "acme/custom" is an alias
// nobody knows, not the catalogue's "kilo-auto/small" (the catalogue files such models under
// their full name with the provider, "openrouter/auto").
//
// Local runtimes (local.go): an Ollama tag, "family[:tag]" with or without "ollama/",
// "ollama_chat/" or "ollama:", resolves through the family table (entries "ollama/FAMILY");
// a Hugging Face id "org/Model-7B-Instruct-AWQ" that nothing else matches resolves by organisation
// and model name without size, variant and quantisation parts.
//
// The name a runtime wrote may also say which provider serves the model: the first path segment
// (rule 5, when it names a provider, see servedBy), a Vertex "@" (vertex) or a Bedrock form (rules
// 6-8: bedrock). The outermost such hint is kept as Entry.ServedBy.
//
// Canonical applies the spelling rules only, to the end: it is the key the catalogue converter
// files a model under.

// servedBy maps a first path segment to the provider it names: the spellings runtimes and SDKs
// use that neither catalogue does. Every serving provider of the two catalogues is in the
// catalogue's own table (File.Hosts, derived from the snapshots), consulted after this one.
var servedBy = map[string]string{
	"google-genai": "google", "ollama": "ollama", "ollama_chat": "ollama",
	"hosted_vllm": "vllm", "vllm": "vllm", "lm_studio": "lmstudio", "lmstudio": "lmstudio",
	"litellm_proxy": "litellm_proxy", "github": "github", "sglang": "vllm", "tgi": "vllm", "huggingface": "huggingface",
	"openai": "openai", "anthropic": "anthropic", "google": "google", "gemini": "google", "models": "google",
	"google-gla": "google", "google_genai": "google", "google_vertexai": "vertex", "azure_openai": "azure",
	"vertex_ai": "vertex", "vertex": "vertex", "google-vertex": "vertex",
	"bedrock": "bedrock", "bedrock_converse": "bedrock", "amazon-bedrock": "bedrock",
	"azure": "azure", "azure_ai": "azure",
	"openrouter": "openrouter",
	"xai":        "xai", "x-ai": "xai",
	"mistral": "mistral", "mistralai": "mistral", "codestral": "mistral",
	"deepseek": "deepseek", "deepseek-ai": "deepseek",
	"dashscope": "alibaba", "alibaba": "alibaba", "qwen": "alibaba",
	"groq":        "groq",
	"together_ai": "together", "togetherai": "together", "together": "together",
	"meta-llama": "meta", "meta": "meta",
	"moonshotai": "moonshotai", "moonshot": "moonshotai",
	"fireworks_ai": "fireworks", "accounts": "fireworks",
}

// walker applies the rules one at a time; it carries what the rules need to know about the steps
// before.
type walker struct {
	s       string
	hosts   map[string]string // the registry's host table (File.Hosts): first path segment → provider
	bedrock bool              // rule 6 or 7 applied
	hint    string            // the outermost provider the name says serves it
	rule    string            // the rule that made s
	detail  string            // what it dropped, when the rule's text names it (a substring: no allocation)
}

// ruleText is the last rule applied, for people ("provider prefix (openrouter/)").
func (w *walker) ruleText() string {
	if w.detail == "" {
		return w.rule
	}
	return w.rule + " (" + w.detail + ")"
}

// spelling applies the first spelling rule that changes w.s and reports whether one did.
func (w *walker) spelling() bool {
	s := w.s
	if id, ok := bedrockARN(s); ok {
		w.bedrock = true
		w.hintOnce("bedrock")
		return w.setDetail(id, "Bedrock ARN", s[:len(s)-len(id)])
	}
	switch {
	case strings.HasPrefix(s, "ft:") && len(s) > 3:
		base := s[3:]
		if i := strings.IndexByte(base, ':'); i >= 0 {
			base = base[:i]
		}
		return w.set(base, "fine-tune prefix")
	case strings.HasPrefix(s, "~"):
		return w.set(s[1:], "gateway alias (~)")
	}
	if i := strings.LastIndexByte(s, ':'); i > 0 && i < len(s)-1 && allLetters(s[i+1:]) {
		return w.setDetail(s[:i], "gateway variant", s[i:])
	}
	if i := strings.IndexByte(s, ':'); i > 0 && i < len(s)-1 && isProviderWord(s[:i]) && isLetter(s[i+1]) {
		w.hintOnce(w.host(s[:i]))
		return w.setDetail(s[i+1:], "provider prefix", s[:i+1])
	}
	if i := strings.LastIndexByte(s, '@'); i > 0 && !strings.Contains(s[i:], "/") {
		w.hintOnce("vertex")
		suffix := s[i+1:]
		if suffix == "latest" || allDigits(suffix) && len(suffix) >= 6 {
			return w.set(s[:i]+"-"+suffix, "Vertex @ version")
		}
		return w.set(s[:i], "Vertex @ version")
	}
	if i := strings.IndexByte(s, '/'); i >= 0 {
		if i > 0 {
			w.hintOnce(w.host(s[:i]))
		}
		return w.setDetail(s[i+1:], "provider prefix", s[:i+1])
	}
	if n := bedrockVersion(s, true); n > 0 {
		w.bedrock = true
		w.hintOnce("bedrock")
		return w.set(s[:len(s)-n], "Bedrock version suffix")
	}
	if i := strings.IndexByte(s, '.'); i > 0 && i < len(s)-1 && regionWord(s[:i]) && isLetter(s[i+1]) {
		w.bedrock = true
		w.hintOnce("bedrock")
		return w.setDetail(s[i+1:], "region or vendor prefix", s[:i+1])
	}
	if w.bedrock {
		if n := bedrockVersion(s, false); n > 0 {
			return w.set(s[:len(s)-n], "Bedrock version suffix")
		}
	}
	return false
}

// version applies the first version rule that changes w.s and reports whether one did.
func (w *walker) version() bool {
	s := w.s
	if t, ok := strings.CutSuffix(s, "-latest"); ok && t != "" {
		return w.set(t, "-latest dropped")
	}
	if n := snapshotSuffix(s); n > 0 {
		return w.setDetail(s[:len(s)-n], "snapshot suffix dropped", s[len(s)-n:])
	}
	for _, q := range quantSuffixes {
		if t, ok := strings.CutSuffix(s, q); ok && t != "" {
			return w.setDetail(t, "quantisation suffix dropped", q)
		}
	}
	if t, ok := strings.CutSuffix(s, "-turbo"); ok && t != "" && w.hint == "together" {
		return w.setDetail(t, "Together serving suffix dropped", "-turbo")
	}
	return false
}

// quantSuffixes are the quantisation and packaging marks runtimes and hosts append to a model's
// name; the model reads the same inputs without them.
var quantSuffixes = []string{
	"-fp8-dynamic", "-fp8", "-fp16", "-bf16", "-awq", "-gptq-int4", "-gptq-int8", "-gptq", "-gguf",
	"-int4", "-int8", "-bnb-4bit", "-4bit", "-8bit", "-mlx", "-w4a16", "-w8a8", "-q4_k_m", "-q5_k_m", "-q8_0",
}

// oneWord reports whether s is a one-word id (letters only), which is looked up only as written.
func oneWord(s string) bool { return allLetters(s) }

// regionWord is a region or vendor prefix: letters, with at most one inner hyphen ("us-gov").
func regionWord(s string) bool {
	a, b, hyphen := strings.Cut(s, "-")
	return allLetters(a) && (!hyphen || allLetters(b))
}

// bedrockARN is the resource id of a Bedrock ARN ("arn:aws:bedrock:us-east-1:123456789012:
// inference-profile/us.anthropic.claude-...-v1:0" → "us.anthropic.claude-...-v1:0").
func bedrockARN(s string) (string, bool) {
	rest, ok := strings.CutPrefix(s, "arn:")
	if !ok {
		return "", false
	}
	parts := strings.SplitN(rest, ":", 5)
	if len(parts) != 5 || !strings.HasPrefix(parts[0], "aws") || parts[1] != "bedrock" {
		return "", false
	}
	_, id, ok := strings.Cut(parts[4], "/")
	return id, ok && id != ""
}

// host is the provider a first path segment (or "provider:" word) names, or "" when none.
func (w *walker) host(seg string) string {
	if p, ok := servedBy[seg]; ok {
		return p
	}
	return w.hosts[seg]
}

func (w *walker) set(s, rule string) bool { return w.setDetail(s, rule, "") }

func (w *walker) setDetail(s, rule, detail string) bool {
	s = strings.TrimSpace(s)
	if s == "" || s == w.s {
		return false
	}
	w.s, w.rule, w.detail = s, rule, detail
	return true
}

// hintOnce keeps the first (outermost) hint; an unknown first segment ("") also counts as the
// outermost, so "acme/openai/gpt-4o" is not said to be served by OpenAI.
func (w *walker) hintOnce(p string) {
	if w.hint == "" {
		w.hint = p
		if p == "" {
			w.hint = "-"
		}
	}
}

func (w *walker) servedBy() string {
	if w.hint == "-" {
		return ""
	}
	return w.hint
}

// Canonical is the name with every spelling rule applied (see the package's resolution rules):
// trimmed, lower case, without provider prefixes, regions, Bedrock and Vertex version marks or
// gateway variants. The catalogue converter files each model under it.
func Canonical(name string) string {
	w := walker{s: lookupKey(name)}
	for w.spelling() {
	}
	return w.s
}

// SnapshotOf is the model a dated or numbered snapshot name is of ("gpt-4o-2024-08-06" →
// "gpt-4o"), as the resolution's snapshot rule drops the suffix; "" when the name has none.
func SnapshotOf(name string) string {
	if n := snapshotSuffix(name); n > 0 {
		return name[:len(name)-n]
	}
	return ""
}

// bedrockVersion is the length of a trailing "-vN:M" (or, with colon false, "-vN").
func bedrockVersion(s string, colon bool) int {
	i := len(s)
	if colon {
		j := i
		for j > 0 && isDigit(s[j-1]) {
			j--
		}
		if j == i || j == 0 || s[j-1] != ':' {
			return 0
		}
		i = j - 1
	}
	j := i
	for j > 0 && isDigit(s[j-1]) {
		j--
	}
	if j == i || j < 2 || s[j-1] != 'v' || s[j-2] != '-' {
		return 0
	}
	return len(s) - (j - 2)
}

// snapshotSuffix is the length of a trailing dated or numbered snapshot: "-YYYY-MM-DD",
// "-YYYYMMDD", "-MM-YYYY", "-MM-DD", "-NNNN", "-NNN".
func snapshotSuffix(s string) int {
	groups := [][]int{{4, 2, 2}, {8}, {2, 4}, {2, 2}, {4}, {3}}
	for _, g := range groups {
		if n := digitGroups(s, g); n > 0 && n < len(s) {
			return n
		}
	}
	return 0
}

// digitGroups is the length of a trailing "-" + groups of digits joined by "-" (with the sizes
// given), or 0.
func digitGroups(s string, sizes []int) int {
	end := len(s)
	for k := len(sizes) - 1; k >= 0; k-- {
		start := end - sizes[k]
		if start < 1 || !allDigits(s[start:end]) || s[start-1] != '-' {
			return 0
		}
		end = start - 1
	}
	return len(s) - end
}

func isLetter(c byte) bool { return c >= 'a' && c <= 'z' }
func isDigit(c byte) bool  { return c >= '0' && c <= '9' }

func allLetters(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isLetter(s[i]) {
			return false
		}
	}
	return s != ""
}

// isProviderWord reports whether s can be the provider of a "provider:model" name: letters, digits,
// "-" and "_", starting with a letter.
func isProviderWord(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; !isLetter(c) && !isDigit(c) && c != '-' && c != '_' {
			return false
		}
	}
	return s != "" && isLetter(s[0])
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return s != ""
}
