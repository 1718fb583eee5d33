package live

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"
)

// nativeFixtureTests: every policy the policy-tests name (their `policies:` line, the fixtures
// that use the rules the shipped policy does not) compiled and installed alone in the real
// apiserver in turn, and `gpu-admission test --against-native` run over the whole suite (it
// compares the cases of the installed policy and skips the others). No case may differ, and
// every rule the compiler compiles for some policy must be shown denying natively with the
// webhook's own message ("both deny (<rule>)") by at least one case, here or in the shipped
// policy's run (PolicyTestsAgainstNative), so a compiled rule no case reaches is a failure too.
func nativeFixtureTests(t *testing.T, shipped string) {
	suite := filepath.Join(cluster.Root, "policy-tests")
	sets := fixturePolicySets(t, suite)
	proven := map[string]bool{}
	compiledAnywhere := map[string]bool{}
	var report strings.Builder
	for _, ns := range nativeNamespaces { // withoutWebhooks probes there
		namespace(t, ns.name, labelsOf(ns.labels))
	}
	// The apiserver's RuntimeClass plugin refuses a pod naming an unknown runtime class before any
	// admission policy runs: the classes the cases name exist, so their pods are compared.
	for _, rc := range caseRuntimeClasses(t, suite) {
		mustKubectl(t, fmt.Sprintf("apiVersion: node.k8s.io/v1\nkind: RuntimeClass\nmetadata: {name: %s}\nhandler: %s\n", rc, rc),
			"apply", "-f", "-")
		t.Cleanup(func() { kubectl("", "delete", "runtimeclass", rc, "--ignore-not-found") })
	}
	// The compiled priority mutation writes a class's priorityClassName, which the Priority plugin
	// must find: the classes' priority classes exist (those already there are left as they are).
	for _, pc := range fixturePriorityClasses(t, suite) {
		if kubectl("", "get", "priorityclass", pc).Err == nil {
			continue
		}
		mustKubectl(t, "", "create", "priorityclass", pc, "--value=1000")
		t.Cleanup(func() { kubectl("", "delete", "priorityclass", pc, "--ignore-not-found") })
	}
	withoutWebhooks(t, func() {
		removeNative(t)
		defer func() {
			setGlobalDefaultPriority(t, true)
			mustKubectl(t, "", "apply", "-f", shipped)
			eventually(t, 60*time.Second, "the shipped compiled enforce policy denies again", nativeEnforced)
		}()
		// The shipped policy's own cases first: its rules count as proven too.
		sets = append([][]string{{cluster.Policies}}, sets...)
		for _, set := range sets {
			name := strings.Join(relativeTo(set, cluster.Root), " + ")
			compiled, explain := compiledRulesOf(t, set)
			if len(compiled) == 0 { // e.g. a class matched by DRA device class: nothing compiles
				fmt.Fprintf(&report, "%s: nothing compiled:\n%s", name, explain)
				t.Logf("%s: nothing compiled:\n%s", name, explain)
				continue
			}
			for rule := range compiled {
				compiledAnywhere[rule] = true
			}
			// The cluster's global default PriorityClass as the policy declares it: the Priority
			// plugin names it in every pod that names none before admission, and review of the case
			// as written sees it only where the policy says the cluster has it.
			setGlobalDefaultPriority(t, containsPath(set, cluster.Policies) || declaresGlobalDefault(t, set))
			dir := t.TempDir()
			args := []string{"compile", "--to", "native", "-o", dir}
			for _, p := range set {
				args = append(args, "--policies", p)
			}
			if r := gpua("", args...); r.Err != nil {
				t.Fatalf("compile %s: %v\n%s", name, r.Err, r.combined())
			}
			applyNative(t, dir)
			// The admission plugin reads the policies from its own informer, a moment behind the
			// type check's.
			time.Sleep(3 * time.Second)
			r := gpua("", "test", suite, "--policies", cluster.Policies, "--against-native", cluster.Kubeconfig, "-v")
			summary := nativeSummary(t, r.Stdout)
			fmt.Fprintf(&report, "%s: %s\n%s", name, summary, caseLines(r.Stdout))
			t.Logf("%s: %s", name, summary)
			if nativeCounts(t, summary)["compared"] == 0 { // templates only: nothing to create
				removeNative(t)
				continue
			}
			if r.Err != nil {
				t.Errorf("%s: test --against-native failed: %v\n%s\n%s", name, r.Err, failLines(r.Stdout), r.Stderr)
			}
			if counts := nativeCounts(t, summary); counts["compared"] == 0 || counts["differ"] != 0 {
				t.Errorf("%s: want cases compared and none differing: %v", name, counts)
			}
			for _, m := range regexp.MustCompile(`both deny \(([a-z0-9-]+)\)`).FindAllStringSubmatch(r.Stdout, -1) {
				proven[m[1]] = true
			}
			removeNative(t)
		}
	})
	var rules, unproven []string
	for rule := range compiledAnywhere {
		rules = append(rules, rule)
		if !proven[rule] {
			unproven = append(unproven, rule)
		}
	}
	sort.Strings(rules)
	sort.Strings(unproven)
	fmt.Fprintf(&report, "compiled rules shown denying natively with the webhook's message: %d of %d\n",
		len(rules)-len(unproven), len(rules))
	writeReport(t, "native-fixture-tests.txt", report.String())
	if len(unproven) > 0 {
		t.Errorf("compiled rules no policy case shows denying natively with the webhook's message (add a case): %s",
			strings.Join(unproven, ", "))
	}
}

