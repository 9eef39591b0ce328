package deployments

import (
	"bufio"
	"bytes"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	k8sjson "sigs.k8s.io/json"
	"sigs.k8s.io/yaml"

	"github.com/agentworks/artifact-worker/contracts"
	"github.com/agentworks/artifact-worker/llmservices"
	"github.com/agentworks/artifact-worker/messaging"
	"github.com/agentworks/artifact-worker/service"
)

var update = flag.Bool("update", false, "rewrite kubernetes/configmap-llmservices.yaml from config/llmservices.json")

const (
	manifestDir     = "kubernetes"
	registryFile    = "../config/llmservices.json"
	llmConfigMap    = "kubernetes/configmap-llmservices.yaml"
	llmKey          = "llmservices.json"
	secretTemplate  = "secret.template.yaml"
	kustomization   = "kustomization.yaml"
	workerContainer = "worker"
	// shutdownSlack is what the worker adds to DRAIN_TIMEOUT to close the router, HTTP and its NATS
	// connections (service.Service.Run).
	shutdownSlack = 5 * time.Second
	// baselineMemory is the worker's resident memory with nothing in flight, rounded up.
	baselineMemory = 100 << 20
	// copiesPerRequest bounds the memory one request in flight holds, in multiples of its artifact:
	// get_artifact allocates about 10x the artifact (raw, the base64 data URL, the assembly's part,
	// the encoded result carrying both; measured by handlers.BenchmarkGetArtifactLargeImage), of which
	// about 7x is live at its peak, rounded up to 8. Other subjects hold less.
	copiesPerRequest = 8
	// inlineRequest is what a request the memory budget does not charge holds at most: a body
	// within NATS's max_payload (1 MiB) and a reply of about the same size.
	inlineRequest = 2 << 20
)

// scaledObject mirrors the fields of keda.sh/v1alpha1 ScaledObject used here; decoding is strict, so
// a field KEDA does not have (or that this mirror lacks) fails the test.
type scaledObject struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata"`
	Spec              struct {
		ScaleTargetRef struct {
			APIVersion             string `json:"apiVersion,omitempty"`
			Kind                   string `json:"kind,omitempty"`
			Name                   string `json:"name"`
			EnvSourceContainerName string `json:"envSourceContainerName,omitempty"`
		} `json:"scaleTargetRef"`
		PollingInterval       *int32 `json:"pollingInterval,omitempty"`
		InitialCooldownPeriod *int32 `json:"initialCooldownPeriod,omitempty"`
		CooldownPeriod        *int32 `json:"cooldownPeriod,omitempty"`
		IdleReplicaCount      *int32 `json:"idleReplicaCount,omitempty"`
		MinReplicaCount       *int32 `json:"minReplicaCount,omitempty"`
		MaxReplicaCount       *int32 `json:"maxReplicaCount,omitempty"`
		Triggers              []struct {
			Type              string            `json:"type"`
			Name              string            `json:"name,omitempty"`
			MetricType        string            `json:"metricType,omitempty"`
			UseCachedMetrics  bool              `json:"useCachedMetrics,omitempty"`
			Metadata          map[string]string `json:"metadata"`
			AuthenticationRef *struct {
				Name string `json:"name"`
				Kind string `json:"kind,omitempty"`
			} `json:"authenticationRef,omitempty"`
		} `json:"triggers"`
	} `json:"spec"`
}

// kustomizationFile mirrors the fields of a kustomize Kustomization used here.
type kustomizationFile struct {
	metav1.TypeMeta `json:",inline"`
	Resources       []string `json:"resources"`
}

// manifests are the objects of every document in kubernetes/*.yaml, by kind.
type manifests struct {
	deployments   []appsv1.Deployment
	configMaps    []corev1.ConfigMap
	secrets       []corev1.Secret
	services      []corev1.Service
	pdbs          []policyv1.PodDisruptionBudget
	scaledObjects []scaledObject
	kustomization []kustomizationFile
	files         map[string]string // object "Kind/name" -> file it is in
}

// strictDecode decodes one YAML document as the API server does: duplicate and unknown fields are
// errors, and field names are case-sensitive.
func strictDecode(doc []byte, into any) error {
	js, err := yaml.YAMLToJSONStrict(doc)
	if err != nil {
		return err
	}
	strictErrs, err := k8sjson.UnmarshalStrict(js, into, k8sjson.DisallowDuplicateFields, k8sjson.DisallowUnknownFields)
	if err != nil {
		return err
	}
	return errors.Join(strictErrs...)
}

