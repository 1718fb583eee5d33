package live

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// deploy/base and every overlay, rendered with kubectl's kustomize and sent to the real apiserver
// as a server-side dry run: the schemas, defaulting and validation of the apiserver itself.
// Overlays that need CRDs the cluster lacks say which kinds and are checked without them.
func testManifestsTheApiserverAccepts(t *testing.T) {
	installCRDs(t)
	overlays := map[string]string{
		"base":                               filepath.Join(cluster.Root, "deploy", "base"),
		"self-signed":                        filepath.Join(cluster.Dir, "install", "overlay"),
		"self-signed + webhooks":             filepath.Join(cluster.Dir, "install", "webhooks-step"),
		"every opt-in, in another namespace": allOptIns(t, "install"),
		"every opt-in, in another namespace + webhooks": allOptIns(t, "webhooks"),
	}
	for _, name := range []string{"cert-manager", "monitoring"} {
		overlays[name] = filepath.Join(cluster.Root, "deploy", "overlays", name)
		overlays[name+" + webhooks"] = filepath.Join(cluster.Root, "deploy", "webhooks", name)
	}
	// The other namespace exists, as step one would have created it before the rest.
	mustKubectl(t, `{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"gpua-elsewhere"}}`, "apply", "-f", "-")
	t.Cleanup(func() { kubectl("", "delete", "namespace", "gpua-elsewhere", "--wait=false") })
	for name, dir := range overlays {
		t.Run(name, func(t *testing.T) {
			r := kubectl("", "kustomize", dir)
			if r.Err != nil {
				t.Fatalf("kustomize %s: %s", dir, r.combined())
			}
			docs, missing := withoutUnknownKinds(t, r.Stdout)
			if len(missing) > 0 {
				t.Logf("%s: not checked, their CRDs are not installed here: %s", name, strings.Join(missing, ", "))
			}
			out := kubectl(docs, "apply", "--dry-run=server", "-f", "-")
			if out.Err != nil {
				t.Errorf("%s: the apiserver refuses the rendered manifests:\n%s", name, out.combined())
			}
		})
	}
}

// allOptIns writes a platform team's two steps with every component of deploy/ (monitoring, the
// NetworkPolicy, host networking, the example policy, the global default priority class; step
// two with the match conditions and template mutation), in the namespace gpua-elsewhere, port
// 9443, and returns the directory of the step asked for ("install" or "webhooks").
func allOptIns(t *testing.T, step string) string {
	root := filepath.Join(cluster.Dir, "install", "all-opt-ins")
	kit, _ := filepath.Rel(filepath.Join(root, "install"), cluster.Root)
	files := map[string]string{
		"install": "namespace: gpua-elsewhere\nresources: [KIT/deploy/overlays/monitoring]\n" +
			"components: [KIT/deploy/components/network-policy, KIT/deploy/components/host-network, " +
			"KIT/deploy/components/example-policy, KIT/deploy/components/default-priority]\n" +
			"configMapGenerator: [{name: gpu-admission-settings, behavior: merge, literals: [port=9443]}]\n" +
			"transformers: [KIT/deploy/references]\n",
		"webhooks": "resources: [../install]\ncomponents: [KIT/deploy/components/webhooks/cert-manager, " +
			"KIT/deploy/components/match-conditions, KIT/deploy/components/template-mutation]\n",
	}
	for dir, text := range files {
		if err := os.MkdirAll(filepath.Join(root, dir), 0o755); err != nil {
			t.Fatal(err)
		}
		text = strings.ReplaceAll(text, "KIT", kit)
		if err := os.WriteFile(filepath.Join(root, dir, "kustomization.yaml"), []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return filepath.Join(root, step)
}

// withoutUnknownKinds drops the documents whose kind the apiserver does not serve.
func withoutUnknownKinds(t *testing.T, rendered string) (string, []string) {
	served := map[string]bool{}
	for _, line := range strings.Split(mustKubectl(t, "", "api-resources", "--no-headers", "-o", "wide"), "\n") {
		f := strings.Fields(line)
		for i, field := range f {
			if i > 0 && (field == "true" || field == "false") && i+1 < len(f) {
				served[f[i+1]] = true
				break
			}
		}
	}
	var keep, missing []string
	for _, doc := range strings.Split(rendered, "\n---\n") {
		kind := ""
		for _, line := range strings.Split(doc, "\n") {
			if strings.HasPrefix(line, "kind: ") {
				kind = strings.TrimPrefix(line, "kind: ")
			}
		}
		if kind != "" && !served[kind] {
			missing = append(missing, kind)
			continue
		}
		keep = append(keep, doc)
	}
	return strings.Join(keep, "\n---\n"), missing
}

// The CRDs the overlays use, from pinned module versions on the Go module proxy (checked against
// the checksum database by go mod download): cert-manager's Certificate and Issuer,
// prometheus-operator's ServiceMonitor and PrometheusRule.
var crdSources = []struct{ module, dir string }{
	{"github.com/cert-manager/cert-manager@v1.21.2", "deploy/crds"},
	{"github.com/prometheus-operator/prometheus-operator@v0.85.0", "example/prometheus-operator-crd"},
}

func installCRDs(t *testing.T) {
	for _, src := range crdSources {
		out, err := exec.Command("go", "mod", "download", "-json", src.module).Output()
		if err != nil {
			t.Logf("CRDs of %s not available (%v): overlays that need them are checked without those kinds", src.module, err)
			continue
		}
		var mod struct{ Dir string }
		if err := json.Unmarshal(out, &mod); err != nil || mod.Dir == "" {
			t.Fatalf("go mod download %s: %s", src.module, out)
		}
		files, _ := filepath.Glob(filepath.Join(mod.Dir, src.dir, "*.yaml"))
		for _, f := range files {
			if strings.HasSuffix(f, "kustomization.yaml") {
				continue
			}
			// Server-side: several of these CRDs are larger than client-side apply's annotation limit.
			mustKubectl(t, "", "apply", "--server-side", "--force-conflicts", "-f", f)
		}
	}
	eventually(t, 60*time.Second, "CRDs established", func() error {
		return kubectl("", "wait", "--for=condition=Established", "crd", "--all", "--timeout=5s").Err
	})
}
