package live

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// The install order of docs/install.md, replayed on the real apiserver with the files up.sh
// rendered from the kit (render_self_signed): step one registers no webhook, so while no replica
// is ready pod creation anywhere works and is left alone; step two comes only after /readyz, and
// from then on the apiserver calls the webhook. The cluster ends as up.sh left it.
func testInstallOrder(t *testing.T) {
	inst := filepath.Join(cluster.Dir, "install")
	namespace(t, "install-order", map[string]string{"env": "dev", "team": "vision"})
	hooks := "mutatingwebhookconfiguration/gpu-admission validatingwebhookconfiguration/gpu-admission"

	// Back to a cluster without gpu-admission's webhooks and without a ready replica.
	mustKubectl(t, "", append([]string{"delete", "--ignore-not-found"}, strings.Fields(hooks)...)...)
	scriptOK(t, "webhook.sh", "stop")
	restored := false
	t.Cleanup(func() {
		if !restored { // a failed check must not leave the later suites without a webhook
			script("webhook.sh", "start").Run()
			pointWebhooksAt(t, "https://127.0.0.1:"+cluster.WebhookPort)
		}
	})

	// Step one.
	mustKubectl(t, "", "apply", "-f", filepath.Join(inst, "objects.yaml"))
	if out := mustKubectl(t, "", "get", "mutatingwebhookconfigurations,validatingwebhookconfigurations", "-o", "name"); strings.Contains(out, "gpu-admission") {
		t.Fatalf("step one left webhook configurations registered while no replica is ready:\n%s", out)
	}
	if got := mustKubectl(t, "", "-n", "gpu-admission", "get", "deployment", "gpu-admission", "-o", "name"); strings.TrimSpace(got) == "" {
		t.Fatal("step one did not create the Deployment")
	}
	// Nothing is ready: the documented wait (rollout status; here /readyz of the local process)
	// does not pass, so step two must not run yet.
	if err := exec.Command("curl", "-fsS", "--max-time", "3", "-k", "https://127.0.0.1:"+cluster.WebhookPort+"/readyz").Run(); err == nil {
		t.Fatal("/readyz answered while the webhook is stopped")
	}
	// Pod creation is untouched by the install itself: a GPU pod and a plain pod are created as
	// sent (no webhook mutates or refuses them).
	for _, pod := range []string{markerPod, `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`} {
		r := kubectl(pod, "-n", "install-order", "create", "--dry-run=server", "-o", "jsonpath={.metadata.annotations}", "-f", "-")
		if r.Err != nil {
			t.Errorf("pod creation failed between step one and step two: %s", r.combined())
		} else if strings.Contains(r.Stdout, "gpu-admission.io/") {
			t.Errorf("a webhook judged a pod before step two: %s", r.Stdout)
		}
	}

	// A replica is ready (webhook.sh start waits for /readyz), then step two.
	scriptOK(t, "webhook.sh", "start")
	mustKubectl(t, "", "apply", "-f", filepath.Join(inst, "step2.yaml"))
	pointWebhooksAt(t, "https://127.0.0.1:"+cluster.WebhookPort)
	restored = true
	r := kubectl(markerPod, "-n", "install-order", "create", "--dry-run=server", "-o", "jsonpath={.metadata.annotations}", "-f", "-")
	if !strings.Contains(r.Stdout, "gpu-admission.io/class") {
		t.Errorf("after step two the apiserver does not call the webhook: %s", r.combined())
	}
}

