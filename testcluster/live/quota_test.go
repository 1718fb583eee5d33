package live

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func gpuPod(name, class string, gpus int) string {
	return fmt.Sprintf(`{"apiVersion":"v1","kind":"Pod","metadata":{"name":%q,"labels":{"gpu-admission.io/class":%q}},`+
		`"spec":{"containers":[{"name":"main","image":"pytorch","resources":{"limits":{"nvidia.com/gpu":"%d"}}}]}}`,
		name, class, gpus)
}

// Usage watched from the real apiserver: pods are created until the namespace's quota (the shipped
// dev-namespaces quota, 2 GPU-equivalents per namespace) is reached, the next is denied with the
// numbers, and a deleted pod frees its share within seconds.
func testLiveQuota(t *testing.T) {
	ns := "quota-dev"
	namespace(t, ns, map[string]string{"env": "dev"})
	for i := 1; i <= 2; i++ {
		mustKubectl(t, gpuPod(fmt.Sprintf("train-%d", i), "training", 1), "-n", ns, "create", "-f", "-")
		waitForQuotaUsed(t, cluster.WebhookPort, ns, float64(i))
	}
	r := kubectl(gpuPod("train-3", "training", 1), "-n", ns, "create", "-f", "-")
	if r.Err == nil {
		t.Fatalf("a third GPU in a namespace with a 2-GPU quota was admitted")
	}
	t.Logf("denial: %s", r.Stderr)
	for _, want := range []string{"dev-namespaces", "2"} {
		if !strings.Contains(r.Stderr, want) {
			t.Errorf("quota denial does not name %q: %s", want, r.Stderr)
		}
	}
	start := time.Now()
	mustKubectl(t, "", "-n", ns, "delete", "pod", "train-1", "--grace-period=0", "--force")
	eventually(t, 10*time.Second, "the deleted pod's share freed", func() error {
		if r := kubectl(gpuPod("train-3", "training", 1), "-n", ns, "create", "-f", "-"); r.Err != nil {
			return fmt.Errorf("%s", firstLine(r.Stderr))
		}
		return nil
	})
	t.Logf("share freed %.1fs after the delete", time.Since(start).Seconds())
	kubectl("", "-n", ns, "delete", "pods", "--all", "--grace-period=0", "--force", "--wait=false")
}

// waitForQuotaUsed waits until a replica's ledger counts used GPU-equivalents in ns.
func waitForQuotaUsed(t *testing.T, port, ns string, want float64) {
	eventually(t, 20*time.Second, fmt.Sprintf("quota used in %s = %v", ns, want), func() error {
		got := webhookMetricsAt(t, port).value("gpu_admission_quota_used", `quota="dev-namespaces"`,
			`scope="namespace:`+ns+`"`)
		if got != want {
			return fmt.Errorf("got %v", got)
		}
		return nil
	})
}

// createConcurrently POSTs k pods at once through the apiserver's REST API and counts how many
// were created.
func createConcurrently(t *testing.T, ns string, k int) (created int, errs map[string]int) {
	client := apiClient(t)
	var mu sync.Mutex
	var wg sync.WaitGroup
	errs = map[string]int{}
	startLine := make(chan struct{})
	for i := 0; i < k; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-startLine
			body := gpuPod(fmt.Sprintf("burst-%03d", i), "training", 1)
			resp, err := client.Post(apiURL("/api/v1/namespaces/"+ns+"/pods"), "application/json", strings.NewReader(body))
			mu.Lock()
			defer mu.Unlock()
			if err != nil {
				errs[err.Error()]++
				return
			}
			defer resp.Body.Close()
			if resp.StatusCode == http.StatusCreated {
				created++
				return
			}
			var status struct{ Message string }
			b, _ := io.ReadAll(resp.Body)
			_ = json.Unmarshal(b, &status)
			errs[fmt.Sprintf("%d %s", resp.StatusCode, reasonOf(status.Message))]++
		}(i)
	}
	close(startLine)
	wg.Wait()
	return created, errs
}

func reasonOf(msg string) string {
	switch {
	case strings.Contains(msg, "failed calling webhook"):
		// The apiserver could not get an answer (failurePolicy decides): say why, without the URL.
		if i := strings.LastIndex(msg, `": `); i >= 0 {
			return "webhook call failed: " + firstLine(msg[i+3:])
		}
		return "webhook call failed"
	case strings.Contains(msg, "gpu-admission.io"):
		return "denied by gpu-admission"
	case strings.Contains(msg, "exceeded quota"):
		return "denied by ResourceQuota"
	}
	return firstLine(msg)
}

