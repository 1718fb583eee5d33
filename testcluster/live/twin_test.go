package live

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"sort"
	"strings"
	"testing"
)

// The pods the twin check creates: the repository's policy-tests/pods always, the shared corpus of
// real pods (../shared/corpus/pods) where it exists.
func twinPodFiles(t *testing.T) []string {
	var files []string
	for _, dir := range []string{
		filepath.Join(cluster.Root, "policy-tests", "pods"),
		filepath.Join(cluster.Root, "..", "shared", "corpus", "pods"),
	} {
		for _, ext := range []string{"*.json", "*.yaml"} {
			m, _ := filepath.Glob(filepath.Join(dir, ext))
			files = append(files, m...)
		}
	}
	sort.Strings(files)
	return files
}

// asPod reads a pod file as JSON through kubectl (YAML or JSON), or nil when it holds another kind.
func asPod(t *testing.T, file string) map[string]any {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !regexp.MustCompile(`(?m)^kind: Pod\s*$|"kind":\s*"Pod"`).Match(data) {
		return nil // a workload (PyTorchJob, Deployment...): the controllers check covers those
	}
	out := mustKubectl(t, "", "create", "--dry-run=client", "-o", "json", "--validate=false", "-f", file)
	var obj map[string]any
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	if obj["kind"] != "Pod" {
		return nil
	}
	return obj
}

var placeholder = regexp.MustCompile(`\$\{([A-Za-z_]+)\}`)

// stripDump removes what a cluster dump or an example carries that a create must not: the
// server-set identity and status, the binding, the owner, the priority value the Priority plugin
// computes from priorityClassName; ${VAR} placeholders of examples become their lower-case name.
func stripDump(pod map[string]any) {
	meta := pod["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "ownerReferences",
		"namespace", "generation", "selfLink"} {
		delete(meta, k)
	}
	delete(pod, "status")
	if spec, ok := pod["spec"].(map[string]any); ok {
		delete(spec, "nodeName")
		delete(spec, "priority")
		if sa, ok := spec["serviceAccountName"].(string); ok {
			spec["serviceAccountName"] = strings.ToLower(placeholder.ReplaceAllString(sa, "$1"))
			delete(spec, "serviceAccount")
		}
	}
}

// What the pods reference and the apiserver's own plugins require before any webhook runs.
func createReferencedObjects(t *testing.T, ns string, pod map[string]any) {
	spec, _ := pod["spec"].(map[string]any)
	if sa, _ := spec["serviceAccountName"].(string); sa != "" && sa != "default" {
		kubectl("", "-n", ns, "create", "serviceaccount", sa)
	}
	if pc, _ := spec["priorityClassName"].(string); pc != "" {
		if kubectl("", "get", "priorityclass", pc).Err != nil {
			kubectl("", "create", "priorityclass", pc, "--value=1000")
		}
	}
	if rc, _ := spec["runtimeClassName"].(string); rc != "" {
		kubectl(fmt.Sprintf("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: %s}\nhandler: %s\n", rc, rc),
			"apply", "-f", "-")
	}
}

// allowedDifferences reads the committed list of paths where the stored pod may differ from
// review's patched object, each with the plugin or defaulting that writes it.
func allowedDifferences(t *testing.T) []*regexp.Regexp {
	data, err := os.ReadFile(filepath.Join(cluster.Root, "testcluster", "live", "twin-allowed-differences.txt"))
	if err != nil {
		t.Fatal(err)
	}
	var out []*regexp.Regexp
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		p, _, _ := strings.Cut(line, " ")
		out = append(out, regexp.MustCompile("^"+p+"$"))
	}
	return out
}

// diffPaths lists the JSON pointers where a and b differ.
func diffPaths(prefix string, a, b any, out *[]string) {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok && bok {
		keys := map[string]bool{}
		for k := range am {
			keys[k] = true
		}
		for k := range bm {
			keys[k] = true
		}
		for k := range keys {
			diffPaths(prefix+"/"+strings.ReplaceAll(strings.ReplaceAll(k, "~", "~0"), "/", "~1"), am[k], bm[k], out)
		}
		return
	}
	aa, aok := a.([]any)
	ba, bok := b.([]any)
	if aok && bok && len(aa) == len(ba) {
		for i := range aa {
			diffPaths(fmt.Sprintf("%s/%d", prefix, i), aa[i], ba[i], out)
		}
		return
	}
	if !reflect.DeepEqual(a, b) {
		*out = append(*out, prefix)
	}
}

