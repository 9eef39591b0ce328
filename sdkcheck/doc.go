// Package sdkcheck holds tests only: they decode the worker's assemblies, in every dialect, into
// the official SDK types of each provider (openai-go, anthropic-sdk-go, aws-sdk-go-v2
// bedrockruntime, google.golang.org/genai) and LangChain's documented blocks (langchain-core for langchain, @langchain/core for langchain-js). It is a module of its
// own so that the worker's binary never links those SDKs; `make sdk-check` (part of `make test`)
// runs it.
package sdkcheck
