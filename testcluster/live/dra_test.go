package live

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// GPUs from Dynamic Resource Allocation on the real control plane (docs/dra.md). A probe
// gpu-admission serves the example policy plus spec.dra (NVIDIA's device classes counted as
// nvidia.com/gpu and MIG slices) for namespace dra-live, with its usage and DRA objects from the
// apiserver (the policy's exemption of opted-out namespaces removed); the running install is
// opted out of that namespace. The test publishes the device
// classes as NVIDIA's chart defines them and a ResourceSlice of four GPUs for the fake node
// h100-0 (no driver process: the scheduler allocates against the slice alone), then:
//   - a training pod whose two containers share one claim from a template (NVIDIA's quickstart)
//     is admitted and placed on the training pool, and the real scheduler allocates its claim on
//     h100-0;
//   - the webhook's ledger counts that claim (quota used 1 of the namespace's 2), a second pod
//     fills the quota, and a third is denied by the quota with the claims counted;
//   - `gpu-admission status` shows the slice's GPUs in the training pool, two of them allocated;
//   - a batch-class pod with a GPU claim is denied, naming the claim; a claim whose template does
//     not exist is denied (unresolvedClaims: deny);
//   - KEP-5004: with the class mapped to nvidia.com/gpu, a pod asking nvidia.com/gpu lands on a
//     node that only DRA serves, and the quota counts it once (its request, not again its claim).
func testDRA(t *testing.T) {
	dir := filepath.Join(cluster.Dir, "install", "dra")
	mkdir(t, dir)
	const ns = "dra-live"
	namespace(t, ns, map[string]string{"env": "dev", "gpua-probe": "dra", "gpu-admission.io/webhook": "disabled"})
	t.Cleanup(func() {
		kubectl("", "-n", ns, "delete", "pods", "--all", "--grace-period=0", "--force")
		kubectl("", "-n", ns, "delete", "resourceclaims,resourceclaimtemplates", "--all")
		kubectl("", "delete", "resourceslice", "h100-0-gpu.nvidia.com", "--ignore-not-found")
		kubectl("", "delete", "deviceclass", "gpu.nvidia.com", "mig.nvidia.com", "--ignore-not-found")
	})
	mustKubectl(t, draObjects, "apply", "-f", "-")
	mustKubectl(t, singleGPUTemplate, "-n", ns, "apply", "-f", "-")

	// The probe judges the namespace the running install is opted out of.
	policies := examplePolicyWith(t, filepath.Join(dir, "policies"), "spec.dra",
		[2]string{"\nspec:\n", "\nspec:\n" + draSection},
		[2]string{"      matchLabels: {gpu-admission.io/webhook: disabled}\n", ""})
	probe := startProbeWebhook(t, policies, filepath.Join(dir, "webhook.log"), true)
	t.Cleanup(func() {
		if t.Failed() {
			text, _ := os.ReadFile(probe.log)
			lines := strings.Split(string(text), "\n")
			if len(lines) > 30 {
				lines = lines[len(lines)-30:]
			}
			t.Logf("probe log (last lines):\n%s", strings.Join(lines, "\n"))
			t.Logf("webhook configurations:\n%s", kubectl("", "get", "mutatingwebhookconfigurations,validatingwebhookconfigurations", "-o", "yaml").combined())
		}
	})
	registerPodProbe(t, "dra", probe.base)
	waitForProbeToSeeLabels(t, probe, ns)

	// NVIDIA's quickstart (gpu-test2): two containers, one claim from a template.
	pod := func(name, class, template string) string {
		return fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s, labels: {gpu-admission.io/class: %s}}
spec:
  containers:
  - {name: ctr0, image: ubuntu:22.04, command: [sleep, "9999"], resources: {claims: [{name: shared-gpu}]}}
  - {name: ctr1, image: ubuntu:22.04, command: [sleep, "9999"], resources: {claims: [{name: shared-gpu}]}}
  resourceClaims:
  - {name: shared-gpu, resourceClaimTemplateName: %s}
`, name, class, template)
	}

	t.Run("TemplateClaimIsATrainingPodPlacedAndAllocated", func(t *testing.T) {
		mustKubectl(t, pod("shared-0", "training", "single-gpu"), "-n", ns, "create", "-f", "-")
		created := getJSON(t, "-n", ns, "pod", "shared-0")
		if !strings.Contains(jsonText(path(created, "spec", "affinity")), "train-h100") {
			t.Fatalf("not placed on the training pool:\n%s", jsonText(path(created, "spec")))
		}
		probe.mustHaveLogged(t, `"class":"training"`, "shared-0")
		claim := allocatedClaimOf(t, ns, "shared-0")
		if node := str(path(getJSON(t, "-n", ns, "pod", "shared-0"), "spec", "nodeName")); node != "h100-0" {
			t.Errorf("the scheduler bound the pod to %q, not the node with the slice (claim %s)", node, claim)
		}
	})

	t.Run("TheQuotaCountsClaims", func(t *testing.T) {
		waitForQuotaUsed(t, probePort(probe), ns, 1)
		mustKubectl(t, pod("shared-1", "training", "single-gpu"), "-n", ns, "create", "-f", "-")
		allocatedClaimOf(t, ns, "shared-1")
		waitForQuotaUsed(t, probePort(probe), ns, 2)
		r := kubectl(pod("shared-2", "training", "single-gpu"), "-n", ns, "create", "-f", "-")
		if r.Err == nil || !strings.Contains(r.combined(), `quota "dev-namespaces"`) {
			t.Fatalf("a third 1-GPU claim under a 2-GPU quota with two claims allocated was not denied by the quota:\n%s", r.combined())
		}
		t.Logf("third pod refused: %s", strings.TrimSpace(r.combined()))
	})

	t.Run("ABatchPodWithAGpuClaimIsDenied", func(t *testing.T) {
		r := kubectl(pod("etl-0", "batch", "single-gpu"), "-n", ns, "create", "-f", "-")
		if r.Err == nil || !strings.Contains(r.combined(), `claim "shared-gpu" (ResourceClaimTemplate "single-gpu") asks for 1 gpu.nvidia.com device but class batch`) {
			t.Fatalf("a batch pod with a GPU claim was not denied naming the claim:\n%s", r.combined())
		}
	})

	t.Run("StatusShowsTheDRADevicesPerPool", func(t *testing.T) {
		r := gpua("", "status", "--kubeconfig", cluster.Kubeconfig, "--policies", policies, "-o", "json")
		if r.Err != nil {
			t.Fatalf("gpu-admission status: %s", r.combined())
		}
		var report map[string]any
		if err := json.Unmarshal([]byte(r.Stdout), &report); err != nil {
			t.Fatalf("%v\n%s", err, r.Stdout)
		}
		found := false
		for _, p := range report["pools"].([]any) {
			if str(path(p, "pool")) != "train-h100" {
				continue
			}
			for _, res := range path(p, "resources").([]any) {
				if str(path(res, "source")) == "dra" && str(path(res, "resource")) == "nvidia.com/gpu" {
					found = true
					if path(res, "allocatable") != 4.0 || path(res, "allocated") != 2.0 {
						t.Errorf("train-h100's DRA GPUs: %s, want 4 allocatable, 2 allocated", jsonText(res))
					}
				}
			}
			t.Logf("train-h100 in status: %s", jsonText(p))
		}
		if !found {
			t.Errorf("status shows no DRA GPUs for train-h100:\n%s", r.Stdout)
		}
	})

	t.Run("AMissingTemplateIsDenied", func(t *testing.T) {
		r := kubectl(pod("typo-0", "training", "single-gpuu"), "-n", ns, "create", "-f", "-")
		if r.Err == nil || !strings.Contains(r.combined(), "dra-claim-unresolved") && !strings.Contains(r.combined(), "cannot be resolved") {
			t.Fatalf("a claim of a missing template was not denied:\n%s", r.combined())
		}
	})

	t.Run("ExtendedResourceServedByDRACountsOnce", func(t *testing.T) { testDRAExtendedResource(t, ns, probe) })
}

// KEP-5004: a DeviceClass with extendedResourceName lets a pod that asks for nvidia.com/gpu be
// served by DRA on a node without a device plugin. The scheduler makes a claim for it; the
// webhook counts the pod's nvidia.com/gpu once, not again as that claim.
func testDRAExtendedResource(t *testing.T, ns string, probe probeWebhook) {
	kubectl("", "-n", ns, "delete", "pods", "--all", "--grace-period=0", "--force")
	waitForQuotaUsed(t, probePort(probe), ns, 0)
	mustKubectl(t, "", "patch", "deviceclass", "gpu.nvidia.com", "--type=merge", "-p",
		`{"spec":{"extendedResourceName":"nvidia.com/gpu"}}`)
	node := writeTemp(t, "dra-node.yaml", "apiVersion: v1\nkind: List\nitems:\n"+
		`- {"apiVersion": "v1", "kind": "Node", "metadata": {"name": "dra-h100-0", "labels": {"kubernetes.io/hostname": "dra-h100-0", "kubernetes.io/os": "linux", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3", "gpu-admission.io/pool": "train-h100"}}, "spec": {"taints": [{"key": "nvidia.com/gpu", "effect": "NoSchedule"}]}, "status": {"allocatable": {"cpu": "192", "memory": "2113176900Ki", "pods": "110"}, "capacity": {"cpu": "192", "memory": "2113176900Ki", "pods": "110"}, "conditions": [{"type": "Ready", "status": "True", "reason": "KubeletReady", "message": "fake node (no kubelet)", "lastHeartbeatTime": "2026-01-01T00:00:00Z", "lastTransitionTime": "2026-01-01T00:00:00Z"}]}}`+"\n")
	if out, err := script("nodes.sh", "apply", node).CombinedOutput(); err != nil {
		t.Fatalf("nodes.sh: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		kubectl("", "-n", ns, "delete", "pods", "--all", "--grace-period=0", "--force")
		kubectl("", "delete", "resourceslice", "dra-h100-0-gpu.nvidia.com", "--ignore-not-found")
		kubectl("", "delete", "node", "dra-h100-0", "--ignore-not-found")
	})
	mustKubectl(t, strings.ReplaceAll(draSliceTemplate, "NODE", "dra-h100-0"), "apply", "-f", "-")
	mustKubectl(t, `apiVersion: v1
kind: Pod
metadata: {name: ext-0, labels: {gpu-admission.io/class: training}}
spec:
  nodeSelector: {kubernetes.io/hostname: dra-h100-0}
  containers: [{name: c, image: cuda, resources: {limits: {nvidia.com/gpu: 1}}}]
`, "-n", ns, "create", "-f", "-")
	var claim string
	eventually(t, 60*time.Second, "ext-0 bound to the DRA-only node with its extended-resource claim", func() error {
		p := getJSON(t, "-n", ns, "pod", "ext-0")
		claim = str(path(p, "status", "extendedResourceClaimStatus", "resourceClaimName"))
		if node := str(path(p, "spec", "nodeName")); node != "dra-h100-0" || claim == "" {
			return fmt.Errorf("nodeName %q, extendedResourceClaimStatus %s", node, jsonText(path(p, "status")))
		}
		return nil
	})
	allocated := getJSON(t, "-n", ns, "resourceclaim", claim)
	if path(allocated, "status", "allocation") == nil {
		t.Errorf("the scheduler's claim %s is not allocated:\n%s", claim, jsonText(allocated))
	}
	// Counted once: 1 GPU-equivalent, and still 1 once the webhook has seen the claim.
	waitForQuotaUsed(t, probePort(probe), ns, 1)
	time.Sleep(2 * time.Second)
	waitForQuotaUsed(t, probePort(probe), ns, 1)
}

// allocatedClaimOf waits until the claim the resourceclaim controller made for the pod is
// allocated and reserved for it, and returns its name.
func allocatedClaimOf(t *testing.T, ns, podName string) string {
	t.Helper()
	var name string
	eventually(t, 60*time.Second, "the claim of "+podName+" allocated by the scheduler", func() error {
		p := getJSON(t, "-n", ns, "pod", podName)
		statuses, _ := path(p, "status", "resourceClaimStatuses").([]any)
		if len(statuses) == 0 {
			return fmt.Errorf("no status.resourceClaimStatuses yet")
		}
		name = str(path(statuses[0], "resourceClaimName"))
		c := getJSON(t, "-n", ns, "resourceclaim", name)
		if path(c, "status", "allocation") == nil {
			return fmt.Errorf("claim %s not allocated", name)
		}
		return nil
	})
	return name
}

func probePort(p probeWebhook) string { return p.base[strings.LastIndex(p.base, ":")+1:] }

// waitForProbeToSeeLabels: the probe's own ledger knows the namespace (quota and rollout
// selectors read its labels).
func waitForProbeToSeeLabels(t *testing.T, p probeWebhook, ns string) {
	eventually(t, 30*time.Second, "the probe webhook knows namespace "+ns, func() error {
		r := kubectl(fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"probe-marker","labels":{"gpu-admission.io/class":"training"}},"spec":{"containers":[{"name":"c","image":"cuda","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}`),
			"-n", ns, "create", "--dry-run=server", "-o", "json", "-f", "-")
		if r.Err != nil {
			return fmt.Errorf("%s", r.combined())
		}
		if !strings.Contains(r.Stdout, "train-h100") {
			return fmt.Errorf("not mutated by the probe yet")
		}
		return nil
	})
}

// registerPodProbe registers the install's pod webhooks (mutate and validate, as rendered) once
// more under new names, for the namespaces labelled gpua-probe=<probe>, calling base.
func registerPodProbe(t *testing.T, probe, base string) {
	t.Helper()
	out, err := script("webhook_url.sh", filepath.Join(cluster.Dir, "install", "webhooks.yaml"), base).Output()
	if err != nil {
		t.Fatalf("webhook_url.sh: %v", err)
	}
	// kubectl prints one JSON object per document.
	dec := json.NewDecoder(strings.NewReader(mustKubectl(t, string(out), "create", "--dry-run=client", "-o", "json", "-f", "-")))
	var items []any
	for dec.More() {
		var doc map[string]any
		if err := dec.Decode(&doc); err != nil {
			t.Fatal(err)
		}
		if list, ok := doc["items"].([]any); ok {
			items = append(items, list...)
		} else {
			items = append(items, doc)
		}
	}
	for _, item := range items {
		cfg := mapOf(item)
		kind := str(cfg["kind"])
		if kind != "MutatingWebhookConfiguration" && kind != "ValidatingWebhookConfiguration" {
			continue
		}
		var pods []any
		for _, w := range cfg["webhooks"].([]any) {
			hook := mapOf(w)
			if !strings.Contains(jsonText(hook["rules"]), `"pods"`) {
				continue
			}
			hook["name"] = strings.Replace(str(hook["name"]), "gpu-admission.io", probe+".probe.gpua", 1)
			hook["namespaceSelector"] = map[string]any{"matchLabels": map[string]any{"gpua-probe": probe}}
			pods = append(pods, hook)
		}
		if len(pods) == 0 {
			continue
		}
		name := str(path(cfg, "metadata", "name")) + "-" + probe + "-probe"
		cfg["metadata"] = map[string]any{"name": name}
		cfg["webhooks"] = pods
		text, _ := json.Marshal(cfg)
		mustKubectl(t, string(text), "apply", "-f", "-")
		resource := strings.ToLower(kind)
		t.Cleanup(func() { kubectl("", "delete", resource, name, "--ignore-not-found") })
	}
}

// spec.dra for the example policy: NVIDIA's DRA driver's classes, counted as device-plugin GPUs.
const draSection = `  dra:
    unresolvedClaims: deny
    deviceClasses:
    - {name: gpu.nvidia.com, countsAs: nvidia.com/gpu}
    - {name: mig.nvidia.com, countsAs: 'nvidia.com/mig-{profile}'}
`

// The DeviceClasses of NVIDIA's DRA driver chart and a slice of four GPUs on h100-0, as the
// driver would publish it (attributes type and productName).
const draObjects = `apiVersion: v1
kind: List
items:
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: gpu.nvidia.com}
  spec:
    selectors:
    - cel: {expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'gpu'"}
- apiVersion: resource.k8s.io/v1
  kind: DeviceClass
  metadata: {name: mig.nvidia.com}
  spec:
    selectors:
    - cel: {expression: "device.driver == 'gpu.nvidia.com' && device.attributes['gpu.nvidia.com'].type == 'mig'"}
- apiVersion: resource.k8s.io/v1
  kind: ResourceSlice
  metadata: {name: h100-0-gpu.nvidia.com}
  spec:
    driver: gpu.nvidia.com
    nodeName: h100-0
    pool: {name: h100-0, generation: 1, resourceSliceCount: 1}
    devices:
    - {name: gpu-0, attributes: {type: {string: gpu}, productName: {string: NVIDIA H100 80GB HBM3}}}
    - {name: gpu-1, attributes: {type: {string: gpu}, productName: {string: NVIDIA H100 80GB HBM3}}}
    - {name: gpu-2, attributes: {type: {string: gpu}, productName: {string: NVIDIA H100 80GB HBM3}}}
    - {name: gpu-3, attributes: {type: {string: gpu}, productName: {string: NVIDIA H100 80GB HBM3}}}
`

// A slice of two GPUs on NODE, as NVIDIA's driver publishes it.
const draSliceTemplate = `apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata: {name: NODE-gpu.nvidia.com}
spec:
  driver: gpu.nvidia.com
  nodeName: NODE
  pool: {name: NODE, generation: 1, resourceSliceCount: 1}
  devices:
  - {name: gpu-0, attributes: {type: {string: gpu}}}
  - {name: gpu-1, attributes: {type: {string: gpu}}}
`

const singleGPUTemplate = `apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata: {name: single-gpu}
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly: {deviceClassName: gpu.nvidia.com}
`