// The opt-out label gpu-admission.io/webhook=disabled is guarded by the kit's
// ValidatingAdmissionPolicy (deploy/components/webhooks/base/opt-out-guard.yaml), evaluated by the
// real apiserver: a user who may create and edit namespaces cannot opt one out until granted the
// ClusterRole gpu-admission:opt-out; removing the label and other labels stay open.
func testOptOutGuard(t *testing.T) {
	role := `apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: live-namespace-editor}
rules:
- {apiGroups: [""], resources: [namespaces], verbs: [get, list, create, update, patch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: live-namespace-editor}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: live-namespace-editor}
subjects: [{apiGroup: rbac.authorization.k8s.io, kind: User, name: alice}]
`
	mustKubectl(t, role, "apply", "-f", "-")
	t.Cleanup(func() {
		kubectl(role, "delete", "-f", "-")
		kubectl("", "delete", "clusterrolebinding", "live-opt-out", "--ignore-not-found")
		kubectl("", "delete", "namespace", "optout-a", "optout-b", "--ignore-not-found", "--wait=false")
	})
	eventually(t, 30*time.Second, "the guard's policy is in force", func() error {
		r := kubectl(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"optout-probe","labels":{"gpu-admission.io/webhook":"disabled"}}}`,
			"--as=alice", "create", "--dry-run=server", "-f", "-")
		if r.Err == nil {
			return fmt.Errorf("alice could create an opted-out namespace")
		}
		return nil
	})
	asAlice := func(stdin string, args ...string) result {
		return kubectl(stdin, append([]string{"--as=alice"}, args...)...)
	}
	denied := func(what string, r result) {
		t.Helper()
		if r.Err == nil {
			t.Errorf("%s: allowed, want refused by the opt-out guard", what)
		} else if !strings.Contains(r.Stderr, "gpu-admission.io/webhook") || !strings.Contains(r.Stderr, "gpu-admission:opt-out") {
			t.Errorf("%s: refused without saying which label and which grant: %s", what, r.Stderr)
		}
	}
	allowed := func(what string, r result) {
		t.Helper()
		if r.Err != nil {
			t.Errorf("%s: %s", what, r.combined())
		}
	}
	denied("create a namespace with the label", asAlice(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"optout-a","labels":{"gpu-admission.io/webhook":"disabled"}}}`, "create", "-f", "-"))
	allowed("create a namespace without it", asAlice(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"optout-a"}}`, "create", "-f", "-"))
	denied("label it", asAlice("", "label", "namespace", "optout-a", "gpu-admission.io/webhook=disabled"))
	allowed("set another label", asAlice("", "label", "namespace", "optout-a", "team=vision"))
	// Set by someone allowed (cluster-admin), the label stays; alice may edit the namespace's
	// other labels and may take the label off (opting back in only makes admission stricter).
	mustKubectl(t, "", "label", "namespace", "optout-a", "gpu-admission.io/webhook=disabled")
	allowed("change another label of an opted-out namespace", asAlice("", "label", "--overwrite", "namespace", "optout-a", "team=nlp"))
	denied("change the label's value", asAlice("", "label", "--overwrite", "namespace", "optout-a", "gpu-admission.io/webhook=off"))
	allowed("remove the label", asAlice("", "label", "namespace", "optout-a", "gpu-admission.io/webhook-"))
	// Granted the kit's ClusterRole, alice may opt out.
	mustKubectl(t, "", "create", "clusterrolebinding", "live-opt-out", "--clusterrole=gpu-admission:opt-out", "--user=alice")
	eventually(t, 30*time.Second, "alice may opt out once granted gpu-admission:opt-out", func() error {
		return asAlice(`{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"optout-b","labels":{"gpu-admission.io/webhook":"disabled"}}}`, "create", "-f", "-").Err
	})
}

// deploy/components/match-conditions on the real apiserver: its conditions are compiled and
// evaluated by the apiserver, and each pod goes to exactly one of the two pod webhooks. The
// rendered pair is registered under another name, pointing at a port nothing listens on and
// selecting one namespace only: a pod the fail-closed webhook takes is refused ("failed calling
// webhook"), a pod the fail-open one takes is admitted.
func testMatchConditions(t *testing.T) {
	dir := filepath.Join(cluster.Dir, "install", "match-conditions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	rel := func(p string) string {
		r, _ := filepath.Rel(dir, filepath.Join(cluster.Root, p))
		return r
	}
	k := fmt.Sprintf("resources: [../overlay]\ncomponents: [%s, %s]\n",
		rel("deploy/components/webhooks/self-signed"), rel("deploy/components/match-conditions"))
	if err := os.WriteFile(filepath.Join(dir, "kustomization.yaml"), []byte(k), 0o644); err != nil {
		t.Fatal(err)
	}
	rendered := mustKubectl(t, "", "kustomize", dir)
	var probe string
	for _, doc := range strings.Split(rendered, "\n---\n") {
		if strings.Contains(doc, "\nkind: ValidatingWebhookConfiguration\n") {
			probe = doc
		}
	}
	if !strings.Contains(probe, "not-gpu-relevant") {
		t.Fatalf("no ValidatingWebhookConfiguration with the component's conditions in the render:\n%s", rendered)
	}
	// The pod webhooks only, renamed, at a closed port, for the namespace gpua-probe=mc.
	obj := mustKubectl(t, probe, "create", "--dry-run=client", "-o", "json", "-f", "-")
	script := `import json, sys
