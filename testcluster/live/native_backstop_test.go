package live

import (
	"encoding/json"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// The native backstop (docs/native-backstop.md): `gpu-admission compile --to native` turns the
// policy's per-object rules into ValidatingAdmissionPolicies. Against the real apiserver: every
// compiled object is accepted and type-checks without warnings; every pod of the corpus and of a
// generated set, created (dry run) with (1) only the webhook, (2) only the compiled policies, (3)
// both, gives in (2) exactly the webhook's verdict and message restricted to the compiled rules
// (the rules `compile --explain` lists as not compiled are the only allowed difference), and in
// (3) exactly (1); with the webhook's process gone the apiserver alone still denies.
func testNativeBackstop(t *testing.T) {
	dir := t.TempDir()
	if r := gpua("", "compile", "--to", "native", "--policies", cluster.Policies, "-o", dir); r.Err != nil {
		t.Fatalf("compile: %v\n%s", r.Err, r.combined())
	}
	compiled := compiledRules(t)
	t.Cleanup(func() { kubectl("", "delete", "--ignore-not-found", "-f", dir) })
	t.Run("EveryObjectAccepted", func(t *testing.T) { applyNative(t, dir) })
	t.Run("Differential", func(t *testing.T) { nativeDifferential(t, compiled) })
	t.Run("PolicyTestsAgainstNative", func(t *testing.T) { nativePolicyTests(t, dir) })
	t.Run("PolicyFixturesAgainstNative", func(t *testing.T) { nativeFixtureTests(t, dir) })
	t.Run("WebhookDown", func(t *testing.T) { nativeWithWebhookDown(t) })
	t.Run("StaticManifests", nativeStatic)
	t.Run("Latency", nativeLatency)
}

// compiledRules reads `compile --explain`: the rule ids compiled into the apiserver.
func compiledRules(t *testing.T) map[string]bool {
	r := gpua("", "compile", "--to", "native", "--explain", "--policies", cluster.Policies)
	if r.Err != nil {
		t.Fatalf("compile --explain: %v\n%s", r.Err, r.combined())
	}
	out := explainedCompiled(r.Stdout)
	if len(out) == 0 {
		t.Fatalf("compile --explain lists no compiled rule:\n%s", r.Stdout)
	}
	return out
}

// explainedCompiled reads the "compiled into the apiserver" section of `compile --explain`.
func explainedCompiled(explain string) map[string]bool {
	out := map[string]bool{}
	section := ""
	for _, line := range strings.Split(explain, "\n") {
		switch {
		case !strings.HasPrefix(line, " "): // a heading: the rules, the mutations, the rest
			section = map[bool]string{true: "compiled", false: "other"}[strings.HasPrefix(line, "compiled")]
		case section == "compiled":
			out[strings.TrimSpace(line)] = true
		}
	}
	return out
}

// applyNative creates the compiled objects and waits until the apiserver has type-checked every
// policy: a warning there (an unknown field, a type error) is a failure.
func applyNative(t *testing.T, dir string) {
	out := mustKubectl(t, "", "apply", "-f", dir)
	t.Logf("applied:\n%s", out)
	files, _ := filepath.Glob(filepath.Join(dir, "validating-policy-*.yaml"))
	if len(files) == 0 {
		t.Fatal("compile wrote no ValidatingAdmissionPolicy")
	}
	for _, f := range files {
		name := "gpu-admission-" + strings.TrimSuffix(strings.TrimPrefix(filepath.Base(f), "validating-policy-"), ".yaml")
		eventually(t, 60*time.Second, "type checking of "+name, func() error {
			vap := getJSON(t, "validatingadmissionpolicy", name)
			status, _ := vap["status"].(map[string]any)
			if status == nil || status["typeChecking"] == nil {
				return fmt.Errorf("not type-checked yet")
			}
			if w := path(status, "typeChecking", "expressionWarnings"); w != nil {
				b, _ := json.MarshalIndent(w, "", "  ")
				t.Fatalf("%s: the apiserver's type check warns:\n%s", name, b)
			}
			return nil
		})
	}
}

// A pod created in one namespace under one admission setup: what the apiserver answered.
type nativeOutcome struct {
	allowed  bool
	stderr   string
	stored   map[string]any
	warnings []string
}

type nativeNS struct{ name, labels string }

var nativeNamespaces = []nativeNS{
	{"nb-enforce", "env=dev"},
	{"nb-warn", "env=staging"},
	{"nb-serving", "env=dev,gpu-admission.io/serving=true"},
}

type nativeCase struct {
	name string
	pod  map[string]any
	ns   nativeNS
	// what the webhook decided (review) and the three setups' answers
	review                   map[string]any
	webhook, both, nativeOne nativeOutcome
	skip                     string // why the case is not compared (refused before admission)
}

func labelsOf(spec string) map[string]string {
	out := map[string]string{}
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		out[k] = v
	}
	return out
}

