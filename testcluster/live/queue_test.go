package live

import (
	"fmt"
	"strings"
	"testing"
	"time"
)

// The queue as the real scheduler makes it: a GPU pod no node can take stays pending and the
// server's gpu_admission_pending_pods and oldest wait show it; a pod the scheduler binds is counted
// once in the schedule-wait histogram; `gpu-admission status --kubeconfig` shows the same queue.
func testQueueObserved(t *testing.T) {
	ns := "queue-warn"
	namespace(t, ns, map[string]string{"env": "staging"})
	before := webhookMetrics(t)
	waitsBefore := before.value("gpu_admission_schedule_wait_seconds_count", `class="training"`)
	mustKubectl(t, gpuPod("too-big", "training", 9), "-n", ns, "create", "-f", "-")
	mustKubectl(t, gpuPod("fits", "training", 1), "-n", ns, "create", "-f", "-")
	eventually(t, 30*time.Second, "pending and bound as the apiserver says", func() error {
		pending := pendingGPUPods(t)
		m := webhookMetrics(t)
		if got := m.value("gpu_admission_pending_pods"); got != float64(pending) {
			return fmt.Errorf("gpu_admission_pending_pods %v, apiserver has %d unbound GPU pods", got, pending)
		}
		if m.value("gpu_admission_pending_oldest_seconds", `class="training"`) <= 0 {
			return fmt.Errorf("no oldest wait for training")
		}
		if got := m.value("gpu_admission_schedule_wait_seconds_count", `class="training"`); got < waitsBefore+1 {
			return fmt.Errorf("schedule waits %v, want at least %v", got, waitsBefore+1)
		}
		return nil
	})
	st := gpua("", "status", "--kubeconfig", cluster.Kubeconfig, "--policies", cluster.Policies)
	t.Logf("gpu-admission status:\n%s", st.combined())
	if st.Err != nil || !strings.Contains(st.Stdout, "train-h100") {
		t.Errorf("status failed or shows no training pool: %s", st.combined())
	}
	kubectl("", "-n", ns, "delete", "pods", "--all", "--grace-period=0", "--force", "--wait=false")
}

// pendingGPUPods counts non-terminal pods without a node that ask for an nvidia.com resource.
func pendingGPUPods(t *testing.T) int {
	n := 0
	for _, p := range asList(getJSON(t, "pods", "-A")["items"]) {
		if str(path(p, "spec", "nodeName")) != "" || path(p, "metadata", "deletionTimestamp") != nil {
			continue
		}
		for _, c := range asList(path(p, "spec", "containers")) {
			gpu := false
			for res := range asMap(path(c, "resources", "limits")) {
				gpu = gpu || strings.HasPrefix(res, "nvidia.com/")
			}
			if gpu {
				n++
				break
			}
		}
	}
	return n
}