// withoutTokenVolume drops the projected service account token volume and its mounts: the
// ServiceAccount plugin names it kube-api-access-<random> on every create, dry run or not.
func withoutTokenVolume(pod map[string]any) {
	spec, _ := pod["spec"].(map[string]any)
	keep := func(list any, isToken func(map[string]any) bool) []any {
		var out []any
		for _, x := range asList(list) {
			if m, ok := x.(map[string]any); ok && isToken(m) {
				continue
			}
			out = append(out, x)
		}
		return out
	}
	token := func(m map[string]any) bool { return strings.HasPrefix(str(m["name"]), "kube-api-access-") }
	if v := keep(spec["volumes"], token); len(v) > 0 {
		spec["volumes"] = v
	} else {
		delete(spec, "volumes")
	}
	for _, kind := range []string{"containers", "initContainers"} {
		for _, c := range asList(spec[kind]) {
			cm := c.(map[string]any)
			if v := keep(cm["volumeMounts"], token); len(v) > 0 {
				cm["volumeMounts"] = v
			} else {
				delete(cm, "volumeMounts")
			}
		}
	}
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

type twinRow struct{ file, mode, review, apiserver, note string }

// Every pod, created with kubectl in an enforce and a warn namespace, is admitted or denied exactly
// as `gpu-admission review` predicts from the pod as the apiserver passes it to webhooks, and the
// stored pod equals review's patched object but for the committed list of paths.
func testCLIIsTheApiserversTwin(t *testing.T) {
	files := twinPodFiles(t)
	if len(files) == 0 {
		t.Fatal("no pod files found")
	}
	// Webhooks skip namespaces labelled gpu-admission.io/webhook=disabled: a server-side dry run
	// there returns the pod after the apiserver's defaulting and built-in admission, as webhooks see it.
	namespace(t, "twin-raw", map[string]string{"gpu-admission.io/webhook": "disabled"})
	allowed := allowedDifferences(t)
	nodes := writeTemp(t, "nodes.json", mustKubectl(t, "", "get", "nodes", "-o", "json"))
	modes := []struct{ name, labels string }{{"enforce", "env=dev"}, {"warn", "env=staging"}}
	var rows []twinRow
	for i, file := range files {
		pod := asPod(t, file)
		if pod == nil {
			continue
		}
		stripDump(pod)
		for _, mode := range modes {
			ns := fmt.Sprintf("twin-%s-%02d", mode.name, i)
			labels := map[string]string{}
			k, v, _ := strings.Cut(mode.labels, "=")
			labels[k] = v
			namespace(t, ns, labels)
			createReferencedObjects(t, ns, pod)
			createReferencedObjects(t, "twin-raw", pod)
			rows = append(rows, twinOne(t, filepath.Base(file), pod, ns, mode.name, mode.labels, nodes, allowed))
		}
	}
	t.Logf("twin table (%d creates):\n%s", len(rows), formatTwin(rows))
}

func twinOne(t *testing.T, file string, pod map[string]any, ns, mode, labels, nodes string,
	allowed []*regexp.Regexp) twinRow {
	row := twinRow{file: file, mode: mode}
	doc, _ := json.Marshal(pod)
	raw := createDryRun(t, string(doc), "twin-raw")
	if raw.Err != nil {
		// Refused before any webhook ran: the apiserver's own validation; nothing to compare.
		row.review, row.apiserver, row.note = "-", "invalid", firstLine(raw.Stderr)
		return row
	}
	var asPassed map[string]any
	_ = json.Unmarshal([]byte(raw.Stdout), &asPassed)
	meta := asPassed["metadata"].(map[string]any)
	meta["namespace"] = ns
	delete(meta, "uid")
	delete(meta, "creationTimestamp")
	if meta["generateName"] != nil {
		delete(meta, "name") // generated by the storage layer, after admission
	}
	input, _ := json.Marshal(asPassed)
	pods := writeTemp(t, "pods.json", mustKubectl(t, "", "get", "pods", "-A", "-o", "json"))
	nss := writeTemp(t, "namespaces.json", mustKubectl(t, "", "get", "namespaces", "-o", "json"))
	rev := gpua(string(input), "review", "-f", "-", "-n", ns, "-l", labels, "-p", cluster.Policies,
		"--usage-from", pods+","+nss, "--nodes-from", nodes, "-o", "json")
	if rev.Stdout == "" {
		t.Errorf("%s: review failed: %s", file, rev.Stderr)
		return row
	}
	predictAllowed := jsonField(t, rev.Stdout, "allowed") == "true"
	row.review = map[bool]string{true: "allowed", false: "denied"}[predictAllowed]
	created := kubectl(string(doc), "-n", ns, "create", "-o", "json", "-f", "-")
	row.apiserver = map[bool]string{true: "allowed", false: "denied"}[created.Err == nil]
	for _, bad := range []string{"returned invalid patch", "the server rejected our request", "failed calling webhook"} {
		if strings.Contains(created.Stderr, bad) {
			t.Errorf("%s in %s: the apiserver said %q:\n%s", file, ns, bad, created.Stderr)
		}
	}
	switch {
	case predictAllowed != (created.Err == nil):
		t.Errorf("%s in %s (%s): review says %s, the apiserver %s:\nreview: %s\napiserver: %s", file, ns, mode,
			row.review, row.apiserver, jsonField(t, rev.Stdout, "status", "message"), created.combined())
	case created.Err != nil:
		msg := withGeneratedName(jsonField(t, rev.Stdout, "status", "message"), meta, created.Stderr)
		if !strings.Contains(created.Stderr, msg) {
			t.Errorf("%s in %s: the apiserver's denial does not carry review's message %q:\n%s", file, ns, msg,
				created.Stderr)
		}
		row.note = firstLine(jsonField(t, rev.Stdout, "status", "message"))
	default:
		row.note = comparePatched(t, file, ns, rev.Stdout, created.Stdout, allowed)
		kubectl("", "-n", ns, "delete", "pod", "--all", "--grace-period=0", "--force", "--wait=false")
	}
	return row
}

func comparePatched(t *testing.T, file, ns, review, stored string, allowed []*regexp.Regexp) string {
	var want, got map[string]any
	_ = json.Unmarshal([]byte(jsonField(t, review, "patchedObject")), &want)
	_ = json.Unmarshal([]byte(stored), &got)
	if want == nil {
		t.Errorf("%s: review returned no patchedObject", file)
		return ""
	}
	withoutTokenVolume(want)
	withoutTokenVolume(got)
	var diffs []string
	diffPaths("", want, got, &diffs)
	sort.Strings(diffs)
	var unexplained []string
	for _, d := range diffs {
		ok := false
		for _, re := range allowed {
			ok = ok || re.MatchString(d)
		}
		if !ok {
			unexplained = append(unexplained, fmt.Sprintf("%s: review %s, stored %s", d, show(want, d), show(got, d)))
		}
	}
	if len(unexplained) > 0 {
		t.Errorf("%s in %s: the stored pod differs from review's patched object:\n  %s", file, ns,
			strings.Join(unexplained, "\n  "))
	}
	return fmt.Sprintf("%d paths differ, all listed", len(diffs))
}

func show(obj map[string]any, pointer string) string {
	var v any = obj
	for _, p := range strings.Split(strings.TrimPrefix(pointer, "/"), "/") {
		p = strings.ReplaceAll(strings.ReplaceAll(p, "~1", "/"), "~0", "~")
		switch x := v.(type) {
		case map[string]any:
			v = x[p]
		case []any:
			var i int
			fmt.Sscan(p, &i)
			if i < len(x) {
				v = x[i]
			} else {
				v = nil
			}
		default:
			v = nil
		}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(strings.TrimSpace(s), "\n")
	if len(s) > 140 {
		s = s[:140] + "..."
	}
	return s
}

func formatTwin(rows []twinRow) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%-48s %-8s %-8s %-9s %s\n", "pod file", "mode", "review", "apiserver", "note")
	for _, r := range rows {
		fmt.Fprintf(&b, "%-48s %-8s %-8s %-9s %s\n", r.file, r.mode, r.review, r.apiserver, r.note)
	}
	return b.String()
}

// withGeneratedName puts the name the apiserver generated into review's message. The storage
// layer generates a generateName pod's name after mutating admission and before validating
// admission, and the denial comes from the validating webhook: review, given the pod as the
// mutating webhook sees it, says `pod "x-" (generateName)` where the apiserver's webhook saw
// `pod "x-k2v9q"`.
func withGeneratedName(msg string, meta map[string]any, denial string) string {
	gen, _ := meta["generateName"].(string)
	if gen == "" {
		return msg
	}
	m := regexp.MustCompile(`pod "` + regexp.QuoteMeta(gen) + `([a-z0-9]{5})"`).FindStringSubmatch(denial)
	if m == nil {
		return msg
	}
	return strings.ReplaceAll(msg, `pod "`+gen+`" (generateName)`, `pod "`+gen+m[1]+`"`)
}