func nativeDifferential(t *testing.T, compiled map[string]bool) {
	namespace(t, "nb-raw", map[string]string{"gpu-admission.io/webhook": "disabled"})
	for _, ns := range nativeNamespaces {
		namespace(t, ns.name, labelsOf(ns.labels))
	}
	cases := nativeCases(t)
	nodes := writeTemp(t, "nodes.json", mustKubectl(t, "", "get", "nodes", "-o", "json"))
	pods := writeTemp(t, "pods.json", mustKubectl(t, "", "get", "pods", "-A", "-o", "json"))
	nss := writeTemp(t, "namespaces.json", mustKubectl(t, "", "get", "namespaces", "-o", "json"))
	for i := range cases {
		reviewCase(t, &cases[i], nodes, pods, nss)
	}
	// (3) both: the compiled policies are applied (EveryObjectAccepted), the webhook is registered.
	waitNativeWarn(t)
	for i := range cases {
		if cases[i].skip == "" {
			cases[i].both = dryRun(t, cases[i].pod, cases[i].ns.name)
		}
	}
	// The requests say what kubectl says, on a pod of each kind of answer.
	for _, c := range answerSamples(cases) {
		dryRunMatchesKubectl(t, mustJSON(c.pod), c.ns.name)
	}
	// (2) only the compiled policies: the webhook configurations removed.
	withoutWebhooks(t, func() {
		nativePriority(t)
		for i := range cases {
			if cases[i].skip == "" {
				cases[i].nativeOne = dryRun(t, cases[i].pod, cases[i].ns.name)
			}
		}
	})
	// (1) only the webhook: the compiled policies removed for a moment.
	withoutNative(t, func() {
		for i := range cases {
			if cases[i].skip == "" {
				cases[i].webhook = dryRun(t, cases[i].pod, cases[i].ns.name)
			}
		}
	})
	var table strings.Builder
	fmt.Fprintf(&table, "%-44s %-10s %-8s %-8s %-8s %s\n", "pod", "namespace", "webhook", "native", "both", "webhook rules")
	denied, deniedNatively := 0, 0
	for i := range cases {
		c := &cases[i]
		if c.skip != "" {
			fmt.Fprintf(&table, "%-44s %-10s skipped: %s\n", c.name, c.ns.name, c.skip)
			continue
		}
		compareNative(t, c, compiled)
		if !c.webhook.allowed {
			denied++
		}
		if !c.nativeOne.allowed {
			deniedNatively++
		}
		fmt.Fprintf(&table, "%-44s %-10s %-8s %-8s %-8s %s\n", c.name, c.ns.name, verdict(c.webhook),
			verdict(c.nativeOne), verdict(c.both), jsonField(t, mustJSON(c.review), "auditAnnotations", "violation-rules"))
	}
	t.Logf("differential (%d cases; the webhook denied %d, the compiled policies alone %d):\n%s",
		len(cases), denied, deniedNatively, table.String())
	writeReport(t, "native-differential.txt", table.String())
	if deniedNatively == 0 {
		t.Error("the compiled policies denied no pod: the differential proves nothing")
	}
}

// answerSamples: the first case with both the webhook and the compiled policies admitting it
// without a warning, with a warning, and denying it, and the first refused before admission.
func answerSamples(cases []nativeCase) []nativeCase {
	var out []nativeCase
	seen := map[string]bool{}
	for _, c := range cases {
		kind := "refused before admission"
		if c.skip == "" {
			kind = fmt.Sprintf("allowed %v, warned %v", c.both.allowed, len(c.both.warnings) > 0)
		}
		if !seen[kind] {
			seen[kind] = true
			out = append(out, c)
		}
	}
	return out
}

func verdict(o nativeOutcome) string {
	if o.allowed {
		return "allowed"
	}
	return "denied"
}