// caseRuntimeClasses: the runtime classes the suite's cases and pod files name, sorted.
func caseRuntimeClasses(t *testing.T, suite string) []string {
	files, _ := filepath.Glob(filepath.Join(suite, "*.yaml"))
	pods, _ := filepath.Glob(filepath.Join(suite, "pods", "*"))
	name := regexp.MustCompile(`"?runtimeClassName"?\s*:\s*"?([a-z0-9][a-z0-9.-]*)`)
	seen := map[string]bool{}
	var out []string
	for _, f := range append(files, pods...) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range name.FindAllSubmatch(data, -1) {
			if rc := string(m[1]); !seen[rc] {
				seen[rc] = true
				out = append(out, rc)
			}
		}
	}
	sort.Strings(out)
	return out
}

// fixturePriorityClasses: the priority classes the fixture policies' classes write, sorted.
func fixturePriorityClasses(t *testing.T, suite string) []string {
	files, _ := filepath.Glob(filepath.Join(suite, "fixtures", "*", "*.yaml"))
	name := regexp.MustCompile(`priorityClassName:\s*([a-z0-9][a-z0-9.-]*)`)
	seen := map[string]bool{}
	var out []string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range name.FindAllSubmatch(data, -1) {
			if pc := string(m[1]); !seen[pc] && !strings.HasPrefix(pc, "system-") {
				seen[pc] = true
				out = append(out, pc)
			}
		}
	}
	sort.Strings(out)
	return out
}

// fixturePolicySets reads the `policies:` line of every case file of the suite: the distinct
// policy sets other than the shipped one, as absolute paths, in a fixed order.
func fixturePolicySets(t *testing.T, suite string) [][]string {
	files, _ := filepath.Glob(filepath.Join(suite, "*.yaml"))
	line := regexp.MustCompile(`(?m)^policies:\s*(.+?)\s*$`)
	seen := map[string]bool{}
	var out [][]string
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := line.FindSubmatch(data)
		if m == nil {
			continue // the shipped policy (--policies)
		}
		var set []string
		for _, p := range strings.Split(strings.Trim(string(m[1]), "[]"), ",") {
			set = append(set, filepath.Clean(filepath.Join(suite, strings.TrimSpace(p))))
		}
		if key := strings.Join(set, ","); !seen[key] {
			seen[key] = true
			out = append(out, set)
		}
	}
	if len(out) == 0 {
		t.Fatalf("no case file of %s names its own policy", suite)
	}
	return out
}

func relativeTo(paths []string, root string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if rel, err := filepath.Rel(root, p); err == nil {
			out[i] = rel
		}
	}
	return out
}

// compiledRulesOf: the rules `compile --explain` lists as compiled for the policy set, and the
// explanation.
func compiledRulesOf(t *testing.T, set []string) (map[string]bool, string) {
	args := []string{"compile", "--to", "native", "--explain"}
	for _, p := range set {
		args = append(args, "--policies", p)
	}
	r := gpua("", args...)
	if r.Err != nil {
		t.Fatalf("compile --explain %v: %v\n%s", set, r.Err, r.combined())
	}
	return explainedCompiled(r.Stdout), r.Stdout
}

// removeNative deletes every compiled object (by the label each carries) and waits until the
// apiserver has forgotten them.
func removeNative(t *testing.T) {
	const kinds = "validatingadmissionpolicybindings,validatingadmissionpolicies," +
		"mutatingadmissionpolicybindings,mutatingadmissionpolicies"
	mustKubectl(t, "", "delete", kinds, "-l", "app.kubernetes.io/managed-by=gpu-admission", "--wait=true")
	eventually(t, 60*time.Second, "the compiled objects are gone", func() error {
		if out := mustKubectl(t, "", "get", kinds, "-l", "app.kubernetes.io/managed-by=gpu-admission", "-o", "name"); strings.TrimSpace(out) != "" {
			return fmt.Errorf("still there: %s", out)
		}
		return nil
	})
}

func containsPath(set []string, p string) bool {
	for _, s := range set {
		if filepath.Clean(s) == filepath.Clean(p) {
			return true
		}
	}
	return false
}

// setGlobalDefaultPriority makes the kit's default-priority PriorityClass the cluster's global
// default (as the shipped policy's globalDefaultPriorityClass says) or not, and waits until the
// Priority plugin fills a pod's priorityClassName accordingly.
func setGlobalDefaultPriority(t *testing.T, on bool) {
	mustKubectl(t, "", "patch", "priorityclass", "default-priority", "--type=merge",
		"-p", fmt.Sprintf(`{"globalDefault":%v}`, on))
	want := map[bool]string{true: "default-priority", false: ""}[on]
	probe := mustJSON(podOf("priority-probe", nil, map[string]any{"containers": []any{container("main", nil)}}))
	eventually(t, 60*time.Second, "the Priority plugin's global default is "+want, func() error {
		r := kubectl(probe, "-n", "nb-enforce", "create", "--dry-run=server", "-o", "jsonpath={.spec.priorityClassName}", "-f", "-")
		if r.Err != nil {
			return fmt.Errorf("%s", r.combined())
		}
		if got := strings.TrimSpace(r.Stdout); got != want {
			return fmt.Errorf("a pod is given %q", got)
		}
		return nil
	})
}

// caseLines: the verbose run's one line per compared case ("native FILE:CASE: what each said").
func caseLines(out string) string {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "     native ") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}

// declaresGlobalDefault: some policy file of the set says default-priority is the cluster's
// global default PriorityClass.
func declaresGlobalDefault(t *testing.T, set []string) bool {
	re := regexp.MustCompile(`globalDefault(PriorityClass)?:\s*default-priority`)
	found := false
	for _, root := range set {
		_ = filepath.Walk(root, func(p string, info os.FileInfo, err error) error {
			if err == nil && !info.IsDir() && strings.HasSuffix(p, ".yaml") {
				if data, err := os.ReadFile(p); err == nil && re.Match(data) {
					found = true
				}
			}
			return nil
		})
	}
	return found
}