func splitDocuments(data []byte) ([][]byte, error) {
	r := utilyaml.NewYAMLReader(bufio.NewReader(bytes.NewReader(data)))
	var docs [][]byte
	for {
		doc, err := r.Read()
		if errors.Is(err, io.EOF) {
			return docs, nil
		}
		if err != nil {
			return nil, err
		}
		if len(bytes.TrimSpace(stripComments(doc))) > 0 {
			docs = append(docs, doc)
		}
	}
}

func stripComments(doc []byte) []byte {
	var out [][]byte
	for _, line := range bytes.Split(doc, []byte("\n")) {
		if !bytes.HasPrefix(bytes.TrimSpace(line), []byte("#")) {
			out = append(out, line)
		}
	}
	return bytes.Join(out, []byte("\n"))
}

func loadManifests(t *testing.T) *manifests {
	t.Helper()
	paths, err := filepath.Glob(filepath.Join(manifestDir, "*.yaml"))
	if err != nil || len(paths) == 0 {
		t.Fatalf("no manifests in %s: %v", manifestDir, err)
	}
	m := &manifests{files: map[string]string{}}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		docs, err := splitDocuments(data)
		if err != nil {
			t.Fatalf("%s: %v", p, err)
		}
		for i, doc := range docs {
			var tm metav1.TypeMeta
			if err := yaml.Unmarshal(doc, &tm); err != nil {
				t.Fatalf("%s document %d: %v", p, i+1, err)
			}
			var (
				into any
				name func() string
			)
			switch gvk := tm.APIVersion + " " + tm.Kind; gvk {
			case "apps/v1 Deployment":
				m.deployments = append(m.deployments, appsv1.Deployment{})
				o := &m.deployments[len(m.deployments)-1]
				into, name = o, func() string { return o.Name }
			case "v1 ConfigMap":
				m.configMaps = append(m.configMaps, corev1.ConfigMap{})
				o := &m.configMaps[len(m.configMaps)-1]
				into, name = o, func() string { return o.Name }
			case "v1 Secret":
				m.secrets = append(m.secrets, corev1.Secret{})
				o := &m.secrets[len(m.secrets)-1]
				into, name = o, func() string { return o.Name }
			case "v1 Service":
				m.services = append(m.services, corev1.Service{})
				o := &m.services[len(m.services)-1]
				into, name = o, func() string { return o.Name }
			case "policy/v1 PodDisruptionBudget":
				m.pdbs = append(m.pdbs, policyv1.PodDisruptionBudget{})
				o := &m.pdbs[len(m.pdbs)-1]
				into, name = o, func() string { return o.Name }
			case "keda.sh/v1alpha1 ScaledObject":
				m.scaledObjects = append(m.scaledObjects, scaledObject{})
				o := &m.scaledObjects[len(m.scaledObjects)-1]
				into, name = o, func() string { return o.Name }
			case "kustomize.config.k8s.io/v1beta1 Kustomization":
				m.kustomization = append(m.kustomization, kustomizationFile{})
				into, name = &m.kustomization[len(m.kustomization)-1], func() string { return "" }
			default:
				t.Fatalf("%s document %d: unexpected apiVersion/kind %q", p, i+1, gvk)
			}
			if err := strictDecode(doc, into); err != nil {
				t.Fatalf("%s document %d (%s): %v", p, i+1, tm.Kind, err)
			}
			key := tm.Kind + "/" + name()
			if prev, dup := m.files[key]; dup && tm.Kind != "Kustomization" {
				t.Fatalf("%s is defined twice: in %s and %s", key, prev, p)
			}
			if tm.Kind != "Kustomization" && name() == "" {
				t.Fatalf("%s document %d: %s without metadata.name", p, i+1, tm.Kind)
			}
			m.files[key] = filepath.Base(p)
		}
	}
	return m
}

func (m *manifests) deployment(t *testing.T) (*appsv1.Deployment, *corev1.Container) {
	t.Helper()
	if len(m.deployments) != 1 {
		t.Fatalf("want exactly one Deployment, have %d", len(m.deployments))
	}
	d := &m.deployments[0]
	for i := range d.Spec.Template.Spec.Containers {
		if c := &d.Spec.Template.Spec.Containers[i]; c.Name == workerContainer {
			return d, c
		}
	}
	t.Fatalf("Deployment %s has no container %q", d.Name, workerContainer)
	return nil, nil
}