func mustJSON(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

// reviewCase records the pod as the apiserver passes it to admission and what the webhook's
// engine (review, the apiserver's twin) finds in it, every violation with its rule.
func reviewCase(t *testing.T, c *nativeCase, nodes, pods, nss string) {
	raw := createDryRun(t, mustJSON(c.pod), "nb-raw")
	if raw.Err != nil {
		c.skip = "refused before admission: " + firstLine(raw.Stderr)
		return
	}
	var asPassed map[string]any
	_ = json.Unmarshal([]byte(raw.Stdout), &asPassed)
	meta := asPassed["metadata"].(map[string]any)
	meta["namespace"] = c.ns.name
	delete(meta, "uid")
	delete(meta, "creationTimestamp")
	if meta["generateName"] != nil {
		delete(meta, "name")
	}
	rev := gpua(mustJSON(asPassed), "review", "-f", "-", "-n", c.ns.name, "-l", c.ns.labels, "-p", cluster.Policies,
		"--usage-from", pods+","+nss, "--nodes-from", nodes, "-o", "json")
	if rev.Stdout == "" {
		t.Fatalf("%s: review failed: %s", c.name, rev.Stderr)
	}
	_ = json.Unmarshal([]byte(rev.Stdout), &c.review)
}

var warningLine = regexp.MustCompile(`(?m)^Warning: (.*)$`)

func dryRun(t *testing.T, pod map[string]any, ns string) nativeOutcome {
	r := createDryRun(t, mustJSON(pod), ns)
	o := nativeOutcome{allowed: r.Err == nil, stderr: r.Stderr}
	for _, m := range warningLine.FindAllStringSubmatch(r.Stderr, -1) {
		o.warnings = append(o.warnings, m[1])
	}
	if r.Err == nil {
		_ = json.Unmarshal([]byte(r.Stdout), &o.stored)
		withoutTokenVolume(o.stored)
		if meta, ok := o.stored["metadata"].(map[string]any); ok {
			delete(meta, "uid")
			delete(meta, "creationTimestamp")
			if meta["generateName"] != nil {
				delete(meta, "name")
			}
		}
	}
	return o
}

type violation struct{ Rule, Message string }

// expectedNative: the webhook's decision restricted to the compiled rules, as engine/verdict words
// it (the first violation, and how many more).
func expectedNative(t *testing.T, review map[string]any, compiled map[string]bool) (mode string, message string) {
	mode = str(review["mode"])
	var kept []violation
	for _, v := range asList(review["violations"]) {
		m := v.(map[string]any)
		if compiled[str(m["rule"])] {
			kept = append(kept, violation{str(m["rule"]), str(m["message"])})
		}
	}
	if len(kept) == 0 {
		return mode, ""
	}
	message = kept[0].Message
	if len(kept) > 1 {
		message += fmt.Sprintf(" (and %d more)", len(kept)-1)
	}
	return mode, message
}

// generatedNames: a generateName pod is named by the storage layer before validating admission,
// with five random characters; review (given the pod as mutating admission sees it) says
// `pod "x-" (generateName)`. Both forms become the latter, so that runs compare.
func generatedNames(msg string, pod map[string]any) string {
	gen := str(path(pod, "metadata", "generateName"))
	if gen == "" {
		return msg
	}
	return regexp.MustCompile(`pod "`+regexp.QuoteMeta(gen)+`[a-z0-9]{5}"`).ReplaceAllString(msg, `pod "`+gen+`" (generateName)`)
}

func compareNative(t *testing.T, c *nativeCase, compiled map[string]bool) {
	where := fmt.Sprintf("%s in %s", c.name, c.ns.name)
	reviewAllowed := c.review["allowed"] == true
	mode, want := expectedNative(t, c.review, compiled)
	exempt := c.review["outcome"] == "Exempt" || c.review["outcome"] == "Skipped"
	// (1) the webhook alone is what review says (the twin check's claim, on these pods too).
	if c.webhook.allowed != reviewAllowed {
		t.Errorf("%s: review says allowed=%v, the webhook alone %s:\n%s", where, reviewAllowed, verdict(c.webhook), c.webhook.stderr)
	}
	// (3) both: the webhook's verdict and stored pod. The apiserver runs admission policies before
	// validating webhooks, so a denial by a compiled rule is worded by the compiled policy: the
	// webhook's message restricted to the compiled rules.
	wantBoth := generatedNames(denialOf(c.webhook.stderr), c.pod)
	if want != "" && mode == "enforce" && !exempt {
		wantBoth = want
	}
	switch {
	case c.both.allowed != c.webhook.allowed:
		t.Errorf("%s: the webhook alone %s, with the compiled policies too %s:\n%s", where, verdict(c.webhook), verdict(c.both), c.both.stderr)
	case !c.both.allowed && generatedNames(denialOf(c.both.stderr), c.pod) != wantBoth:
		t.Errorf("%s: with both, the denial is not the expected one:\nwant: %s\nboth: %s", where, wantBoth, c.both.stderr)
	case c.both.allowed:
		var diffs []string
		diffPaths("", c.webhook.stored, c.both.stored, &diffs)
		if len(diffs) > 0 {
			t.Errorf("%s: with both, the stored pod differs from the webhook's alone at %v", where, diffs)
		}
	}
	// (2) the compiled policies alone: a pod both admit is stored alike, mutations included (the
	// compiled MutatingAdmissionPolicies write what the webhook writes), and the webhook, given
	// that stored pod, writes nothing more.
	if c.webhook.allowed && c.nativeOne.allowed {
		var diffs []string
		diffPaths("", c.webhook.stored, c.nativeOne.stored, &diffs)
		if len(diffs) > 0 {
			t.Errorf("%s: the compiled policies alone store the pod differently from the webhook at %v", where, diffs)
		}
		if patch := reviewPatch(t, c.nativeOne.stored, c.ns); len(patch) > 0 {
			t.Errorf("%s: the webhook would still patch the pod the compiled mutations stored: %s", where, mustJSON(patch))
		}
	}
	// The webhook's verdict and message on the compiled rules.
	switch {
	case want == "" || exempt:
		if !c.nativeOne.allowed {
			t.Errorf("%s: no compiled rule is violated (webhook rules %q), yet the compiled policies deny:\n%s", where,
				jsonField(t, mustJSON(c.review), "auditAnnotations", "violation-rules"), c.nativeOne.stderr)
		}
	case mode == "enforce":
		if c.nativeOne.allowed {
			t.Errorf("%s: the compiled policies admit what the webhook denies by compiled rules: %s", where, want)
		} else if got := generatedNames(denialOf(c.nativeOne.stderr), c.pod); got != want {
			t.Errorf("%s: the compiled policies' denial differs from the webhook's:\nwebhook: %s\nnative:  %s", where, want, got)
		}
	case mode == "warn":
		// The pod is mutated in warn mode, by the webhook as by the compiled policies, and the
		// validating pass (the webhook's, the compiled policy's) judges it mutated: the words are
		// the webhook's on the pod it stored (a renamed resource named as renamed).
		if c.webhook.allowed {
			_, want = expectedNative(t, reviewStored(t, c.webhook.stored, c.ns), compiled)
		}
		if !c.nativeOne.allowed {
			t.Errorf("%s: warn mode, yet the compiled policies deny: %s", where, c.nativeOne.stderr)
		} else if !strings.Contains(generatedNames(strings.Join(c.nativeOne.warnings, "\n"), c.pod), want) {
			t.Errorf("%s: warn mode: no warning carries the webhook's message %q:\n%v", where, want, c.nativeOne.warnings)
		}
	}
}

// hasRule: the webhook found a violation of `rule` in the pod.
func hasRule(review map[string]any, rule string) bool {
	for _, v := range asList(review["violations"]) {
		if str(path(v, "rule")) == rule {
			return true
		}
	}
	return false
}

// reviewStored: the webhook's decision on a stored pod (the engine, as the apiserver would call
// it again: reinvocation, or the validating pass after mutation), without the status the storage
// layer adds.
func reviewStored(t *testing.T, stored map[string]any, ns nativeNS) map[string]any {
	pod := map[string]any{}
	_ = json.Unmarshal([]byte(mustJSON(stored)), &pod)
	delete(pod, "status")
	rev := gpua(mustJSON(pod), "review", "-f", "-", "-n", ns.name, "-l", ns.labels, "-p", cluster.Policies, "-o", "json")
	var out map[string]any
	if err := json.Unmarshal([]byte(rev.Stdout), &out); err != nil {
		t.Fatalf("review of a stored pod: %v\n%s", err, rev.Stderr)
	}
	return out
}

// reviewPatch: the webhook's patch for a stored pod.
func reviewPatch(t *testing.T, stored map[string]any, ns nativeNS) []any {
	return asList(reviewStored(t, stored, ns)["patch"])
}

var nativeDenial = regexp.MustCompile(`denied (?:the )?request: (.*)$`)

// denialOf: the policy's own words in the apiserver's error, after whoever denied it.
func denialOf(stderr string) string {
	line := strings.TrimSpace(stderr)
	if m := nativeDenial.FindStringSubmatch(line); m != nil {
		return m[1]
	}
	return line
}

// nativeCases: every pod of the corpus and of policy-tests in each namespace of nativeNamespaces'
// first two (enforce and warn), and the generated pods (every class, pool, GPU form) in all three.
func nativeCases(t *testing.T) []nativeCase {
	var out []nativeCase
	for _, file := range twinPodFiles(t) {
		pod := asPod(t, file)
		if pod == nil {
			continue
		}
		stripDump(pod)
		for _, ns := range nativeNamespaces[:2] {
			createReferencedObjects(t, ns.name, pod)
			createReferencedObjects(t, "nb-raw", pod)
			out = append(out, nativeCase{name: filepath.Base(file), pod: pod, ns: ns})
		}
	}
	for _, g := range generatedPods() {
		for _, ns := range nativeNamespaces {
			out = append(out, nativeCase{name: g.name, pod: g.pod, ns: ns})
		}
	}
	return out
}

type generated struct {
	name string
	pod  map[string]any
}

func container(name string, limits map[string]string, env ...string) map[string]any {
	c := map[string]any{"name": name, "image": "cuda"}
	if len(limits) > 0 {
		l := map[string]any{}
		for k, v := range limits {
			l[k] = v
		}
		c["resources"] = map[string]any{"limits": l}
	}
	if len(env) == 2 {
		c["env"] = []any{map[string]any{"name": env[0], "value": env[1]}}
	}
	return c
}

// requestsOnly: a container that asks for resources by requests alone (the apiserver copies
// limits into requests, never the reverse: admission sees no GPU limit).
func requestsOnly(name string, requests map[string]string) map[string]any {
	r := map[string]any{}
	for k, v := range requests {
		r[k] = v
	}
	return map[string]any{"name": name, "image": "cuda", "resources": map[string]any{"requests": r}}
}

func podOf(name string, labels map[string]string, spec map[string]any) map[string]any {
	meta := map[string]any{"name": name}
	if len(labels) > 0 {
		meta["labels"] = labels
	}
	return map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": meta, "spec": spec}
}

// generatedPods: each class (by label and by framework hint), no class, every GPU form the pools
// offer and some they do not, per-pod and per-container maxima, init containers, priority classes,
// device variables, skip rules.
func generatedPods() []generated {
	gpu := func(n string) map[string]string { return map[string]string{"nvidia.com/gpu": n} }
	forms := []struct {
		name   string
		limits map[string]string
	}{
		{"none", nil}, {"gpu1", gpu("1")}, {"gpu2", gpu("2")}, {"gpu3", gpu("3")}, {"gpu9", gpu("9")},
		{"mig2g", map[string]string{"nvidia.com/mig-2g.20gb": "1"}},
		{"mig7g", map[string]string{"nvidia.com/mig-7g.80gb": "1"}},
		{"shared1", map[string]string{"nvidia.com/gpu.shared": "1"}},
		{"shared2", map[string]string{"nvidia.com/gpu.shared": "2"}},
	}
	classes := []struct {
		name   string
		labels map[string]string
	}{
		{"none", nil},
		{"training", map[string]string{"gpu-admission.io/class": "training"}},
		{"kubeflow", map[string]string{"training.kubeflow.org/job-name": "j"}},
		{"inference", map[string]string{"gpu-admission.io/class": "inference"}},
		{"inference-large", map[string]string{"gpu-admission.io/class": "inference-large"}},
		{"interactive", map[string]string{"gpu-admission.io/class": "interactive"}},
		{"batch", map[string]string{"gpu-admission.io/class": "batch"}},
	}
	var out []generated
	for _, cl := range classes {
		for _, f := range forms {
			name := "gen-" + cl.name + "-" + f.name
			out = append(out, generated{name, podOf(name, cl.labels,
				map[string]any{"containers": []any{container("main", f.limits)}})})
		}
	}
	two := func(name string, labels map[string]string, a, b map[string]string) generated {
		return generated{name, podOf(name, labels, map[string]any{"containers": []any{container("a", a), container("b", b)}})}
	}
	train := map[string]string{"gpu-admission.io/class": "training"}
	inter := map[string]string{"gpu-admission.io/class": "interactive"}
	out = append(out,
		two("gen-training-two-5-5", train, gpu("5"), gpu("5")),
		two("gen-interactive-two-2-2", inter, gpu("2"), gpu("2")),
		two("gen-mixed-resources", train, gpu("1"), map[string]string{"nvidia.com/mig-1g.10gb": "1"}),
		generated{"gen-training-init-gpu", podOf("gen-training-init-gpu", train, map[string]any{
			"initContainers": []any{container("warmup", gpu("9"))},
			"containers":     []any{container("main", gpu("1"))}})},
		generated{"gen-training-system-priority", podOf("gen-training-system-priority", train, map[string]any{
			"priorityClassName": "system-cluster-critical",
			"containers":        []any{container("main", gpu("1"))}})},
		generated{"gen-training-other-priority", podOf("gen-training-other-priority", train, map[string]any{
			"priorityClassName": "gpu-inference",
			"containers":        []any{container("main", gpu("1"))}})},
		generated{"gen-visible-devices", podOf("gen-visible-devices", nil, map[string]any{
			"containers": []any{container("main", nil, "NVIDIA_VISIBLE_DEVICES", "all")}})},
		generated{"gen-visible-devices-void", podOf("gen-visible-devices-void", nil, map[string]any{
			"containers": []any{container("main", nil, "NVIDIA_VISIBLE_DEVICES", "void")}})},
		generated{"gen-training-sidecar-devices", podOf("gen-training-sidecar-devices", train, map[string]any{
			"containers": []any{container("main", gpu("1")), container("side", nil, "CUDA_VISIBLE_DEVICES", "0")}})},
		generated{"gen-volcano-validate-only", podOf("gen-volcano-validate-only", map[string]string{"gpu-admission.io/class": "inference"},
			map[string]any{"schedulerName": "volcano", "containers": []any{container("main", gpu("3"))}})},
		generated{"gen-kai-skipped", podOf("gen-kai-skipped", nil,
			map[string]any{"schedulerName": "kai-scheduler", "containers": []any{container("main", gpu("9"))}})},
		generated{"gen-hami-skipped", podOf("gen-hami-skipped", nil,
			map[string]any{"containers": []any{container("main", map[string]string{"nvidia.com/gpu": "1", "nvidia.com/gpumem": "1000"})}})},
		// The compiled mutations on pods that already carry part of what they write.
		generated{"gen-training-requests-only", podOf("gen-training-requests-only", train, map[string]any{
			"containers": []any{requestsOnly("main", gpu("2"))}})},
		generated{"gen-inference-affinity-terms", podOf("gen-inference-affinity-terms",
			map[string]string{"gpu-admission.io/class": "inference"}, map[string]any{
				"affinity": map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
					"nodeSelectorTerms": []any{
						map[string]any{"matchExpressions": []any{map[string]any{"key": "zone", "operator": "In", "values": []any{"a"}}}},
						map[string]any{"matchFields": []any{map[string]any{"key": "metadata.name", "operator": "In", "values": []any{"n1"}}}},
					}}}},
				"containers":     []any{requestsOnly("main", gpu("1"))},
				"initContainers": []any{container("init", nil, "A", "b")}})},
		generated{"gen-training-pool-selected", podOf("gen-training-pool-selected", train, map[string]any{
			"nodeSelector": map[string]any{"gpu-admission.io/pool": "train-h100", "nvidia.com/gpu.product": "NVIDIA-H100-80GB-HBM3"},
			"tolerations":  []any{map[string]any{"operator": "Exists"}},
			"containers":   []any{container("main", gpu("1")), container("side", nil, "A", "b")}})},
		generated{"gen-interactive-long-deadline", podOf("gen-interactive-long-deadline", inter, map[string]any{
			"activeDeadlineSeconds": 99999,
			"tolerations":           []any{map[string]any{"key": "nvidia.com/gpu", "operator": "Equal", "value": "x"}},
			"containers":            []any{container("main", gpu("1"))}})},
		generated{"gen-interactive-short-deadline", podOf("gen-interactive-short-deadline", inter, map[string]any{
			"activeDeadlineSeconds": 60, "containers": []any{container("main", map[string]string{"nvidia.com/gpu.shared": "1"})}})},
		generated{"gen-training-stale-annotation", map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"name": "gen-training-stale-annotation", "labels": train,
				"annotations": map[string]any{"gpu-admission.io/class": "batch", "team": "x"}},
			"spec": map[string]any{"containers": []any{container("main", gpu("1"))}}}},
		// GPU-less pods that target a GPU pool (gpu-pool-without-request), each way alone.
		generated{"gen-cpu-targets-pool-selector", podOf("gen-cpu-targets-pool-selector", nil, map[string]any{
			"nodeSelector": map[string]any{"gpu-admission.io/pool": "train-h100"}, "containers": []any{container("main", nil)}})},
		generated{"gen-cpu-targets-pool-affinity", podOf("gen-cpu-targets-pool-affinity", nil, map[string]any{
			"affinity": map[string]any{"nodeAffinity": map[string]any{"requiredDuringSchedulingIgnoredDuringExecution": map[string]any{
				"nodeSelectorTerms": []any{map[string]any{"matchExpressions": []any{
					map[string]any{"key": "gpu-admission.io/pool", "operator": "In", "values": []any{"cpu", "infer-a100"}}}}}}}},
			"containers": []any{container("main", nil)}})},
		generated{"gen-cpu-targets-pool-toleration", podOf("gen-cpu-targets-pool-toleration", nil, map[string]any{
			"tolerations": []any{map[string]any{"key": "nvidia.com/gpu", "operator": "Exists", "effect": "NoSchedule"}},
			"containers":  []any{container("main", nil)}})},
		generated{"gen-batch-targets-pool", podOf("gen-batch-targets-pool", map[string]string{"gpu-admission.io/class": "batch"},
			map[string]any{"nodeSelector": map[string]any{"nvidia.com/gpu.product": "NVIDIA-L4"}, "containers": []any{container("main", nil)}})},
		generated{"gen-generate-name", map[string]any{"apiVersion": "v1", "kind": "Pod",
			"metadata": map[string]any{"generateName": "gen-big-", "labels": train},
			"spec":     map[string]any{"containers": []any{container("main", gpu("9"))}}}},
	)
	return append(out, largePod())
}

