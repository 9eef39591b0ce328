package deployments

import (
	"context"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/nats-io/nkeys"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/messaging"
)

const (
	natsConf        = "nats/nats-server.conf"
	serviceSource   = "../service/service.go"
	subjectsSource  = "../contracts/subjects.go"
	globalAccount   = "$G"
	monitoringPort  = 8222
	minMaxPayload   = 1 << 20
	kedaTriggerType = "nats-jetstream"
)

// routedSubjects reads the subjects the worker serves from the routes map in service/service.go
// (map[string]messaging.Handler{contracts.SubjectX: ...}), resolving the constants from
// contracts/subjects.go. Every consumer exists (EnsureTopology makes one per request subject), but
// only these are consumed.
func routedSubjects(t *testing.T) []string {
	t.Helper()
	consts := map[string]string{}
	fset := token.NewFileSet()
	cf, err := parser.ParseFile(fset, subjectsSource, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	ast.Inspect(cf, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			for i, name := range vs.Names {
				if i < len(vs.Values) {
					if lit, ok := vs.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
						consts[name.Name], _ = strconv.Unquote(lit.Value)
					}
				}
			}
		}
		return true
	})
	sf, err := parser.ParseFile(fset, serviceSource, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var subjects []string
	ast.Inspect(sf, func(n ast.Node) bool {
		lit, ok := n.(*ast.CompositeLit)
		if !ok {
			return true
		}
		mt, ok := lit.Type.(*ast.MapType)
		if !ok {
			return true
		}
		if sel, ok := mt.Value.(*ast.SelectorExpr); !ok || sel.Sel.Name != "Handler" {
			return true
		}
		for _, elt := range lit.Elts {
			kv, ok := elt.(*ast.KeyValueExpr)
			if !ok {
				continue
			}
			switch k := kv.Key.(type) {
			case *ast.SelectorExpr:
				if v, ok := consts[k.Sel.Name]; ok {
					subjects = append(subjects, v)
				} else {
					t.Fatalf("%s routes %s, which %s does not define", serviceSource, k.Sel.Name, subjectsSource)
				}
			case *ast.BasicLit:
				v, _ := strconv.Unquote(k.Value)
				subjects = append(subjects, v)
			}
		}
		return false
	})
	if len(subjects) == 0 {
		t.Fatalf("found no map[string]messaging.Handler routes in %s: has its layout changed?", serviceSource)
	}
	slices.Sort(subjects)
	return subjects
}

// TestScaledObjectLinesUp: the KEDA triggers name the worker's stream and durable consumers (one per
// served subject) and scale the worker's Deployment.
func TestScaledObjectLinesUp(t *testing.T) {
	m := loadManifests(t)
	d, _ := m.deployment(t)
	if len(m.scaledObjects) != 1 {
		t.Fatalf("want one ScaledObject, have %d", len(m.scaledObjects))
	}
	so := m.scaledObjects[0]
	ref := so.Spec.ScaleTargetRef
	if ref.Name != d.Name || (ref.Kind != "" && ref.Kind != "Deployment") || (ref.APIVersion != "" && ref.APIVersion != "apps/v1") {
		t.Errorf("scaleTargetRef %s %s %q is not the Deployment %q", ref.APIVersion, ref.Kind, ref.Name, d.Name)
	}
	minR, maxR := so.Spec.MinReplicaCount, so.Spec.MaxReplicaCount
	if minR == nil || maxR == nil || *minR < 1 || *maxR < *minR {
		t.Errorf("want 1 <= minReplicaCount <= maxReplicaCount, have %v and %v", minR, maxR)
	} else if len(m.pdbs) == 1 && m.pdbs[0].Spec.MinAvailable != nil && int(*minR) <= m.pdbs[0].Spec.MinAvailable.IntValue() {
		t.Errorf("minReplicaCount %d does not leave room above the PDB's minAvailable %d for node drains", *minR, m.pdbs[0].Spec.MinAvailable.IntValue())
	}

	stream := workerStreamName(t)
	byConsumer := map[string]string{}
	for _, s := range contracts.RequestSubjects {
		byConsumer[messaging.ConsumerName(s)] = s
	}
	var triggered []string
	for i, tr := range so.Spec.Triggers {
		md := tr.Metadata
		if tr.Type != kedaTriggerType {
			t.Errorf("trigger %d: type %q, want %q", i, tr.Type, kedaTriggerType)
			continue
		}
		for _, key := range []string{"natsServerMonitoringEndpoint", "account", "stream", "consumer", "lagThreshold"} {
			if md[key] == "" {
				t.Errorf("trigger %d: metadata.%s is empty", i, key)
			}
		}
		if md["stream"] != stream {
			t.Errorf("trigger %d: stream %q, but the worker's stream is %q", i, md["stream"], stream)
		}
		subject, ok := byConsumer[md["consumer"]]
		if !ok {
			t.Errorf("trigger %d: consumer %q is none of the worker's durable consumers %v: KEDA would scale on the whole stream", i, md["consumer"], sortedKeys(byConsumer))
		} else {
			triggered = append(triggered, subject)
		}
		if n, err := strconv.Atoi(md["lagThreshold"]); err != nil || n < 1 {
			t.Errorf("trigger %d: lagThreshold %q is not a positive whole number", i, md["lagThreshold"])
		}
		if a := md["account"]; a != globalAccount && !nkeys.IsValidPublicAccountKey(a) {
			t.Errorf("trigger %d: account %q is neither %q nor an account public key", i, a, globalAccount)
		}
		if _, port, err := net.SplitHostPort(md["natsServerMonitoringEndpoint"]); err != nil || port != strconv.Itoa(monitoringPort) {
			t.Errorf("trigger %d: natsServerMonitoringEndpoint %q is not host:%d (http_port in %s)", i, md["natsServerMonitoringEndpoint"], monitoringPort, natsConf)
		}
	}
	slices.Sort(triggered)
	if routed := routedSubjects(t); !slices.Equal(slices.Compact(triggered), routed) || len(triggered) != len(routed) {
		t.Errorf("triggers are for subjects %v, the worker serves %v (service/service.go): one trigger per served subject; "+
			"a trigger on an unserved subject pins the replicas at maxReplicaCount", triggered, routed)
	}
}

