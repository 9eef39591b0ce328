// Package deployments holds no code: it is the nested module whose tests check the deployment files
// beside it (kubernetes/, nats/, Dockerfile, docker-compose.yml) against the worker's code. It is a
// separate module so that the Kubernetes API types never enter the worker's go.mod.
//
// Run the checks with `cd deployments && go test ./...`. After editing config/llmservices.json,
// regenerate kubernetes/configmap-llmservices.yaml with `go test -run TestLLMServicesConfigMap -update`.
package deployments