// largePod: 30 containers of 40 variables and 20 volume mounts each, one GPU apiece: the
// compiled policies' cost on a pod far larger than the corpus's (the apiserver's per-call CEL
// budget), and max-per-pod's container list cut after five.
func largePod() generated {
	var containers, volumes []any
	for v := 0; v < 20; v++ {
		volumes = append(volumes, map[string]any{"name": fmt.Sprintf("v%d", v), "emptyDir": map[string]any{}})
	}
	for i := 0; i < 30; i++ {
		c := container(fmt.Sprintf("worker-%02d", i), map[string]string{"nvidia.com/gpu": "1"})
		var env, mounts []any
		for e := 0; e < 40; e++ {
			env = append(env, map[string]any{"name": fmt.Sprintf("VAR_%02d", e), "value": strings.Repeat("x", 64)})
		}
		for v := 0; v < 20; v++ {
			mounts = append(mounts, map[string]any{"name": fmt.Sprintf("v%d", v), "mountPath": fmt.Sprintf("/data/%d", v)})
		}
		c["env"], c["volumeMounts"] = env, mounts
		containers = append(containers, c)
	}
	return generated{"gen-large-30-containers", podOf("gen-large-30-containers",
		map[string]string{"gpu-admission.io/class": "training"},
		map[string]any{"containers": containers, "volumes": volumes})}
}

