package live

import (
	"crypto/sha256"
	"crypto/tls"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

func scriptOK(t *testing.T, name string, args ...string) string {
	t.Helper()
	out, err := script(name, args...).CombinedOutput()
	if err != nil {
		t.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
	return string(out)
}

// What the cluster does when the webhook or the apiserver has a bad day.
func testFaults(t *testing.T) {
	namespace(t, "fault-dev", map[string]string{"env": "dev"})
	namespace(t, "fault-exempt", map[string]string{"gpu-admission.io/webhook": "disabled"})
	t.Run("WebhookKilled", func(t *testing.T) {
		scriptOK(t, "webhook.sh", "stop")
		defer func() { scriptOK(t, "webhook.sh", "start"); waitMarker(t) }()
		// Pods in judged namespaces fail closed with the apiserver's own error...
		r := kubectl(gpuPod("closed", "training", 1), "-n", "fault-dev", "create", "-f", "-")
		if r.Err == nil || !strings.Contains(r.Stderr, `failed calling webhook "validate-pods.gpu-admission.io"`) {
			t.Errorf("a pod was not refused with the apiserver's webhook error while the webhook is down: %s", r.combined())
		}
		// ...exempt namespaces and template applies (failurePolicy Ignore) still work.
		if r := kubectl(gpuPod("exempt", "training", 1), "-n", "fault-exempt", "create", "-f", "-"); r.Err != nil {
			t.Errorf("an exempt namespace's pod was refused: %s", r.combined())
		}
		if r := kubectl(deploymentYAML("during-outage", "training", 0, "1"), "-n", "fault-dev", "apply", "-f", "-"); r.Err != nil {
			t.Errorf("a Deployment apply failed while the webhook is down: %s", r.combined())
		}
	})
	t.Run("WebhookRestarted", func(t *testing.T) {
		if r := kubectl(gpuPod("after-restart", "training", 1), "-n", "fault-dev", "create", "-f", "-"); r.Err != nil {
			t.Errorf("create after the webhook restarted: %s", r.combined())
		}
	})
	t.Run("CertificateRotatedUnderLoad", func(t *testing.T) {
		var failures []string
		var mu sync.Mutex
		stop := make(chan struct{})
		var wg sync.WaitGroup
		calls := 0
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				r := kubectl(gpuPod("rotating", "training", 1), "-n", "fault-dev", "create", "--dry-run=server", "-f", "-")
				mu.Lock()
				calls++
				if r.Err != nil {
					failures = append(failures, firstLine(r.Stderr))
				}
				mu.Unlock()
			}
		}()
		time.Sleep(2 * time.Second)
		fingerprint := scriptOK(t, "webhook.sh", "rotate-cert")
		eventually(t, 30*time.Second, "the webhook serves the new certificate", func() error {
			if got := servedFingerprint(t); !strings.Contains(strings.ToUpper(fingerprint), got) {
				return fmt.Errorf("still serving %s", got)
			}
			return nil
		})
		time.Sleep(2 * time.Second)
		close(stop)
		wg.Wait()
		t.Logf("%d creates while rotating, %d failed", calls, len(failures))
		if len(failures) > 0 {
			t.Errorf("creates failed during the rotation: %v", failures)
		}
	})
	t.Run("ApiserverRestarted", func(t *testing.T) {
		restarts := webhookMetrics(t).value("gpu_admission_watch_restarts_total")
		scriptOK(t, "component.sh", "restart", "kube-apiserver")
		waitMarker(t)
		ns := "fault-quota"
		namespace(t, ns, map[string]string{"env": "dev"})
		mustKubectl(t, gpuPod("counted", "training", 1), "-n", ns, "create", "-f", "-")
		waitForQuotaUsed(t, cluster.WebhookPort, ns, 1)
		if got := webhookMetrics(t).value("gpu_admission_watch_restarts_total"); got <= restarts {
			t.Errorf("the watch restarts counter did not move across an apiserver restart (%v -> %v)", restarts, got)
		}
	})
	kubectl("", "delete", "namespace", "fault-dev", "fault-exempt", "fault-quota", "--wait=false")
}

// waitMarker waits until the apiserver calls the webhook where its configurations point: a server-side
// dry run of a training pod comes back with the webhook's class annotation (up.sh's marker).
func waitMarker(t *testing.T) {
	eventually(t, 60*time.Second, "the apiserver calls the webhook", func() error {
		r := kubectl(markerPod, "-n", "gpua-marker", "create", "--dry-run=server", "-o", "jsonpath={.metadata.annotations}", "-f", "-")
		if !strings.Contains(r.Stdout, "gpu-admission.io/class") {
			return fmt.Errorf("marker not mutated: %s", r.combined())
		}
		return nil
	})
}

// servedFingerprint is the SHA-256 of the certificate the webhook presents, as openssl prints it.
func servedFingerprint(t *testing.T) string {
	conn, err := tls.Dial("tcp", "127.0.0.1:"+cluster.WebhookPort, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatalf("dial the webhook: %v", err)
	}
	defer conn.Close()
	sum := sha256.Sum256(conn.ConnectionState().PeerCertificates[0].Raw)
	parts := make([]string, len(sum))
	for i, b := range sum {
		parts[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(parts, ":")
}
