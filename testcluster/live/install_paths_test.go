package live

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"
)

// The first install as docs/install.md documents it (apply step one && wait for a Ready replica
// && apply step two), run as written against the real apiserver the two ways it goes wrong, in a
// namespace of its own (the kit rendered with `namespace:` and a name prefix, so nothing of the
// running install is touched): without cert-manager's CRDs the first command fails; with an image
// that cannot be pulled no replica becomes Ready and the wait times out. Either way no webhook
// is registered and pods anywhere are created as before. Then the observe policy of a first
// install, served by a second local process and called by the apiserver, changes no pod.
func testFirstInstallPaths(t *testing.T) {
	dir := filepath.Join(cluster.Dir, "install", "first-install")
	namespace(t, "install-bystander", map[string]string{"team": "vision"})
	t.Run("WithoutCertManagerCRDs", func(t *testing.T) {
		step1, step2 := renderUserOverlay(t, filepath.Join(dir, "no-crds"), "gai-no-crds", "overlays/cert-manager", "")
		r := documentedInstall(step1, step2, "gai-no-crds", "20s")
		if r.Err == nil {
			t.Fatalf("the documented install succeeded without cert-manager's CRDs:\n%s", r.combined())
		}
		if !strings.Contains(r.Stderr, "Certificate") {
			t.Errorf("the failure does not name the missing kind:\n%s", r.Stderr)
		}
		if strings.Contains(r.combined(), "deployment \"gpu-admission\"") {
			t.Errorf("the chain went on after step one failed:\n%s", r.combined())
		}
		noScratchWebhooks(t)
		bystanderPodsAreCreated(t)
	})
	t.Run("ImageThatCannotBePulled", func(t *testing.T) {
		step1, step2 := renderUserOverlay(t, filepath.Join(dir, "no-image"), "gai-no-image", "overlays/self-signed",
			"images:\n- {name: registry.example.com/gpu-admission, newName: registry.invalid/gpu-admission, newTag: missing}\n")
		r := documentedInstall(step1, step2, "gai-no-image", "15s")
		if r.Err == nil {
			t.Fatalf("the documented install finished although no replica can be Ready:\n%s", r.combined())
		}
		if !strings.Contains(r.combined(), "timed out") {
			t.Errorf("the wait did not time out:\n%s", r.combined())
		}
		image := mustKubectl(t, "", "-n", "gai-no-image", "get", "deployment", "gpu-admission",
			"-o", "jsonpath={.spec.template.spec.containers[0].image}")
		if image != "registry.invalid/gpu-admission:missing" {
			t.Errorf("the scratch install runs image %q, not the unpullable one", image)
		}
		noScratchWebhooks(t)
		bystanderPodsAreCreated(t)
	})
	t.Run("ObserveModeChangesNoPod", func(t *testing.T) { observeModeChangesNoPod(t, dir) })
}

// The cluster-scoped objects of a scratch install get this prefix (its namespace keeps the rest
// apart), so the running install's ClusterRole, binding and webhooks are never touched.
const scratchPrefix = "scratch-"