// nativePriority: with only the compiled policies, a training pod created for real gets the
// class's priority class from the MutatingAdmissionPolicy and, from the Priority plugin run again
// after it, that class's priority value (the plugin runs before admission policies and had
// written the default's).
func nativePriority(t *testing.T) {
	want := strings.TrimSpace(mustKubectl(t, "", "get", "priorityclass", "gpu-training", "-o", "jsonpath={.value}"))
	pod := mustJSON(podOf("native-priority", map[string]string{"gpu-admission.io/class": "training"},
		map[string]any{"containers": []any{container("main", map[string]string{"nvidia.com/gpu": "1"})}}))
	var got string
	eventually(t, 60*time.Second, "the compiled MutatingAdmissionPolicy writes the priority class", func() error {
		r := kubectl(pod, "-n", "nb-enforce", "create", "--dry-run=server", "-o",
			"jsonpath={.spec.priorityClassName} {.spec.priority}", "-f", "-")
		if r.Err != nil {
			return fmt.Errorf("%s", r.combined())
		}
		if got = strings.TrimSpace(r.Stdout); !strings.HasPrefix(got, "gpu-training") {
			return fmt.Errorf("stored %q", got)
		}
		return nil
	})
	if got != "gpu-training "+want {
		t.Errorf("with only the compiled policies the pod is stored with priorityClassName/priority %q, want %q",
			got, "gpu-training "+want)
	}
}