func (m *manifests) configMap(name string) *corev1.ConfigMap {
	for i := range m.configMaps {
		if m.configMaps[i].Name == name {
			return &m.configMaps[i]
		}
	}
	return nil
}

func (m *manifests) secret(name string) *corev1.Secret {
	for i := range m.secrets {
		if m.secrets[i].Name == name {
			return &m.secrets[i]
		}
	}
	return nil
}

func secretHasKey(s *corev1.Secret, key string) bool {
	_, inData := s.Data[key]
	_, inString := s.StringData[key]
	return inData || inString
}

// env is the container's environment as the worker sees it: envFrom ConfigMaps first, then env
// entries (which win). Values from Secrets are "<secret>".
func (m *manifests) env(t *testing.T, c *corev1.Container) map[string]string {
	t.Helper()
	env := map[string]string{}
	for _, ef := range c.EnvFrom {
		switch {
		case ef.ConfigMapRef != nil:
			cm := m.configMap(ef.ConfigMapRef.Name)
			if cm == nil {
				t.Fatalf("envFrom names ConfigMap %q, which no manifest defines", ef.ConfigMapRef.Name)
			}
			for k, v := range cm.Data {
				env[ef.Prefix+k] = v
			}
		case ef.SecretRef != nil:
			s := m.secret(ef.SecretRef.Name)
			if s == nil {
				t.Fatalf("envFrom names Secret %q, which no manifest defines", ef.SecretRef.Name)
			}
			for k := range s.StringData {
				env[ef.Prefix+k] = "<secret>"
			}
			for k := range s.Data {
				env[ef.Prefix+k] = "<secret>"
			}
		}
	}
	for _, e := range c.Env {
		env[e.Name] = e.Value
		if e.ValueFrom != nil {
			env[e.Name] = "<secret>"
		}
	}
	return env
}

// TestManifestsParseStrictly decodes every document into its API type and fails on unknown fields.
func TestManifestsParseStrictly(t *testing.T) {
	m := loadManifests(t)
	if len(m.deployments) != 1 || len(m.configMaps) < 2 || len(m.secrets) != 1 || len(m.pdbs) != 1 || len(m.scaledObjects) != 1 {
		t.Fatalf("want 1 Deployment, 2+ ConfigMaps, 1 Secret, 1 PodDisruptionBudget, 1 ScaledObject; have %d, %d, %d, %d, %d",
			len(m.deployments), len(m.configMaps), len(m.secrets), len(m.pdbs), len(m.scaledObjects))
	}
	namespaced := map[string]string{}
	for _, o := range m.deployments {
		namespaced["Deployment/"+o.Name] = o.Namespace
	}
	for _, o := range m.configMaps {
		namespaced["ConfigMap/"+o.Name] = o.Namespace
	}
	for _, o := range m.secrets {
		namespaced["Secret/"+o.Name] = o.Namespace
	}
	for _, o := range m.services {
		namespaced["Service/"+o.Name] = o.Namespace
	}
	for _, o := range m.pdbs {
		namespaced["PodDisruptionBudget/"+o.Name] = o.Namespace
	}
	for _, o := range m.scaledObjects {
		namespaced["ScaledObject/"+o.Name] = o.Namespace
	}
	for key, ns := range namespaced {
		if ns != "" {
			t.Errorf("%s sets namespace %q: the manifests are namespace-less (apply with -n)", key, ns)
		}
	}
}

// TestStrictDecodeRejectsUnknownFields guards the guard: a misspelt field must fail.
func TestStrictDecodeRejectsUnknownFields(t *testing.T) {
	tests := []struct {
		name string
		doc  string
		into any
	}{
		{"unknown field", "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: x}\nspec: {replica: 2}\n", &appsv1.Deployment{}},
		{"wrong case", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\nDATA: {a: b}\n", &corev1.ConfigMap{}},
		{"duplicate field", "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: x}\ndata: {a: b}\ndata: {c: d}\n", &corev1.ConfigMap{}},
		{"KEDA unknown field", "apiVersion: keda.sh/v1alpha1\nkind: ScaledObject\nmetadata: {name: x}\nspec: {scaleTargetRef: {name: x}, minReplicas: 1}\n", &scaledObject{}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if err := strictDecode([]byte(tt.doc), tt.into); err == nil {
				t.Fatal("strict decoding accepted it")
			}
		})
	}
}

