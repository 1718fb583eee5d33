package live

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

func deploymentYAML(name, class string, replicas int, gpus string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s}
spec:
  replicas: %[3]d
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s, gpu-admission.io/class: %[2]s}}
    spec:
      containers:
      - name: server
        image: vllm/vllm-openai:v0.6.3
        resources: {limits: {nvidia.com/gpu: %[4]s}}
`, name, class, replicas, gpus)
}

// podsOf lists the pods of a label selector as "name class resources" lines.
func podsOf(t *testing.T, ns, selector string) []string {
	out := mustKubectl(t, "", "-n", ns, "get", "pods", "-l", selector, "-o",
		`jsonpath={range .items[*]}{.metadata.name} {.metadata.annotations.gpu-admission\.io/class} {.spec.containers[0].resources.limits}{"\n"}{end}`)
	return strings.Fields(strings.ReplaceAll(strings.TrimSpace(out), "\n", "|"))
}

// Pods that kube-controller-manager creates from a Deployment, a Job and a StatefulSet go through
// the webhook like any other: mutated when the class allows them, and a denied pod shows our
// message in the owner's FailedCreate event.
func testPodsFromControllers(t *testing.T) {
	defer func() {
		for _, ns := range []string{"ctrl-serving", "ctrl-deny", "ctrl-train"} {
			kubectl("", "-n", ns, "delete", "deployments,jobs,statefulsets", "--all")
			clearPods(t, ns)
		}
	}()
	t.Run("DeploymentPodsMutated", func(t *testing.T) {
		namespace(t, "ctrl-serving", map[string]string{"env": "dev", "gpu-admission.io/serving": "true"})
		mustKubectl(t, deploymentYAML("sentiment", "inference", 2, "1"), "-n", "ctrl-serving", "apply", "-f", "-")
		eventually(t, 60*time.Second, "two mutated inference pods", func() error {
			out := mustKubectl(t, "", "-n", "ctrl-serving", "get", "pods", "-l", "app=sentiment", "-o",
				`jsonpath={range .items[*]}{.metadata.annotations.gpu-admission\.io/class}={.spec.containers[0].resources.limits}{"\n"}{end}`)
			lines := strings.Fields(out)
			if len(lines) != 2 {
				return fmt.Errorf("%d pods: %q", len(lines), out)
			}
			for _, l := range lines {
				if !strings.HasPrefix(l, "inference=") || !strings.Contains(l, "nvidia.com/mig-2g.20gb") {
					return fmt.Errorf("pod not mutated to the inference class's MIG slice: %s", l)
				}
			}
			return nil
		})
	})
	t.Run("DeniedPodInFailedCreateEvent", func(t *testing.T) {
		// Created while the namespace only warns (the template check's early warning shows at
		// apply), then the namespace is enforced: the ReplicaSet's pod creates are denied.
		namespace(t, "ctrl-deny", map[string]string{"env": "staging"})
		r := kubectl(deploymentYAML("sentiment", "inference", 0, "1"), "-n", "ctrl-deny", "apply", "-f", "-")
		if r.Err != nil {
			t.Fatalf("apply in a warn namespace failed: %s", r.combined())
		}
		if !strings.Contains(r.Stderr, "Warning: ") {
			t.Errorf("the template check printed no early warning at apply:\n%s", r.combined())
		}
		t.Logf("kubectl apply printed:\n%s", r.Stderr)
		namespace(t, "ctrl-deny", map[string]string{"env": "dev"})
		waitForWebhookToSeeLabels(t, "ctrl-deny", "env=dev")
		mustKubectl(t, "", "-n", "ctrl-deny", "scale", "deployment/sentiment", "--replicas=1")
		eventually(t, 60*time.Second, "FailedCreate event with the webhook's message", func() error {
			out := mustKubectl(t, "", "-n", "ctrl-deny", "get", "events", "--field-selector", "reason=FailedCreate",
				"-o", "jsonpath={range .items[*]}{.message}{\"\\n\"}{end}")
			if !ourDenial.MatchString(out) {
				return fmt.Errorf("events: %q", out)
			}
			return nil
		})
		desc := mustKubectl(t, "", "-n", "ctrl-deny", "describe", "replicaset", "-l", "app=sentiment")
		if !strings.Contains(desc, "FailedCreate") || !strings.Contains(desc, "inference") {
			t.Errorf("kubectl describe replicaset does not show the denial:\n%s", desc)
		}
	})
	t.Run("JobAndStatefulSet", func(t *testing.T) {
		namespace(t, "ctrl-train", map[string]string{"env": "dev", "team": "vision"})
		mustKubectl(t, `apiVersion: batch/v1
kind: Job
metadata: {name: finetune}
spec:
  backoffLimit: 0
  template:
    metadata: {labels: {gpu-admission.io/class: training}}
    spec:
      restartPolicy: Never
      containers:
      - {name: trainer, image: pytorch, resources: {limits: {nvidia.com/gpu: 1}}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: ps}
spec:
  replicas: 1
  serviceName: ps
  selector: {matchLabels: {app: ps}}
  template:
    metadata: {labels: {app: ps, gpu-admission.io/class: training}}
    spec:
      containers:
      - {name: trainer, image: pytorch, resources: {limits: {nvidia.com/gpu: 1}}}
`, "-n", "ctrl-train", "apply", "-f", "-")
		for _, sel := range []string{"job-name=finetune", "app=ps"} {
			eventually(t, 60*time.Second, "mutated training pod of "+sel, func() error {
				out := mustKubectl(t, "", "-n", "ctrl-train", "get", "pods", "-l", sel, "-o",
					`jsonpath={range .items[*]}{.metadata.annotations.gpu-admission\.io/class} {.spec.priorityClassName} {.spec.tolerations[*].key}{"\n"}{end}`)
				if !strings.HasPrefix(out, "training gpu-training") || !strings.Contains(out, "nvidia.com/gpu") {
					return fmt.Errorf("pods of %s: %q", sel, out)
				}
				return nil
			})
		}
	})
}

// A denial by our pod webhook (the validating one: /mutate never denies), as the apiserver
// words it.
var ourDenial = regexp.MustCompile(`admission webhook "validate-pods\.gpu-admission\.io" denied the request: `)

// waitForWebhookToSeeLabels waits until the webhook judges the namespace by its new labels: a
// server-side dry run of the 2-GPU notebook is denied only once it does (enforce mode).
func waitForWebhookToSeeLabels(t *testing.T, ns, labels string) {
	eventually(t, 30*time.Second, "webhook sees "+ns+" labelled "+labels, func() error {
		if kubectl(notebookTwoGPUs, "-n", ns, "create", "--dry-run=server", "-f", "-").Err == nil {
			return fmt.Errorf("still admitted")
		}
		return nil
	})
}