// waitNativeWarn waits until the apiserver evaluates the compiled warn policy: a training pod
// over its maximum in a warn namespace comes back with the policy's warning.
func waitNativeWarn(t *testing.T) {
	pod := mustJSON(podOf("native-marker", map[string]string{"gpu-admission.io/class": "training"},
		map[string]any{"containers": []any{container("main", map[string]string{"nvidia.com/gpu": "9"})}}))
	eventually(t, 60*time.Second, "the apiserver evaluates the compiled warn policy", func() error {
		r := kubectl(pod, "-n", "nb-warn", "create", "--dry-run=server", "-o", "name", "-f", "-")
		if !strings.Contains(r.Stderr, "ValidatingAdmissionPolicy 'gpu-admission-warn'") {
			return fmt.Errorf("no warning of the compiled policy: %s", r.combined())
		}
		return nil
	})
}

// nativeEnforced: a training pod over its maximum in an enforce namespace is denied by the
// compiled enforce policy (not by a webhook).
func nativeEnforced() error {
	pod := mustJSON(podOf("native-marker", map[string]string{"gpu-admission.io/class": "training"},
		map[string]any{"containers": []any{container("main", map[string]string{"nvidia.com/gpu": "9"})}}))
	r := kubectl(pod, "-n", "nb-enforce", "create", "--dry-run=server", "-o", "name", "-f", "-")
	if r.Err == nil || !strings.Contains(r.Stderr, "ValidatingAdmissionPolicy 'gpu-admission-enforce'") {
		return fmt.Errorf("not denied by the compiled policy: %s", r.combined())
	}
	if !strings.Contains(r.Stderr, "asks for 9 nvidia.com/gpu but class training allows at most 8 per pod") {
		return fmt.Errorf("denied without the webhook's words: %s", r.Stderr)
	}
	return nil
}

// webhookOnlyPod: a training pod asking for 3 GPUs in an enforce namespace, over the dev
// namespaces' budget of 2 GPU-equivalents: the webhook denies it (quota: live usage, which no
// compiled policy can read) and the compiled policies admit it. It tells whether the apiserver
// calls the webhook: the marker pod cannot, since the compiled policies judge and mutate it
// exactly as the webhook would.
var webhookOnlyPod = mustJSON(podOf("native-over-quota", map[string]string{"gpu-admission.io/class": "training"},
	map[string]any{"containers": []any{container("main", map[string]string{"nvidia.com/gpu": "3"})}}))

// waitWebhookDenies waits until the webhook denies webhookOnlyPod: the apiserver calls it again.
func waitWebhookDenies(t *testing.T) {
	eventually(t, 60*time.Second, "the apiserver calls the webhook", func() error {
		r := kubectl(webhookOnlyPod, "-n", "nb-enforce", "create", "--dry-run=server", "-o", "name", "-f", "-")
		if !strings.Contains(r.Stderr, "admission webhook") {
			return fmt.Errorf("the pod over the quota is not denied by the webhook: %s", r.combined())
		}
		return nil
	})
}

