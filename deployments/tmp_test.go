package deployments

import (
	_ "github.com/agentworks/artifact-worker/messaging"
	_ "github.com/nats-io/nats-server/v2/server"
	_ "gopkg.in/yaml.v3"
	_ "k8s.io/api/apps/v1"
	_ "k8s.io/api/policy/v1"
	_ "sigs.k8s.io/yaml"
)
