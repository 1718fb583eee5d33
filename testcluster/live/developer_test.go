package live

import (
	"strings"
	"testing"
)

const notebookTwoGPUs = `apiVersion: v1
kind: Pod
metadata: {name: jupyter-bob, labels: {component: singleuser-server}}
spec:
  containers:
  - {name: notebook, image: jupyter, resources: {limits: {nvidia.com/gpu: 2}}}
`

// What a developer reads when the webhook denies a pod: kubectl's own error line, naming the
// webhook, then our message with the container, the rule, the numbers and the fix.
func testDeveloperReadsTheDenial(t *testing.T) {
	namespace(t, "dev-alice", map[string]string{"env": "dev"})
	r := kubectl(notebookTwoGPUs, "-n", "dev-alice", "create", "-f", "-")
	if r.Err == nil {
		t.Fatalf("a notebook asking for 2 GPUs in an enforce namespace was created:\n%s", r.combined())
	}
	msg := strings.TrimSpace(r.Stderr)
	t.Logf("kubectl printed:\n%s", msg)
	// /mutate never denies (docs/operations.md): it admits the pod unchanged and the validating
	// webhook, the one with failurePolicy Fail, denies it under its own name.
	const prefix = `Error from server (Forbidden): error when creating "STDIN": admission webhook "validate-pods.gpu-admission.io" denied the request: `
	if !strings.HasPrefix(msg, prefix) {
		t.Fatalf("denial does not start with kubectl's webhook denial line:\n%s", msg)
	}
	for _, want := range []string{"jupyter-bob", "notebook", "2"} {
		if !strings.Contains(msg, want) {
			t.Errorf("denial does not name %q:\n%s", want, msg)
		}
	}
	// The CLI predicts the same words for the same pod and namespace.
	rev := gpua(notebookTwoGPUs, "review", "-f", "-", "-n", "dev-alice", "-l", "env=dev", "-p", cluster.Policies,
		"-o", "json")
	if got := jsonField(t, rev.Stdout, "status", "message"); !strings.Contains(msg, got) || got == "" {
		t.Errorf("review's message %q is not what the apiserver printed", got)
	}
	if r := kubectl("", "-n", "dev-alice", "get", "pod", "jupyter-bob"); r.Err == nil {
		t.Errorf("the denied pod exists")
	}
}

// In a warn namespace the same pod is created and kubectl prints our warnings, each on a
// "Warning:" line of at most 120 characters.
func testWarnModeWarnings(t *testing.T) {
	namespace(t, "staging-bob", map[string]string{"env": "staging"})
	r := kubectl(notebookTwoGPUs, "-n", "staging-bob", "create", "-f", "-")
	if r.Err != nil {
		t.Fatalf("warn mode refused the pod: %s", r.combined())
	}
	var warnings []string
	for _, line := range strings.Split(r.Stderr, "\n") {
		if strings.HasPrefix(line, "Warning: ") {
			warnings = append(warnings, line)
		}
	}
	t.Logf("kubectl printed:\n%s", r.Stderr)
	if len(warnings) == 0 {
		t.Fatalf("no Warning: lines for a pod that breaks a rule in warn mode")
	}
	for _, w := range warnings {
		if n := len(strings.TrimPrefix(w, "Warning: ")); n > 120 {
			t.Errorf("warning of %d characters (> 120): %s", n, w)
		}
	}
	if !strings.Contains(r.Stderr, "notebook") {
		t.Errorf("the warnings do not name the container")
	}
	clearPods(t, "staging-bob")
}