// withoutWebhooks runs f with the webhook configurations deleted (and the apiserver no longer
// calling the webhook), then restores them and waits until it calls it again.
func withoutWebhooks(t *testing.T, f func()) {
	install := filepath.Join(cluster.Dir, "install", "webhooks-local.yaml")
	mustKubectl(t, "", "delete", "-f", install)
	defer func() {
		mustKubectl(t, "", "apply", "-f", install)
		waitWebhookDenies(t)
	}()
	eventually(t, 60*time.Second, "the apiserver stops calling the webhook", func() error {
		if r := kubectl(webhookOnlyPod, "-n", "nb-enforce", "create", "--dry-run=server", "-o", "name", "-f", "-"); r.Err != nil {
			return fmt.Errorf("the pod over the quota is still denied: %s", r.Stderr)
		}
		return nil
	})
	eventually(t, 60*time.Second, "the compiled enforce policy denies", nativeEnforced)
	f()
}

// withoutNative runs f with the compiled bindings (validating and mutating) deleted, then
// restores them.
func withoutNative(t *testing.T, f func()) {
	const selector = "app.kubernetes.io/managed-by=gpu-admission"
	var items []any
	for _, kind := range []string{"validatingadmissionpolicybinding", "mutatingadmissionpolicybinding"} {
		items = append(items, asList(getJSON(t, kind, "-l", selector)["items"])...)
		mustKubectl(t, "", "delete", kind, "-l", selector)
	}
	if len(items) == 0 {
		t.Fatal("no compiled binding installed")
	}
	defer func() {
		for _, it := range items {
			m := it.(map[string]any)
			meta := m["metadata"].(map[string]any)
			for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "generation", "managedFields"} {
				delete(meta, k)
			}
			delete(m, "status")
			mustKubectl(t, mustJSON(m), "create", "-f", "-")
		}
		waitNativeWarn(t)
	}()
	// The bindings go in one watch stream per kind; the validating one is observable (its warning
	// disappears), the mutating one left at the same moment.
	pod := mustJSON(podOf("native-marker", map[string]string{"gpu-admission.io/class": "training"},
		map[string]any{"containers": []any{container("main", map[string]string{"nvidia.com/gpu": "9"})}}))
	eventually(t, 60*time.Second, "the apiserver stops evaluating the compiled policies", func() error {
		r := kubectl(pod, "-n", "nb-warn", "create", "--dry-run=server", "-o", "name", "-f", "-")
		if strings.Contains(r.Stderr, "ValidatingAdmissionPolicy") {
			return fmt.Errorf("still evaluated: %s", r.Stderr)
		}
		return nil
	})
	f()
}

// nativeWithWebhookDown: backstop mode with the webhook's process gone (its configurations still
// registered, failurePolicy as deployed): the compiled policies still deny what they compile.
func nativeWithWebhookDown(t *testing.T) {
	out := scriptOK(t, "webhook.sh", "stop")
	t.Logf("webhook stopped: %s", out)
	defer func() {
		scriptOK(t, "webhook.sh", "start")
		waitWebhookDenies(t)
	}()
	pod := mustJSON(podOf("down-big", map[string]string{"gpu-admission.io/class": "training"},
		map[string]any{"containers": []any{container("main", map[string]string{"nvidia.com/gpu": "9"})}}))
	r := kubectl(pod, "-n", "nb-enforce", "create", "--dry-run=server", "-o", "name", "-f", "-")
	t.Logf("with the webhook down: %s", r.combined())
	if r.Err == nil {
		t.Fatalf("a pod over the class maximum was admitted with the webhook down")
	}
	// With failurePolicy Fail the webhook's own failure may come first; with Ignore (backstop
	// mode) the compiled policy denies. Either way the pod is refused; the compiled policy's
	// words are checked with the webhook configurations set to Ignore.
	ignore := setWebhookFailurePolicy(t, "Ignore")
	defer ignore()
	eventually(t, 60*time.Second, "the compiled policy denies with the webhook down", nativeEnforced)
	ok := mustJSON(podOf("down-ok", map[string]string{"gpu-admission.io/class": "training"},
		map[string]any{"containers": []any{container("main", map[string]string{"nvidia.com/gpu": "1"})}}))
	if r := kubectl(ok, "-n", "nb-enforce", "create", "--dry-run=server", "-o", "name", "-f", "-"); r.Err != nil {
		t.Errorf("a pod within every compiled rule was refused with the webhook down (failurePolicy Ignore): %s", r.Stderr)
	}
}

// setWebhookFailurePolicy re-applies the webhook configurations with every failurePolicy set to
// p, and returns what restores the installed ones.
func setWebhookFailurePolicy(t *testing.T, p string) func() {
	install := filepath.Join(cluster.Dir, "install", "webhooks-local.yaml")
	data, err := os.ReadFile(install)
	if err != nil {
		t.Fatal(err)
	}
	changed := regexp.MustCompile(`failurePolicy: \w+`).ReplaceAllString(string(data), "failurePolicy: "+p)
	mustKubectl(t, changed, "apply", "-f", "-")
	return func() { mustKubectl(t, "", "apply", "-f", install) }
}