// renderUserOverlay writes the two kustomizations docs/install.md ("Your overlay") tells a
// platform team to keep, over deploy/OVER with `namespace: NS` (plus `extra` lines), renders
// them, prefixes the cluster-scoped names, and returns the files of step one and step two.
func renderUserOverlay(t *testing.T, dir, ns, over, extra string) (string, string) {
	t.Helper()
	base := filepath.Join(cluster.Root, "deploy", over)
	if strings.HasSuffix(over, "self-signed") {
		// Its certificates live beside it (git-ignored): a copy in the scratch directory, as
		// testcluster/lib.sh's render_self_signed makes.
		base = filepath.Join(dir, "self-signed")
		mkdir(t, base)
		if err := exec.Command("cp", "-r", filepath.Join(cluster.Dir, "install", "overlay", "certs"), base).Run(); err != nil {
			t.Fatalf("copy the dev certificates: %v", err)
		}
		src, err := os.ReadFile(filepath.Join(cluster.Root, "deploy", over, "kustomization.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		write(t, filepath.Join(base, "kustomization.yaml"), strings.ReplaceAll(string(src), "../../", relTo(base, "deploy")+"/"))
	}
	install, hooks := filepath.Join(dir, "install"), filepath.Join(dir, "webhooks")
	mkdir(t, install)
	mkdir(t, hooks)
	rel, _ := filepath.Rel(install, base)
	write(t, filepath.Join(install, "kustomization.yaml"), fmt.Sprintf(
		"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nnamespace: %s\nresources:\n- %s\n%stransformers:\n- %s\n",
		ns, rel, extra, relTo(install, "deploy/references")))
	component := "components/webhooks/self-signed"
	if strings.HasSuffix(over, "cert-manager") {
		component = "components/webhooks/cert-manager"
	}
	write(t, filepath.Join(hooks, "kustomization.yaml"), fmt.Sprintf(
		"apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\nresources:\n- ../install\ncomponents:\n- %s\n",
		relTo(hooks, "deploy/"+component)))
	t.Cleanup(func() { kubectl("", "delete", "namespace", ns, "--ignore-not-found", "--wait=false") })
	t.Cleanup(deleteScratchClusterObjects)
	return prefixedRender(t, install, filepath.Join(dir, "step1.yaml")), prefixedRender(t, hooks, filepath.Join(dir, "step2.yaml"))
}

func mkdir(t *testing.T, d string) {
	t.Helper()
	if err := os.MkdirAll(d, 0o755); err != nil {
		t.Fatal(err)
	}
}

// The kustomization rendered, cluster-scoped objects renamed with scratchPrefix, into `out`.
func prefixedRender(t *testing.T, kustomization, out string) string {
	t.Helper()
	docs := strings.Split(mustKubectl(t, "", "kustomize", kustomization), "\n---\n")
	for i, doc := range docs {
		docs[i] = prefixClusterScoped(doc)
	}
	write(t, out, strings.Join(docs, "\n---\n"))
	return out
}

var clusterScoped = map[string]bool{"ClusterRole": true, "ClusterRoleBinding": true,
	"MutatingWebhookConfiguration": true, "ValidatingWebhookConfiguration": true,
	"ValidatingAdmissionPolicy": true, "ValidatingAdmissionPolicyBinding": true, "PriorityClass": true}

// prefixClusterScoped renames one rendered document (kustomize's output: top-level keys at column
// 0, their fields indented by two) if it is cluster-scoped, with its references to others.
func prefixClusterScoped(doc string) string {
	lines := strings.Split(doc, "\n")
	kind := ""
	for _, l := range lines {
		if strings.HasPrefix(l, "kind: ") {
			kind = strings.TrimPrefix(l, "kind: ")
		}
	}
	if !clusterScoped[kind] {
		return doc
	}
	section := ""
	for i, l := range lines {
		if l != "" && l[0] != ' ' && l[0] != '-' {
			section = strings.TrimSuffix(strings.SplitN(l, " ", 2)[0], ":")
		}
		rename := (section == "metadata" || section == "roleRef") && strings.HasPrefix(l, "  name: ")
		rename = rename || (section == "spec" && strings.HasPrefix(l, "  policyName: "))
		if rename {
			key, value, _ := strings.Cut(l, ": ")
			lines[i] = key + ": " + scratchPrefix + value
		}
	}
	return strings.Join(lines, "\n")
}

func relTo(from, repoPath string) string {
	r, _ := filepath.Rel(from, filepath.Join(cluster.Root, repoPath))
	return r
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// The install one-liner of docs/install.md as written, for the rendered steps and a short wait.
func documentedInstall(step1, step2, ns, timeout string) result {
	k := filepath.Join(cluster.Bin, "kubectl")
	line := fmt.Sprintf("%s apply -f %s && %s -n %s rollout status deployment/gpu-admission --timeout=%s && %s apply -f %s",
		k, step1, k, ns, timeout, k, step2)
	return run("", "bash", "-c", line)
}

func noScratchWebhooks(t *testing.T) {
	t.Helper()
	out := mustKubectl(t, "", "get", "mutatingwebhookconfigurations,validatingwebhookconfigurations,validatingadmissionpolicies", "-o", "name")
	for _, name := range strings.Fields(out) {
		if strings.Contains(name, "/"+scratchPrefix) {
			t.Errorf("the failed install registered %s", name)
		}
	}
}

// A plain pod and a GPU pod in another namespace are created for real, as before the install.
func bystanderPodsAreCreated(t *testing.T) {
	t.Helper()
	stamp := time.Now().UnixNano()
	for _, pod := range []string{
		fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"web-%d"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, stamp),
		fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":"gpu-%d","labels":{"gpu-admission.io/class":"interactive"}},"spec":{"containers":[{"name":"c","image":"cuda","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}`, stamp),
	} {
		if r := kubectl(pod, "-n", "install-bystander", "create", "-f", "-"); r.Err != nil {
			t.Errorf("pod creation failed after the failed install: %s", r.combined())
		}
	}
}

func deleteScratchClusterObjects() {
	for _, kind := range []string{"clusterrole", "clusterrolebinding", "mutatingwebhookconfiguration",
		"validatingwebhookconfiguration", "validatingadmissionpolicy", "validatingadmissionpolicybinding", "priorityclass"} {
		for _, obj := range strings.Fields(kubectl("", "get", kind, "-o", "name").Stdout) {
			if strings.Contains(obj, "/"+scratchPrefix) {
				kubectl("", "delete", obj, "--ignore-not-found")
			}
		}
	}
}

// The first-install policy (deploy/base/policy: rollout mode observe) served by a second local
// process, registered under probe names for one namespace only: the apiserver calls it for a GPU
// pod that the example policy would place and rewrite, and the pod comes back as sent; the
// decision log records what the policy would have done.
func observeModeChangesNoPod(t *testing.T, dir string) {
	mkdir(t, dir)
	// Without the apiserver's usage: the probe's namespace carries the opt-out label that keeps
	// the running install out, and the observe policy would read it as exempt too; unread, the
	// namespace is judged in the policy's rollout mode (observe, everywhere).
	probe := startProbeWebhook(t, filepath.Join(cluster.Root, "deploy", "base", "policy"),
		filepath.Join(dir, "observe-webhook.log"), false)
	base := probe.base
	certs := filepath.Join(cluster.Dir, "install", "overlay", "certs")
	ca, err := os.ReadFile(filepath.Join(certs, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	caBundle := base64.StdEncoding.EncodeToString(ca)
	hook := func(name, path string) map[string]any {
		return map[string]any{
			"name": name, "admissionReviewVersions": []string{"v1"}, "sideEffects": "None",
			"failurePolicy": "Fail", "timeoutSeconds": 5,
			"clientConfig":      map[string]any{"url": base + path, "caBundle": caBundle},
			"rules":             []map[string]any{{"apiGroups": []string{""}, "apiVersions": []string{"v1"}, "operations": []string{"CREATE"}, "resources": []string{"pods"}}},
			"namespaceSelector": map[string]any{"matchLabels": map[string]string{"gpua-probe": "observe"}},
		}
	}
	mwc, _ := json.Marshal(map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "MutatingWebhookConfiguration",
		"metadata": map[string]any{"name": "gpua-probe-observe"}, "webhooks": []any{hook("mutate.observe.gpua", "/mutate")}})
	vwc, _ := json.Marshal(map[string]any{"apiVersion": "admissionregistration.k8s.io/v1", "kind": "ValidatingWebhookConfiguration",
		"metadata": map[string]any{"name": "gpua-probe-observe"}, "webhooks": []any{hook("validate.observe.gpua", "/validate")}})
	mustKubectl(t, string(mwc), "apply", "-f", "-")
	mustKubectl(t, string(vwc), "apply", "-f", "-")
	t.Cleanup(func() {
		kubectl("", "delete", "mutatingwebhookconfiguration,validatingwebhookconfiguration", "gpua-probe-observe", "--ignore-not-found")
	})
	// The running install skips the namespace (opt-out label): only the observe webhook judges.
	namespace(t, "observe-probe", map[string]string{"gpua-probe": "observe", "gpu-admission.io/webhook": "disabled"})
	// A training pod the example policy would place on its H100 pool, and one no class takes.
	sent := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"trainer-0","labels":{"training.kubeflow.org/job-name":"mnist"}},"spec":{"containers":[{"name":"pytorch","image":"pytorch","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}`
	var got map[string]any
	eventually(t, 30*time.Second, "the apiserver calls the observe webhook", func() error {
		r := kubectl(sent, "-n", "observe-probe", "create", "--dry-run=server", "-o", "json", "-f", "-")
		if r.Err != nil {
			return fmt.Errorf("%s", r.combined())
		}
		logged, _ := os.ReadFile(probe.log)
		if !strings.Contains(string(logged), "trainer-0") {
			return fmt.Errorf("the observe webhook has not logged the pod yet")
		}
		return json.Unmarshal([]byte(r.Stdout), &got)
	})
	// The oracle: the same pod where no webhook judges, as the apiserver alone admits it (its
	// own defaulting: the global default priority class, the not-ready tolerations...).
	namespace(t, "observe-control", map[string]string{"gpu-admission.io/webhook": "disabled"})
	var alone map[string]any
	if err := json.Unmarshal([]byte(mustKubectl(t, sent, "-n", "observe-control", "create", "--dry-run=server", "-o", "json", "-f", "-")), &alone); err != nil {
		t.Fatal(err)
	}
	// The ServiceAccount token volume has a random name per pod.
	token := regexp.MustCompile(`kube-api-access-[a-z0-9]+`)
	same := func(what string, a, b any) {
		x, _ := json.Marshal(a)
		y, _ := json.Marshal(b)
		x, y = token.ReplaceAll(x, []byte("kube-api-access")), token.ReplaceAll(y, []byte("kube-api-access"))
		if string(x) != string(y) {
			t.Errorf("observe mode changed %s:\n  with the webhook: %s\n  without:          %s", what, x, y)
		}
	}
	same("spec", got["spec"], alone["spec"])
	meta, aloneMeta := got["metadata"].(map[string]any), alone["metadata"].(map[string]any)
	same("metadata.annotations", meta["annotations"], aloneMeta["annotations"])
	same("metadata.labels", meta["labels"], aloneMeta["labels"])
	probe.mustHaveLogged(t, "trainer-0", `"mode":"observe"`)
}
