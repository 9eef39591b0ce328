package llmservices

//go:generate go run ./catalogue/gen