// nativeStatic: `compile --static` written into the static manifest directories the test
// control plane's apiserver reads (testcluster/up.sh; KEP-5793, beta and on by default in
// v1.37), with the compiled API objects' bindings and the webhook configurations removed: the
// static policy alone denies a pod over its class's maximum with the webhook's words, and the
// static mutations alone write the class's priority class and placement. The files are removed
// again (the apiserver re-reads the directories once a minute) before the next suite.
func nativeStatic(t *testing.T) {
	dir := t.TempDir()
	if r := gpua("", "compile", "--to", "native", "--static", "--policies", cluster.Policies, "-o", dir); r.Err != nil {
		t.Fatalf("compile --static: %v\n%s", r.Err, r.combined())
	}
	static := filepath.Join(cluster.Dir, "static")
	var written []string
	for _, plugin := range []string{"validating", "mutating"} {
		files, _ := filepath.Glob(filepath.Join(dir, plugin, "*.yaml"))
		// Policies before their bindings: the apiserver reloads the directory whenever it changes
		// and refuses a binding whose policy it does not find there yet.
		sort.SliceStable(files, func(i, j int) bool {
			return strings.Contains(files[i], "-policy-") && !strings.Contains(files[j], "-policy-")
		})
		for _, f := range files {
			data, _ := os.ReadFile(f)
			to := filepath.Join(static, plugin, filepath.Base(f))
			if err := os.WriteFile(to, data, 0o644); err != nil {
				t.Fatal(err)
			}
			written = append(written, to)
		}
	}
	big := mustJSON(podOf("static-big", map[string]string{"gpu-admission.io/class": "training"},
		map[string]any{"containers": []any{container("main", map[string]string{"nvidia.com/gpu": "9"})}}))
	denied := func() error {
		r := kubectl(big, "-n", "nb-enforce", "create", "--dry-run=server", "-o", "name", "-f", "-")
		if r.Err == nil || !strings.Contains(r.Stderr, "ValidatingAdmissionPolicy 'gpu-admission-enforce.static.k8s.io'") ||
			!strings.Contains(r.Stderr, "asks for 9 nvidia.com/gpu but class training allows at most 8 per pod") {
			return fmt.Errorf("not denied by the static policy in the webhook's words: %s", r.combined())
		}
		return nil
	}
	for _, ns := range nativeNamespaces { // withoutWebhooks probes there
		namespace(t, ns.name, labelsOf(ns.labels))
	}
	withoutWebhooks(t, func() {
		withoutNative(t, func() {
			defer func() {
				for _, f := range written {
					_ = os.Remove(f)
				}
				eventually(t, 150*time.Second, "the apiserver drops the static policies", func() error {
					if r := kubectl(big, "-n", "nb-enforce", "create", "--dry-run=server", "-o", "name", "-f", "-"); r.Err != nil {
						return fmt.Errorf("still denied: %s", r.Stderr)
					}
					return nil
				})
			}()
			eventually(t, 150*time.Second, "the static policy denies", denied)
			ok := mustJSON(podOf("static-ok", map[string]string{"gpu-admission.io/class": "training"},
				map[string]any{"containers": []any{container("main", map[string]string{"nvidia.com/gpu": "1"})}}))
			// The mutating directory is reloaded on its own, a moment after the validating one.
			eventually(t, 150*time.Second, "the static mutations write the class's placement", func() error {
				r := kubectl(ok, "-n", "nb-enforce", "create", "--dry-run=server", "-o", "json", "-f", "-")
				if r.Err != nil {
					return fmt.Errorf("a pod within every rule was refused under the static policies: %s", r.Stderr)
				}
				var stored map[string]any
				_ = json.Unmarshal([]byte(r.Stdout), &stored)
				if got := str(path(stored, "spec", "priorityClassName")); got != "gpu-training" {
					return fmt.Errorf("the static mutations wrote priorityClassName %q, want gpu-training", got)
				}
				if !strings.Contains(mustJSON(path(stored, "spec", "affinity")), "train-h100") {
					return fmt.Errorf("the static mutations wrote no placement on train-h100: %s", mustJSON(path(stored, "spec", "affinity")))
				}
				return nil
			})
		})
	})
}

// nativeLatency: the apiserver's own histograms for the compiled policies next to the webhook's,
// for docs/native-backstop.md and docs/performance.md.
func nativeLatency(t *testing.T) {
	m := apiserverMetrics(t)
	var b strings.Builder
	rows := []struct{ what, metric, match string }{
		{"ValidatingAdmissionPolicy gpu-admission-enforce", "apiserver_validating_admission_policy_check_duration_seconds", `policy="gpu-admission-enforce"`},
		{"ValidatingAdmissionPolicy gpu-admission-warn", "apiserver_validating_admission_policy_check_duration_seconds", `policy="gpu-admission-warn"`},
		{"MutatingAdmissionPolicy gpu-admission-placement", "apiserver_mutating_admission_policy_check_duration_seconds", `policy="gpu-admission-placement"`},
		{"MutatingAdmissionPolicy gpu-admission-resources", "apiserver_mutating_admission_policy_check_duration_seconds", `policy="gpu-admission-resources"`},
		{"webhook mutate.gpu-admission.io", "apiserver_admission_webhook_admission_duration_seconds", `name="mutate.gpu-admission.io"`},
		{"webhook validate-pods.gpu-admission.io", "apiserver_admission_webhook_admission_duration_seconds", `name="validate-pods.gpu-admission.io"`},
	}
	for _, row := range rows {
		buckets := map[float64]float64{}
		m.addBuckets(row.metric, row.match, buckets)
		count := buckets[math.Inf(1)]
		if count == 0 {
			t.Errorf("the apiserver recorded no evaluation of %s (%s)", row.what, row.metric)
			continue
		}
		fmt.Fprintf(&b, "%-48s calls %5.0f  p50 <= %s  p99 <= %s\n", row.what, count,
			quantile(buckets, 0.5), quantile(buckets, 0.99))
	}
	// A compiled mutation that fails is skipped (failurePolicy Ignore) without a word to the user:
	// the apiserver counts it by error type, and none may have failed.
	const checks = "apiserver_mutating_admission_policy_check_total"
	if failed := m.value(checks, `policy="gpu-admission-`) - m.value(checks, `policy="gpu-admission-`, `error_type="no_error"`); failed > 0 {
		t.Errorf("%.0f evaluations of the compiled MutatingAdmissionPolicies failed", failed)
	}
	t.Logf("apiserver-measured latency, compiled policies and webhook:\n%s", b.String())
	writeReport(t, "native-latency.txt", b.String())
}