// Two webhook replicas behind a round-robin TCP balancer (haproxy, as kube-proxy spreads a
// Service), quota reservations off, and K concurrent creates against one quota: how far
// admissions overshoot it, then what the native ResourceQuota rendered by `gpu-admission quotas
// render` stops.
func testReplicasAgainstOneQuota(t *testing.T) {
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatal("haproxy not found: testcluster/run-live-tests.sh installs it (apt-get install haproxy)")
	}
	const k = 40
	ports := strings.Fields(run("", "python3", "-c",
		`import socket;s=[socket.socket() for _ in range(3)];[x.bind(("127.0.0.1",0)) for x in s];print(" ".join(str(x.getsockname()[1]) for x in s))`).Stdout)
	lb, r1, r2 := ports[0], ports[1], ports[2]
	for i, port := range []string{r1, r2} {
		cmd := script("webhook.sh", "start", fmt.Sprintf("replica-%d", i+1), port)
		// Today's overshoot and the native backstop, without quota reservations
		// (QuotaReservations measures them).
		cmd.Env = append(cmd.Env, "GPUA_WEBHOOK_ARGS=--quota-reservations false")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("replica %d: %v\n%s", i+1, err, out)
		}
		defer script("webhook.sh", "stop", fmt.Sprintf("replica-%d", i+1)).Run()
	}
	cfg := writeTemp(t, "haproxy.cfg", fmt.Sprintf(`global
  maxconn 1024
defaults
  mode tcp
  timeout connect 2s
  timeout client 30s
  timeout server 30s
frontend webhook
  bind 127.0.0.1:%s
  default_backend replicas
backend replicas
  balance roundrobin
  server r1 127.0.0.1:%s
  server r2 127.0.0.1:%s
`, lb, r1, r2))
	proxy := exec.Command(haproxy, "-f", cfg, "-db")
	if err := proxy.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = proxy.Process.Kill(); _ = proxy.Wait() }()
	// The single webhook stops first, so the marker proves the apiserver calls the balancer.
	if out, err := script("webhook.sh", "stop").CombinedOutput(); err != nil {
		t.Fatalf("stop the webhook: %v\n%s", err, out)
	}
	defer func() {
		if out, err := script("webhook.sh", "start").CombinedOutput(); err != nil {
			t.Fatalf("restart the webhook: %v\n%s", err, out)
		}
		pointWebhooksAt(t, "https://127.0.0.1:"+cluster.WebhookPort)
	}()
	pointWebhooksAt(t, "https://127.0.0.1:"+lb)

	ns := "quota-burst"
	namespace(t, ns, map[string]string{"env": "dev"})
	before := []float64{requestsServed(t, r1), requestsServed(t, r2)}
	created, errs := createConcurrently(t, ns, k)
	served := []float64{requestsServed(t, r1) - before[0], requestsServed(t, r2) - before[1]}
	total := served[0] + served[1]
	report := fmt.Sprintf("K=%d concurrent 1-GPU creates, quota 2 GPU-equivalents (dev-namespaces, per namespace), 2 replicas behind haproxy round robin\n"+
		"webhook only: %d admitted (overshoot %d), refusals %v; replica calls %v / %v\n", k, created, created-2, errs, served[0], served[1])
	for i, s := range served {
		if total == 0 || s/total < 0.3 {
			t.Errorf("replica %d answered %.0f of %.0f calls (< 30%%)", i+1, s, total)
		}
	}
	if created < 2 {
		t.Errorf("only %d pods admitted under a 2-GPU quota", created)
	}
	kubectl("", "-n", ns, "delete", "pods", "--all", "--grace-period=0", "--force")
	eventually(t, 30*time.Second, "burst pods gone from both ledgers", func() error {
		for _, p := range []string{r1, r2} {
			if v := webhookMetricsAt(t, p).value("gpu_admission_quota_used", `scope="namespace:`+ns+`"`); v != 0 {
				return fmt.Errorf("replica on %s still counts %v", p, v)
			}
		}
		return nil
	})

	// The native backstop: the apiserver's own ResourceQuota plugin serializes its updates.
	rendered := gpua("", "quotas", "render", "--policies", cluster.Policies, "--namespace", ns+"=env=dev")
	if rendered.Err != nil {
		t.Fatalf("quotas render: %s", rendered.combined())
	}
	mustKubectl(t, rendered.Stdout, "-n", ns, "apply", "-f", "-")
	eventually(t, 30*time.Second, "ResourceQuota status filled by the controller", func() error {
		out := mustKubectl(t, "", "-n", ns, "get", "resourcequota", "-o", "jsonpath={.items[*].status.hard}")
		if !strings.Contains(out, "nvidia.com/gpu") {
			return fmt.Errorf("status.hard %q", out)
		}
		return nil
	})
	created2, errs2 := createConcurrently(t, ns, k)
	report += fmt.Sprintf("with the rendered ResourceQuota: %d admitted (overshoot %d), refusals %v\n", created2, created2-2, errs2)
	if created2 > 2 {
		t.Errorf("with the native ResourceQuota applied, %d 1-GPU pods were admitted against a limit of 2", created2)
	}
	t.Log(report)
	writeReport(t, "quota-overshoot.txt", report)
	kubectl("", "-n", ns, "delete", "pods", "--all", "--grace-period=0", "--force", "--wait=false")
}

func requestsServed(t *testing.T, port string) float64 {
	m := webhookMetricsAt(t, port)
	return m.value("gpu_admission_requests_total", `path="/mutate"`) + m.value("gpu_admission_requests_total", `path="/validate"`)
}

// pointWebhooksAt re-applies the webhook configurations with every URL based at base, and waits
// until the apiserver calls it (a marker dry run comes back mutated).
func pointWebhooksAt(t *testing.T, base string) {
	out, err := script("webhook_url.sh", filepath.Join(cluster.Dir, "install", "webhooks.yaml"), base).Output()
	if err != nil {
		t.Fatalf("webhook_url.sh: %v", err)
	}
	mustKubectl(t, string(out), "apply", "-f", "-")
	waitMarker(t)
}

const markerPod = `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"marker","labels":{"gpu-admission.io/class":"training"}},"spec":{"containers":[{"name":"c","image":"cuda","resources":{"limits":{"nvidia.com/gpu":"1"}}}]}}`
