package deploy

import (
	"crypto/rand"
	"encoding/hex"
	"path"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/intstr"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"github.com/skygate/skygate/internal/config"
)

// manifests is kubernetes/ as kustomize builds it, each object decoded strictly (an
// unknown or misspelt field fails) into its API type.
type manifests struct {
	config     *corev1.ConfigMap
	deployment *appsv1.Deployment
	services   []*corev1.Service
	pdb        *policyv1.PodDisruptionBudget
}

func buildKubernetes(t *testing.T) *manifests {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	res, err := k.Run(filesys.MakeFsOnDisk(), "kubernetes")
	if err != nil {
		t.Fatalf("kustomize build kubernetes: %v", err)
	}
	m := &manifests{}
	for _, r := range res.Resources() {
		doc, err := r.AsYAML()
		if err != nil {
			t.Fatal(err)
		}
		var obj any
		switch kind := r.GetKind(); kind {
		case "ConfigMap":
			m.config = &corev1.ConfigMap{}
			obj = m.config
		case "Deployment":
			m.deployment = &appsv1.Deployment{}
			obj = m.deployment
		case "Service":
			s := &corev1.Service{}
			m.services = append(m.services, s)
			obj = s
		case "PodDisruptionBudget":
			m.pdb = &policyv1.PodDisruptionBudget{}
			obj = m.pdb
		default:
			t.Fatalf("unexpected %s %s", kind, r.GetName())
		}
		if err := yaml.UnmarshalStrict(doc, obj); err != nil {
			t.Fatalf("%s %s: %v", r.GetKind(), r.GetName(), err)
		}
	}
	if m.config == nil || m.deployment == nil || len(m.services) != 2 || m.pdb == nil {
		t.Fatalf("want a ConfigMap, a Deployment, two Services and a PodDisruptionBudget, got %d resources", res.Size())
	}
	return m
}

