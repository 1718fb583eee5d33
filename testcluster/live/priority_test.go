package live

import (
	"fmt"
	"strings"
	"testing"
)

// A pod the webhook gives a priorityClassName gets spec.priority from the apiserver's Priority
// plugin, with no "does not match" error; a pod that came with a priority value of its own (a
// dump of a live pod) is handled as docs/policy-testing.md says.
func testPriority(t *testing.T) {
	namespace(t, "prio-train", map[string]string{"env": "dev", "team": "vision"})
	want := strings.TrimSpace(mustKubectl(t, "", "get", "priorityclass", "gpu-training", "-o", "jsonpath={.value}"))
	for _, tc := range []struct{ name, priority string }{{"no-priority", ""}, {"own-priority", "priority: 0\n  "}} {
		pod := fmt.Sprintf(`apiVersion: v1
kind: Pod
metadata: {name: %s, labels: {gpu-admission.io/class: training}}
spec:
  %scontainers:
  - {name: trainer, image: pytorch, resources: {limits: {nvidia.com/gpu: 1}}}
`, tc.name, tc.priority)
		r := kubectl(pod, "-n", "prio-train", "create", "-o",
			"jsonpath={.spec.priorityClassName} {.spec.priority}", "-f", "-")
		t.Logf("%s: %s", tc.name, r.combined())
		if tc.priority != "" && r.Err != nil {
			// The Priority plugin refuses a priority the pod set itself that differs from the
			// class's; the message must be the apiserver's, not a broken patch.
			if !strings.Contains(r.Stderr, "priority") || strings.Contains(r.Stderr, "invalid patch") {
				t.Errorf("%s: refused for another reason: %s", tc.name, r.Stderr)
			}
			continue
		}
		if r.Err != nil {
			t.Fatalf("%s: %s", tc.name, r.combined())
		}
		if got := strings.TrimSpace(r.Stdout); got != "gpu-training "+want {
			t.Errorf("%s: stored priorityClassName/priority %q, want %q", tc.name, got, "gpu-training "+want)
		}
	}
	clearPods(t, "prio-train")
}