// TestKustomizationListsEveryManifest: `kubectl apply -k` applies every manifest but the Secret
// template, and every listed file exists.
func TestKustomizationListsEveryManifest(t *testing.T) {
	m := loadManifests(t)
	if len(m.kustomization) != 1 {
		t.Fatalf("want one Kustomization, have %d", len(m.kustomization))
	}
	listed := m.kustomization[0].Resources
	for _, r := range listed {
		if _, err := os.Stat(filepath.Join(manifestDir, r)); err != nil {
			t.Errorf("kustomization.yaml lists %s: %v", r, err)
		}
	}
	paths, _ := filepath.Glob(filepath.Join(manifestDir, "*.yaml"))
	for _, p := range paths {
		b := filepath.Base(p)
		if b == kustomization || b == secretTemplate {
			if slices.Contains(listed, b) {
				t.Errorf("kustomization.yaml must not list %s", b)
			}
			continue
		}
		if !slices.Contains(listed, b) {
			t.Errorf("kustomization.yaml does not list %s", b)
		}
	}
}

// TestSecretTemplateHoldsPlaceholders: the template must never carry a real credential.
func TestSecretTemplateHoldsPlaceholders(t *testing.T) {
	m := loadManifests(t)
	for _, s := range m.secrets {
		if len(s.Data) > 0 {
			t.Errorf("Secret %s: use stringData placeholders, not data", s.Name)
		}
		for k, v := range s.StringData {
			if !strings.Contains(v, "REPLACE_ME") {
				t.Errorf("Secret %s key %s: %q is not a REPLACE_ME placeholder", s.Name, k, v)
			}
		}
	}
}