// TestKubernetes checks the production manifests: replicas, probes on the operator
// port, the drain (preStop, grace period), resources, security, the migration, and
// that every variable exists and production's checks accept the configuration.
func TestKubernetes(t *testing.T) {
	m := buildKubernetes(t)
	d := m.deployment
	pod := d.Spec.Template.Spec
	settings := m.config.Data

	if d.Spec.Replicas == nil || *d.Spec.Replicas < 2 {
		t.Errorf("replicas %v, want at least 2", d.Spec.Replicas)
	}
	podLabels := labels.Set(d.Spec.Template.Labels)
	if !selects(t, d.Spec.Selector.MatchLabels, podLabels) {
		t.Errorf("the Deployment's selector %v does not select its pods %v", d.Spec.Selector.MatchLabels, podLabels)
	}
	if ru := d.Spec.Strategy.RollingUpdate; ru == nil || ru.MaxUnavailable == nil || ru.MaxUnavailable.IntValue() != 0 {
		t.Errorf("rolling update %+v, want maxUnavailable 0: a new pod is ready before an old one stops", ru)
	}

	if len(pod.Containers) != 1 || len(pod.InitContainers) != 1 {
		t.Fatalf("want one container and one init container, got %d and %d", len(pod.Containers), len(pod.InitContainers))
	}
	serve, migrate := pod.Containers[0], pod.InitContainers[0]
	if !slices.Equal(serve.Args, []string{"serve"}) || !slices.Equal(migrate.Args, []string{"migrate"}) {
		t.Errorf("args %q and %q, want serve and migrate", serve.Args, migrate.Args)
	}
	if !strings.HasSuffix(serve.Image, "/skygate:0.0.0") || migrate.Image != serve.Image {
		t.Errorf("images %q and %q, want kustomization.yaml's one image in both", serve.Image, migrate.Image)
	}
	if !reflect.DeepEqual(serve.Env, migrate.Env) || !reflect.DeepEqual(serve.EnvFrom, migrate.EnvFrom) {
		t.Error("the init container's environment is not the server's: they would migrate one database and serve another")
	}
	if settings["SKYGATE_MIGRATE"] != "false" {
		t.Errorf("SKYGATE_MIGRATE=%q, want false: the init container migrates, a server refuses an unmigrated database", settings["SKYGATE_MIGRATE"])
	}

	// Every variable is one Load reads; production accepts them, secrets filled in.
	env := map[string]string{}
	for name, v := range settings {
		env[name] = v
	}
	for _, e := range serve.Env {
		if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil {
			t.Errorf("%s is set in the Deployment; settings belong in configmap.yaml, secrets in a Secret", e.Name)
			continue
		}
		env[e.Name] = secretStandIn(t, e.Name)
	}
	for name := range env {
		if !knownVariable(name) {
			t.Errorf("%s is no variable of internal/config (Variables)", name)
		}
	}
	cfg, err := config.Load(func(name string) string { return env[name] })
	if err != nil {
		t.Fatalf("production refuses the manifests' configuration: %v", err)
	}
	if !cfg.Production() {
		t.Errorf("SKYGATE_ENV=%q, want production", cfg.Env)
	}

	ports := containerPorts(t, serve, cfg)
	for _, p := range []struct {
		name  string
		probe *corev1.Probe
		path  string
	}{{"startup", serve.StartupProbe, "/healthz"}, {"readiness", serve.ReadinessProbe, "/readyz"}, {"liveness", serve.LivenessProbe, "/healthz"}} {
		if p.probe == nil || p.probe.HTTPGet == nil {
			t.Errorf("%s probe: want an HTTP GET of %s", p.name, p.path)
			continue
		}
		if g := p.probe.HTTPGet; g.Path != p.path || ports[g.Port.String()] != portOf(cfg.OpsAddr) {
			t.Errorf("%s probe GET %s on port %s, want %s on the operator listener (%s)", p.name, g.Path, g.Port.String(), p.path, cfg.OpsAddr)
		}
	}

	// The drain: the preStop sleep, then SIGTERM, the shutdown delay and timeout must
	// all fit in the grace period.
	if serve.Lifecycle == nil || serve.Lifecycle.PreStop == nil || serve.Lifecycle.PreStop.Sleep == nil || serve.Lifecycle.PreStop.Sleep.Seconds <= 0 {
		t.Fatal("want a preStop sleep, so that the pod leaves the endpoints while it still serves")
	}
	preStop := time.Duration(serve.Lifecycle.PreStop.Sleep.Seconds) * time.Second
	delay, timeout := duration(t, settings, "SKYGATE_SHUTDOWN_DELAY"), duration(t, settings, "SKYGATE_SHUTDOWN_TIMEOUT")
	if pod.TerminationGracePeriodSeconds == nil {
		t.Fatal("no terminationGracePeriodSeconds")
	}
	if grace := time.Duration(*pod.TerminationGracePeriodSeconds) * time.Second; grace <= preStop+delay+timeout {
		t.Errorf("terminationGracePeriodSeconds %v, want more than preStop %v + delay %v + timeout %v", grace, preStop, delay, timeout)
	}

	wantSecure(t, pod, serve, migrate)
	wantTLSMounted(t, pod, serve, cfg)
	wantServices(t, m.services, podLabels, ports, cfg)
	if !selects(t, m.pdb.Spec.Selector.MatchLabels, podLabels) {
		t.Errorf("the PodDisruptionBudget's selector %v does not select the pods %v", m.pdb.Spec.Selector.MatchLabels, podLabels)
	}
	if mu := m.pdb.Spec.MaxUnavailable; mu == nil || mu.Type != intstr.Int || mu.IntValue() < 1 || mu.IntValue() >= int(*d.Spec.Replicas) {
		t.Errorf("PodDisruptionBudget maxUnavailable %v, want at least 1 and fewer than the replicas", mu)
	}
}

// wantSecure checks that the pod runs as a non-root user, with a read-only root file
// system, no privilege escalation, no capabilities, and bounded resources.
func wantSecure(t *testing.T, pod corev1.PodSpec, containers ...corev1.Container) {
	t.Helper()
	if sc := pod.SecurityContext; sc == nil || sc.RunAsNonRoot == nil || !*sc.RunAsNonRoot {
		t.Error("the pod's securityContext lacks runAsNonRoot: true")
	}
	if pod.AutomountServiceAccountToken == nil || *pod.AutomountServiceAccountToken {
		t.Error("the pod mounts a service account token it has no use for")
	}
	for _, c := range containers {
		sc := c.SecurityContext
		if sc == nil || sc.ReadOnlyRootFilesystem == nil || !*sc.ReadOnlyRootFilesystem ||
			sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation ||
			sc.Capabilities == nil || !slices.Equal(sc.Capabilities.Drop, []corev1.Capability{"ALL"}) {
			t.Errorf("container %s: want readOnlyRootFilesystem, no privilege escalation and capabilities drop [ALL]", c.Name)
		}
		for _, r := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, lim := c.Resources.Requests[r], c.Resources.Limits[r]
			if req.IsZero() || lim.IsZero() || req.Cmp(lim) > 0 {
				t.Errorf("container %s: %s request %s and limit %s, want both, the request at most the limit", c.Name, r, req.String(), lim.String())
			}
		}
	}
}