o = json.load(sys.stdin)
o["metadata"] = {"name": "gpua-probe-match-conditions"}
hooks = [w for w in o["webhooks"] if w["name"] in ("validate-pods.gpu-admission.io", "validate-other-pods.gpu-admission.io")]
assert len(hooks) == 2, [w["name"] for w in o["webhooks"]]
for w in hooks:
    w["name"] = w["name"].replace("gpu-admission.io", "probe.gpua")
    w["clientConfig"] = {"url": "https://127.0.0.1:1/validate", "caBundle": w["clientConfig"]["caBundle"]}
    w["namespaceSelector"] = {"matchLabels": {"gpua-probe": "mc"}}
o["webhooks"] = hooks
print(json.dumps(o))`
	cmd := exec.Command("python3", "-c", script)
	cmd.Stdin = strings.NewReader(obj)
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("rewrite the probe: %v", err)
	}
	mustKubectl(t, string(out), "apply", "-f", "-")
	t.Cleanup(func() {
		kubectl("", "delete", "validatingwebhookconfiguration", "gpua-probe-match-conditions", "--ignore-not-found")
	})
	// The runtime class the last case names (the RuntimeClass admission plugin refuses unknown ones).
	mustKubectl(t, `{"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass","metadata":{"name":"nvidia"},"handler":"nvidia"}`, "apply", "-f", "-")
	t.Cleanup(func() { kubectl("", "delete", "runtimeclass", "nvidia", "--ignore-not-found") })
	// The real webhooks skip this namespace (opt-out label), so only the probe decides.
	namespace(t, "match-conditions", map[string]string{"gpua-probe": "mc", "gpu-admission.io/webhook": "disabled"})

	container := func(extra string) string {
		return `{"name":"c","image":"img"` + extra + `}`
	}
	pod := func(meta, spec string) string {
		return `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"` + meta + `},"spec":{` + spec + `}}`
	}
	cases := []struct {
		name      string
		pod       string
		gpuFacing bool
	}{
		{"plain web server", pod("", `"containers":[`+container("")+`]`), false},
		{"CPU pod with a zone affinity and a toleration of its own", pod("", `"containers":[`+container("")+`],"tolerations":[{"key":"dedicated","operator":"Exists"}],"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"topology.kubernetes.io/zone","operator":"In","values":["a"]}]}]}}}`), false},
		{"GPU limit", pod("", `"containers":[`+container(`,"resources":{"limits":{"nvidia.com/gpu":"1"}}`)+`]`), true},
		{"MIG limit in an init container", pod("", `"initContainers":[`+strings.Replace(container(`,"resources":{"limits":{"nvidia.com/mig-1g.10gb":"1"}}`), `"c"`, `"init"`, 1)+`],"containers":[`+container("")+`]`), true},
		{"class label, no GPU", pod(`,"labels":{"gpu-admission.io/class":"interactive"}`, `"containers":[`+container("")+`]`), true},
		{"GPU node selector", pod("", `"containers":[`+container("")+`],"nodeSelector":{"nvidia.com/gpu.product":"NVIDIA-H100-80GB-HBM3"}`), true},
		{"GPU taint toleration", pod("", `"containers":[`+container("")+`],"tolerations":[{"key":"nvidia.com/gpu","operator":"Exists","effect":"NoSchedule"}]`), true},
		{"GKE accelerator affinity (preferred)", pod("", `"containers":[`+container("")+`],"affinity":{"nodeAffinity":{"preferredDuringSchedulingIgnoredDuringExecution":[{"weight":1,"preference":{"matchExpressions":[{"key":"cloud.google.com/gke-accelerator","operator":"Exists"}]}}]}}`), true},
		{"NVIDIA_VISIBLE_DEVICES", pod("", `"containers":[`+container(`,"env":[{"name":"NVIDIA_VISIBLE_DEVICES","value":"all"}]`)+`]`), true},
		{"DRA claim", pod("", `"containers":[`+container(`,"resources":{"claims":[{"name":"gpu"}]}`)+`],"resourceClaims":[{"name":"gpu","resourceClaimName":"some-gpu"}]`), true},
		{"nvidia runtime class", pod("", `"containers":[`+container("")+`],"runtimeClassName":"nvidia"`), true},
	}
	for _, c := range cases {
		r := kubectl(c.pod, "-n", "match-conditions", "create", "--dry-run=server", "-o", "name", "-f", "-")
		switch {
		case c.gpuFacing && (r.Err == nil || !strings.Contains(r.Stderr, `failed calling webhook "validate-pods.probe.gpua"`)):
			t.Errorf("%s: want refused by the fail-closed webhook (it cannot be reached), got: %s", c.name, r.combined())
		case !c.gpuFacing && r.Err != nil:
			t.Errorf("%s: want admitted (the fail-open webhook took it), got: %s", c.name, r.combined())
		}
	}
}