// TestReferencesResolve: every ConfigMap, Secret, key and volume the Deployment names exists.
func TestReferencesResolve(t *testing.T) {
	m := loadManifests(t)
	d, _ := m.deployment(t)
	pod := d.Spec.Template.Spec
	volumes := map[string]corev1.Volume{}
	for _, v := range pod.Volumes {
		volumes[v.Name] = v
		switch {
		case v.ConfigMap != nil:
			cm := m.configMap(v.ConfigMap.Name)
			if cm == nil {
				t.Errorf("volume %s: ConfigMap %q is not defined", v.Name, v.ConfigMap.Name)
				continue
			}
			for _, it := range v.ConfigMap.Items {
				if _, ok := cm.Data[it.Key]; !ok {
					t.Errorf("volume %s: ConfigMap %s has no key %q", v.Name, cm.Name, it.Key)
				}
			}
		case v.Secret != nil:
			s := m.secret(v.Secret.SecretName)
			if s == nil {
				t.Errorf("volume %s: Secret %q is not defined", v.Name, v.Secret.SecretName)
				continue
			}
			for _, it := range v.Secret.Items {
				if !secretHasKey(s, it.Key) {
					t.Errorf("volume %s: Secret %s has no key %q", v.Name, s.Name, it.Key)
				}
			}
		}
	}
	for _, c := range append(slices.Clone(pod.InitContainers), pod.Containers...) {
		for _, vm := range c.VolumeMounts {
			if _, ok := volumes[vm.Name]; !ok {
				t.Errorf("container %s mounts volume %q, which the pod does not declare", c.Name, vm.Name)
			}
			if vm.SubPath != "" {
				t.Errorf("container %s mounts %s with subPath: ConfigMap and Secret updates never reach a subPath mount", c.Name, vm.Name)
			}
		}
		for _, ef := range c.EnvFrom {
			if ef.ConfigMapRef != nil && m.configMap(ef.ConfigMapRef.Name) == nil {
				t.Errorf("container %s: envFrom ConfigMap %q is not defined", c.Name, ef.ConfigMapRef.Name)
			}
			if ef.SecretRef != nil && m.secret(ef.SecretRef.Name) == nil {
				t.Errorf("container %s: envFrom Secret %q is not defined", c.Name, ef.SecretRef.Name)
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil {
				continue
			}
			if r := e.ValueFrom.ConfigMapKeyRef; r != nil {
				if cm := m.configMap(r.Name); cm == nil {
					t.Errorf("env %s: ConfigMap %q is not defined", e.Name, r.Name)
				} else if _, ok := cm.Data[r.Key]; !ok {
					t.Errorf("env %s: ConfigMap %s has no key %q", e.Name, r.Name, r.Key)
				}
			}
			if r := e.ValueFrom.SecretKeyRef; r != nil {
				if s := m.secret(r.Name); s == nil {
					t.Errorf("env %s: Secret %q is not defined", e.Name, r.Name)
				} else if !secretHasKey(s, r.Key) {
					t.Errorf("env %s: Secret %s has no key %q", e.Name, r.Name, r.Key)
				}
			}
		}
	}
}

// mountedFile returns the volume and key mounted at path in c, if a ConfigMap or Secret item is.
func mountedFile(pod corev1.PodSpec, c *corev1.Container, file string) (vol corev1.Volume, key string, ok bool) {
	for _, vm := range c.VolumeMounts {
		rel, err := filepath.Rel(vm.MountPath, file)
		if err != nil || strings.HasPrefix(rel, "..") {
			continue
		}
		for _, v := range pod.Volumes {
			if v.Name != vm.Name {
				continue
			}
			var items []corev1.KeyToPath
			switch {
			case v.ConfigMap != nil:
				items = v.ConfigMap.Items
			case v.Secret != nil:
				items = v.Secret.Items
			default:
				return v, "", false
			}
			for _, it := range items {
				if path.Clean(it.Path) == rel {
					return v, it.Key, true
				}
			}
			if len(items) == 0 { // every key is a file named after it
				return v, rel, true
			}
		}
	}
	return corev1.Volume{}, "", false
}

// TestMountedFilesLineUp: LLM_SERVICES_FILE and NATS_CREDS name files that the pod mounts from the
// right object and key.
func TestMountedFilesLineUp(t *testing.T) {
	m := loadManifests(t)
	d, c := m.deployment(t)
	env := m.env(t, c)
	tests := []struct {
		variable, kind, object, key string
	}{
		{"LLM_SERVICES_FILE", "ConfigMap", "artifact-worker-llmservices", llmKey},
		{"NATS_CREDS", "Secret", "artifact-worker-secrets", "nats.creds"},
	}
	for _, tt := range tests {
		t.Run(tt.variable, func(t *testing.T) {
			file := env[tt.variable]
			if file == "" {
				t.Fatalf("%s is not set", tt.variable)
			}
			v, key, ok := mountedFile(d.Spec.Template.Spec, c, file)
			if !ok {
				t.Fatalf("%s=%s: no ConfigMap or Secret item is mounted there", tt.variable, file)
			}
			var object string
			switch tt.kind {
			case "ConfigMap":
				if v.ConfigMap != nil {
					object = v.ConfigMap.Name
				}
			case "Secret":
				if v.Secret != nil {
					object = v.Secret.SecretName
				}
			}
			if object != tt.object || key != tt.key {
				t.Fatalf("%s=%s is %s %q key %q; want %s %q key %q", tt.variable, file, tt.kind, object, key, tt.kind, tt.object, tt.key)
			}
		})
	}
}

// renderLLMConfigMap is the ConfigMap holding config/llmservices.json byte for byte.
func renderLLMConfigMap(registry []byte) []byte {
	var b bytes.Buffer
	b.WriteString(`# GENERATED from config/llmservices.json by deployments/manifests_test.go; do not edit. After
# changing config/llmservices.json run: cd deployments && go test -run TestLLMServicesConfigMap -update
# The capability registry, mounted as a file (LLM_SERVICES_FILE); the worker reloads it when
# Kubernetes updates the mounted file. To change models in a cluster, edit this ConfigMap there.
apiVersion: v1
kind: ConfigMap
metadata:
  name: artifact-worker-llmservices
  labels:
    app.kubernetes.io/name: artifact-worker
    app.kubernetes.io/component: worker
data:
  llmservices.json: |
`)
	for _, line := range strings.SplitAfter(strings.TrimSuffix(string(registry), "\n"), "\n") {
		if strings.TrimSpace(line) == "" {
			b.WriteString("\n")
			continue
		}
		b.WriteString("    " + line)
	}
	b.WriteString("\n")
	return b.Bytes()
}

// TestLLMServicesConfigMap: the ConfigMap's llmservices.json is config/llmservices.json byte for
// byte, and the worker's own parser accepts it.
func TestLLMServicesConfigMap(t *testing.T) {
	want, err := os.ReadFile(registryFile)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.HasSuffix(want, []byte("\n")) || bytes.HasSuffix(want, []byte("\n\n")) {
		t.Fatalf("%s must end with exactly one newline to round-trip through a YAML block scalar", registryFile)
	}
	if *update {
		if err := os.WriteFile(llmConfigMap, renderLLMConfigMap(want), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	m := loadManifests(t)
	cm := m.configMap("artifact-worker-llmservices")
	if cm == nil {
		t.Fatal("ConfigMap artifact-worker-llmservices is not defined")
	}
	got := cm.Data[llmKey]
	if got != string(want) {
		t.Fatalf("ConfigMap %s key %s differs from %s (%d vs %d bytes); run: go test -run TestLLMServicesConfigMap -update",
			cm.Name, llmKey, registryFile, len(got), len(want))
	}
	if _, err := llmservices.Parse([]byte(got), llmKey); err != nil {
		t.Fatalf("the worker rejects the ConfigMap's registry: %v", err)
	}
}

// TestEnvVarsAreKnownSettings: every variable the Deployment and its ConfigMaps set is one the worker
// reads, and every value parses as the worker parses it.
func TestEnvVarsAreKnownSettings(t *testing.T) {
	known := workerSettings(t)
	m := loadManifests(t)
	_, c := m.deployment(t)
	env := m.env(t, c)
	for _, name := range sortedKeys(env) {
		if err := checkSetting(known, name, env[name]); err != nil {
			t.Error(err)
		}
	}
	for _, required := range []string{"NATS_URL", "S3_ENDPOINT", "S3_ACCESS_KEY", "S3_SECRET_KEY", "HTTP_ADDR", "DATA_DIR", "JETSTREAM_REPLICAS"} {
		if _, ok := env[required]; !ok {
			t.Errorf("%s is not set: without it the worker falls back to its single-process defaults", required)
		}
	}
	// Production NATS is a 3-node cluster: the worker's state (WORKSPACE_FILES above all) must
	// survive the loss of one server.
	if env["JETSTREAM_REPLICAS"] != "3" {
		t.Errorf("JETSTREAM_REPLICAS = %q, want 3 (R3 on the 3-node NATS cluster the manifests target)", env["JETSTREAM_REPLICAS"])
	}
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// TestPodSpecLinesUp: probes, ports, security context, resources and shutdown timing.
func TestPodSpecLinesUp(t *testing.T) {
	m := loadManifests(t)
	d, c := m.deployment(t)
	pod := d.Spec.Template.Spec
	env := m.env(t, c)

	t.Run("selector", func(t *testing.T) {
		sel, err := metav1.LabelSelectorAsSelector(d.Spec.Selector)
		if err != nil {
			t.Fatal(err)
		}
		if !sel.Matches(labels.Set(d.Spec.Template.Labels)) {
			t.Fatalf("Deployment selector %s does not match its pod labels %v", sel, d.Spec.Template.Labels)
		}
		if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
			t.Fatal("want at least 2 replicas")
		}
	})

	ports := map[string]int32{}
	for _, p := range c.Ports {
		if p.Name != "" {
			ports[p.Name] = p.ContainerPort
		}
	}
	t.Run("http port", func(t *testing.T) {
		_, port, err := net.SplitHostPort(env["HTTP_ADDR"])
		if err != nil {
			t.Fatalf("HTTP_ADDR %q: %v", env["HTTP_ADDR"], err)
		}
		if host, _, _ := net.SplitHostPort(env["HTTP_ADDR"]); host == "127.0.0.1" || host == "localhost" {
			t.Fatalf("HTTP_ADDR %q listens on loopback: the kubelet's probes cannot reach it", env["HTTP_ADDR"])
		}
		if strconv.Itoa(int(ports["http"])) != port {
			t.Fatalf("HTTP_ADDR port %s is not the container port named http (%d)", port, ports["http"])
		}
	})

	t.Run("probes", func(t *testing.T) {
		for _, p := range []struct {
			name  string
			probe *corev1.Probe
			path  string
		}{
			{"startupProbe", c.StartupProbe, "/healthz"},
			{"livenessProbe", c.LivenessProbe, "/healthz"},
			{"readinessProbe", c.ReadinessProbe, "/readyz"},
		} {
			if p.probe == nil || p.probe.HTTPGet == nil {
				t.Errorf("%s: want an httpGet probe", p.name)
				continue
			}
			g := p.probe.HTTPGet
			if g.Path != p.path {
				t.Errorf("%s path %q, want %q", p.name, g.Path, p.path)
			}
			if g.Port.StrVal == "" || ports[g.Port.StrVal] == 0 {
				t.Errorf("%s port %q is not a named container port", p.name, g.Port.String())
			}
		}
	})

	t.Run("security context", func(t *testing.T) {
		psc, sc := pod.SecurityContext, c.SecurityContext
		if psc == nil || sc == nil {
			t.Fatal("want a pod and a container securityContext")
		}
		nonRoot := (sc.RunAsNonRoot != nil && *sc.RunAsNonRoot) || (psc.RunAsNonRoot != nil && *psc.RunAsNonRoot)
		uid := sc.RunAsUser
		if uid == nil {
			uid = psc.RunAsUser
		}
		seccomp := sc.SeccompProfile
		if seccomp == nil {
			seccomp = psc.SeccompProfile
		}
		switch {
		case !nonRoot:
			t.Error("runAsNonRoot is not true")
		case uid == nil || *uid != 65532:
			t.Error("runAsUser is not 65532 (the image's nonroot user)")
		case sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem:
			t.Error("readOnlyRootFilesystem is not true")
		case sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation:
			t.Error("allowPrivilegeEscalation is not false")
		case sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) || len(sc.Capabilities.Add) > 0:
			t.Error("capabilities must drop ALL and add none")
		case seccomp == nil || seccomp.Type != corev1.SeccompProfileTypeRuntimeDefault:
			t.Error("seccompProfile is not RuntimeDefault")
		}
	})

	t.Run("writable directories", func(t *testing.T) {
		// With a read-only root filesystem, /tmp and DATA_DIR must be emptyDir mounts.
		for _, dir := range []string{"/tmp", env["DATA_DIR"]} {
			found := false
			for _, vm := range c.VolumeMounts {
				if vm.MountPath != dir {
					continue
				}
				for _, v := range pod.Volumes {
					found = found || (v.Name == vm.Name && v.EmptyDir != nil)
				}
			}
			if !found {
				t.Errorf("%q is not an emptyDir mount", dir)
			}
		}
	})

	t.Run("memory", func(t *testing.T) {
		req, lim := c.Resources.Requests, c.Resources.Limits
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			if _, ok := req[r]; !ok {
				t.Errorf("no %s request", r)
			}
			if _, ok := lim[r]; !ok {
				t.Errorf("no %s limit", r)
			}
		}
		memLimit := lim[corev1.ResourceMemory]
		concurrency := intSetting(t, env, "CONCURRENCY", 16)
		maxBytes := sizeSetting(t, env, "MAX_ARTIFACT_BYTES", 20<<20)
		budget := sizeSetting(t, env, "MEMORY_BUDGET", 512<<20)
		slots := int64(concurrency) * int64(len(contracts.RequestSubjects))
		// Worst case: the memory budget full (it charges copiesPerRequest x each artifact read) and
		// every slot holding an inline request (at most max_payload, 1 MiB) and its reply.
		worst := int64(baselineMemory) + int64(budget) + slots*inlineRequest
		what := fmt.Sprintf("100Mi + MEMORY_BUDGET %d + CONCURRENCY %d x %d subjects x 2 MiB", budget, concurrency, len(contracts.RequestSubjects))
		if budget < 0 {
			// No budget: every subject's CONCURRENCY requests may hold a largest artifact at once.
			worst = int64(baselineMemory) + slots*copiesPerRequest*int64(maxBytes)
			what = fmt.Sprintf("100Mi + CONCURRENCY %d x %d subjects x %d x MAX_ARTIFACT_BYTES %d", concurrency, len(contracts.RequestSubjects), copiesPerRequest, maxBytes)
		}
		if memLimit.Value() < worst {
			t.Errorf("memory limit %s is below the worst case %s (%s)", memLimit.String(), resource.NewQuantity(worst, resource.BinarySI), what)
		}
		if v, ok := env["GOMEMLIMIT"]; ok {
			soft, err := parseGoMemLimit(v)
			if err != nil {
				t.Fatalf("GOMEMLIMIT %q: %v", v, err)
			}
			if soft >= memLimit.Value() {
				t.Errorf("GOMEMLIMIT %s is not below the memory limit %s", v, memLimit.String())
			}
		}
	})

	t.Run("termination grace", func(t *testing.T) {
		handlerTimeout := durationSetting(t, env, "HANDLER_TIMEOUT", messaging.DefaultHandlerTimeout)
		drain := durationSetting(t, env, "DRAIN_TIMEOUT", 30*time.Second)
		// messaging.DeliveryBudget: one delivery is worked on for at most 3 x HandlerTimeout (the
		// attempts and in-process retries, then the reply or dead letter).
		inFlight := messaging.DeliveryBudget(handlerTimeout)
		if drain < inFlight {
			t.Errorf("DRAIN_TIMEOUT %s is below the longest a request may be worked on, %s (3 x HANDLER_TIMEOUT): draining would abandon requests", drain, inFlight)
		}
		if pod.TerminationGracePeriodSeconds == nil {
			t.Fatal("terminationGracePeriodSeconds is not set (default 30s)")
		}
		grace := time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second
		if grace <= drain+shutdownSlack {
			t.Errorf("terminationGracePeriodSeconds %s is not above DRAIN_TIMEOUT %s + %s: the kubelet would SIGKILL a draining worker", grace, drain, shutdownSlack)
		}
	})
}

func intSetting(t *testing.T, env map[string]string, name string, def int) int {
	t.Helper()
	v, ok := env[name]
	if !ok {
		return def
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		t.Fatalf("%s %q: %v", name, v, err)
	}
	return n
}

// sizeSetting reads a size setting as the worker does (bytes, or 512MiB, 1GiB, 200MB).
func sizeSetting(t *testing.T, env map[string]string, name string, def int) int {
	t.Helper()
	v, ok := env[name]
	if !ok {
		return def
	}
	n, err := service.ParseByteSize(v)
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return int(n)
}

func durationSetting(t *testing.T, env map[string]string, name string, def time.Duration) time.Duration {
	t.Helper()
	v, ok := env[name]
	if !ok {
		return def
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		t.Fatalf("%s %q: %v", name, v, err)
	}
	return d
}

// parseGoMemLimit parses a GOMEMLIMIT value as the Go runtime does (bytes with an optional B, KiB,
// MiB, GiB or TiB suffix).
func parseGoMemLimit(v string) (int64, error) {
	units := []struct {
		suffix string
		mult   int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if s, ok := strings.CutSuffix(v, u.suffix); ok {
			v, mult = s, u.mult
			break
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n < 0 || n > math.MaxInt64/mult {
		return 0, fmt.Errorf("not a byte count like 1800MiB")
	}
	return n * mult, nil
}

// TestSelectorsMatchPods: the PDB and the Service select the Deployment's pods.
func TestSelectorsMatchPods(t *testing.T) {
	m := loadManifests(t)
	d, c := m.deployment(t)
	pods := labels.Set(d.Spec.Template.Labels)
	for _, pdb := range m.pdbs {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil {
			t.Fatal(err)
		}
		if sel.Empty() || !sel.Matches(pods) {
			t.Errorf("PodDisruptionBudget %s selector %q does not match the pods %v", pdb.Name, sel, pods)
		}
		if pdb.Spec.MinAvailable == nil || pdb.Spec.MinAvailable.IntValue() < 1 {
			t.Errorf("PodDisruptionBudget %s: want minAvailable >= 1", pdb.Name)
		}
		if pdb.Spec.MinAvailable != nil && d.Spec.Replicas != nil && pdb.Spec.MinAvailable.IntValue() >= int(*d.Spec.Replicas) {
			t.Errorf("PodDisruptionBudget %s: minAvailable %d blocks every node drain with %d replicas", pdb.Name, pdb.Spec.MinAvailable.IntValue(), *d.Spec.Replicas)
		}
	}
	ports := map[string]bool{}
	for _, p := range c.Ports {
		ports[p.Name] = true
	}
	for _, s := range m.services {
		if len(s.Spec.Selector) == 0 || !labels.SelectorFromSet(s.Spec.Selector).Matches(pods) {
			t.Errorf("Service %s selector %v does not match the pods %v", s.Name, s.Spec.Selector, pods)
		}
		for _, p := range s.Spec.Ports {
			if p.TargetPort.StrVal == "" || !ports[p.TargetPort.StrVal] {
				t.Errorf("Service %s port %s: targetPort %q is not a named container port", s.Name, p.Name, p.TargetPort.String())
			}
		}
	}
}