// wantTLSMounted checks that the TLS files the configuration names lie in read-only
// mounts of Secrets.
func wantTLSMounted(t *testing.T, pod corev1.PodSpec, c corev1.Container, cfg *config.Config) {
	t.Helper()
	secretVolumes := map[string]bool{}
	for _, v := range pod.Volumes {
		if v.Secret != nil {
			secretVolumes[v.Name] = true
		}
	}
	for _, file := range []string{cfg.TLSCert, cfg.TLSKey, cfg.ClientCA} {
		found := false
		for _, vm := range c.VolumeMounts {
			found = found || vm.ReadOnly && secretVolumes[vm.Name] && path.Dir(file) == vm.MountPath
		}
		if !found {
			t.Errorf("%s is in no read-only mount of a Secret", file)
		}
	}
}

// wantServices checks the two Services: both select the pods; skygate serves the
// partners' listeners, skygate-ops the operator listener, each by a port the
// container names.
func wantServices(t *testing.T, services []*corev1.Service, pods labels.Set, ports map[string]int, cfg *config.Config) {
	t.Helper()
	want := map[string][]string{"skygate": {cfg.HTTPAddr, cfg.MTLSAddr}, "skygate-ops": {cfg.OpsAddr}}
	for _, s := range services {
		if !selects(t, s.Spec.Selector, pods) {
			t.Errorf("Service %s selects %v, not the pods %v", s.Name, s.Spec.Selector, pods)
		}
		addrs, ok := want[s.Name]
		if !ok || len(s.Spec.Ports) != len(addrs) {
			t.Errorf("Service %s: unexpected, or %d ports", s.Name, len(s.Spec.Ports))
			continue
		}
		for i, p := range s.Spec.Ports {
			if p.TargetPort.Type != intstr.String || ports[p.TargetPort.StrVal] != portOf(addrs[i]) {
				t.Errorf("Service %s port %s targets %s, want the container's port of %s", s.Name, p.Name, p.TargetPort.String(), addrs[i])
			}
		}
		delete(want, s.Name)
	}
	if len(want) > 0 {
		t.Errorf("missing Services %v", want)
	}
}

// containerPorts returns c's named ports, checking that they are the listeners'.
func containerPorts(t *testing.T, c corev1.Container, cfg *config.Config) map[string]int {
	t.Helper()
	ports := map[string]int{}
	for _, p := range c.Ports {
		ports[p.Name] = int(p.ContainerPort)
	}
	want := map[string]int{"http": portOf(cfg.HTTPAddr), "mtls": portOf(cfg.MTLSAddr), "ops": portOf(cfg.OpsAddr)}
	if !reflect.DeepEqual(ports, want) {
		t.Errorf("container ports %v, want the listeners' %v", ports, want)
	}
	return ports
}

func selects(t *testing.T, selector map[string]string, pods labels.Set) bool {
	t.Helper()
	return len(selector) > 0 && labels.SelectorFromSet(selector).Matches(pods)
}

// secretStandIn returns a value production accepts for a variable the manifests take
// from a Secret.
func secretStandIn(t *testing.T, name string) string {
	t.Helper()
	switch name {
	case "SKYGATE_MASTER_KEY":
		key := make([]byte, 32)
		rand.Read(key)
		return hex.EncodeToString(key)
	case "SKYGATE_DATABASE_URL":
		return "postgres://skygate:secret@postgres.example.com:5432/skygate?sslmode=verify-full"
	case "SKYGATE_REDIS_URL":
		return "rediss://:secret@redis.example.com:6380/0"
	case "SKYGATE_OIDC_CLIENT_SECRET":
		return "secret"
	}
	t.Errorf("%s comes from a Secret: add a stand-in value here", name)
	return ""
}

func duration(t *testing.T, settings map[string]string, name string) time.Duration {
	t.Helper()
	d, err := time.ParseDuration(settings[name])
	if err != nil {
		t.Fatalf("%s=%q: %v (the grace period is sized for it: set it)", name, settings[name], err)
	}
	return d
}