// workerStreamName is the stream the worker creates with its default topology, as service.New
// creates it (it leaves Topology.Stream at its default).
func workerStreamName(t *testing.T) string {
	t.Helper()
	s := startNATS(t, loadNATSConf(t))
	topo := ensureTopology(t, s)
	return topo.Stream
}

func loadNATSConf(t *testing.T) *server.Options {
	t.Helper()
	opts, err := server.ProcessConfigFile(natsConf)
	if err != nil {
		t.Fatalf("%s: %v", natsConf, err)
	}
	return opts
}

// startNATS runs a real nats-server with opts, on loopback and random ports with a temporary store.
func startNATS(t *testing.T, opts *server.Options) *server.Server {
	t.Helper()
	o := opts.Clone()
	o.Host, o.Port = "127.0.0.1", server.RANDOM_PORT
	o.HTTPHost, o.HTTPPort = "127.0.0.1", server.RANDOM_PORT
	o.StoreDir = t.TempDir()
	o.NoSigs, o.NoLog = true, true
	s, err := server.NewServer(o)
	if err != nil {
		t.Fatalf("nats-server from %s: %v", natsConf, err)
	}
	go s.Start()
	t.Cleanup(func() {
		s.Shutdown()
		s.WaitForShutdown()
	})
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatalf("nats-server from %s did not start", natsConf)
	}
	return s
}

func ensureTopology(t *testing.T, s *server.Server) messaging.Topology {
	t.Helper()
	nc, err := nats.Connect(s.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	topo, err := messaging.EnsureTopology(ctx, js, messaging.Topology{})
	if err != nil {
		t.Fatalf("the worker's topology on a server from %s: %v", natsConf, err)
	}
	return topo
}

// TestNATSServerConfig: nats-server accepts the file, it has what the worker and KEDA need, and a
// server started from it shows KEDA's stream and consumers on its monitoring endpoint, where the
// scaler reads them.
func TestNATSServerConfig(t *testing.T) {
	opts := loadNATSConf(t)
	if !opts.JetStream {
		t.Error("jetstream is not enabled")
	}
	if opts.StoreDir == "" {
		t.Error("jetstream store_dir is not set")
	}
	if opts.JetStreamMaxStore <= 0 || opts.JetStreamMaxMemory <= 0 {
		t.Error("jetstream max_file_store and max_memory_store should be set")
	}
	if opts.HTTPPort != monitoringPort {
		t.Errorf("http_port %d, want %d (KEDA's natsServerMonitoringEndpoint)", opts.HTTPPort, monitoringPort)
	}
	if opts.MaxPayload < minMaxPayload {
		t.Errorf("max_payload %d is below the 1 MiB default", opts.MaxPayload)
	}

	s := startNATS(t, opts)
	topo := ensureTopology(t, s)

	// The query KEDA's nats-jetstream scaler makes.
	q := url.Values{"acc": {globalAccount}, "consumers": {"true"}, "config": {"true"}}
	resp, err := http.Get("http://" + s.MonitorAddr().String() + "/jsz?" + q.Encode())
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var jsz server.JSInfo
	if err := json.NewDecoder(resp.Body).Decode(&jsz); err != nil {
		t.Fatal(err)
	}
	seen := map[string][]string{} // stream -> consumers
	for _, acc := range jsz.AccountDetails {
		if acc.Name != globalAccount {
			continue
		}
		for _, st := range acc.Streams {
			for _, c := range st.Consumer {
				seen[st.Name] = append(seen[st.Name], c.Name)
			}
		}
	}
	if topo.Stream == "" || len(seen[topo.Stream]) == 0 {
		t.Fatalf("/jsz shows no consumers on stream %q: %v", topo.Stream, seen)
	}
	so := loadManifests(t).scaledObjects
	for _, so := range so {
		for i, tr := range so.Spec.Triggers {
			stream, consumer := tr.Metadata["stream"], tr.Metadata["consumer"]
			if !slices.Contains(seen[stream], consumer) {
				t.Errorf("trigger %d: KEDA would not find consumer %q on stream %q at /jsz; the server has %v", i, consumer, stream, seen)
			}
		}
	}
}
