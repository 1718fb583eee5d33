package live

import (
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// Quota reservations (docs/quotas.md): N replicas behind a round-robin TCP balancer, K concurrent
// creates against one quota, whole GPUs, MIG slices and time-slices mixed.

// The replicas of these tests: quotas stay live 5 s after a watch breaks and a reservation no
// pod claims counts 15 s, so the leak checks finish quickly (the defaults are 30 s and 90 s).
const (
	reservationArgs = "--quota-unavailable-grace 5s --quota-reservation-ttl 15s"
	reservationTTL  = 15 * time.Second
	quotaGE         = 2.0 // the shipped dev-namespaces quota, per namespace
)

// GPU-equivalents per unit of the shipped policy's resources (policies/10-pools.yaml).
var gePerUnit = map[string]float64{"nvidia.com/gpu": 1, "nvidia.com/mig-2g.20gb": 2.0 / 7, "nvidia.com/gpu.shared": 0.25}

// mixedPod is burst pod i: a training GPU, an inference pod (rewritten to a 2g.20gb MIG slice)
// or a notebook (rewritten to an L4 time-slice), in turn.
func mixedPod(i int) string {
	class := []string{"training", "inference", "interactive"}[i%3]
	return gpuPod(fmt.Sprintf("burst-%03d", i), class, 1)
}

func trainingPod(i int) string { return gpuPod(fmt.Sprintf("burst-%03d", i), "training", 1) }

type replicas struct {
	lb       string
	ports    []string
	names    []string
	proxy    *exec.Cmd
	proxyLog string // haproxy's stderr: its health checks' verdicts (a replica DOWN, UP again)
}

// logHealth logs what haproxy said about the replicas' health: a replica it took out of the
// rotation during a burst explains an uneven split.
func (rs *replicas) logHealth(t *testing.T) {
	b, err := os.ReadFile(rs.proxyLog)
	if err != nil {
		t.Logf("haproxy's log: %v", err)
		return
	}
	said := false
	for _, line := range strings.Split(string(b), "\n") {
		if strings.Contains(line, "Server replicas/") {
			t.Logf("haproxy: %s", line)
			said = true
		}
	}
	if !said {
		t.Logf("haproxy changed no replica's state")
	}
}

// startReplicas starts n `serve` replicas (serve flags in args) behind haproxy, round robin with
// health checks (as kube-proxy drops an endpoint that is gone), and points the webhook
// configurations at the balancer; the single webhook is stopped meanwhile and restarted after.
// haproxy balances each request: it terminates TLS with the webhook's serving certificate and
// re-encrypts to the replicas. Balancing TCP connections instead (kube-proxy's way) leaves the
// split to the apiserver's kept-alive connections: a replica that answers a little slower gets
// fewer requests (16% and 84% of a burst in one run), which says nothing about quotas.
func startReplicas(t *testing.T, n int, args string) *replicas {
	t.Helper()
	haproxy, err := exec.LookPath("haproxy")
	if err != nil {
		t.Fatal("haproxy not found: testcluster/run-live-tests.sh installs it (apt-get install haproxy)")
	}
	ports := strings.Fields(run("", "python3", "-c", fmt.Sprintf(
		`import socket;s=[socket.socket() for _ in range(%d)];[x.bind(("127.0.0.1",0)) for x in s];print(" ".join(str(x.getsockname()[1]) for x in s))`, n+1)).Stdout)
	certs := filepath.Join(cluster.Dir, "install", "overlay", "certs")
	crt, err1 := os.ReadFile(filepath.Join(certs, "server.crt"))
	key, err2 := os.ReadFile(filepath.Join(certs, "server.key"))
	if err1 != nil || err2 != nil {
		t.Fatalf("serving certificate: %v %v", err1, err2)
	}
	pem := writeTemp(t, "webhook.pem", string(crt)+"\n"+string(key))
	rs := &replicas{lb: ports[0], ports: ports[1:]}
	servers := ""
	for i, port := range rs.ports {
		name := fmt.Sprintf("replica-%d", i+1)
		cmd := script("webhook.sh", "start", name, port)
		cmd.Env = append(cmd.Env, "GPUA_WEBHOOK_ARGS="+args)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%s: %v\n%s", name, err, out)
		}
		rs.names = append(rs.names, name)
		t.Cleanup(func() { _ = script("webhook.sh", "stop", name).Run() })
		servers += fmt.Sprintf("  server r%d 127.0.0.1:%s ssl verify none check inter 500ms fall 1 rise 2\n", i+1, port)
	}
	cfg := writeTemp(t, "haproxy.cfg", fmt.Sprintf(`global
  maxconn 1024
defaults
  mode http
  timeout connect 2s
  timeout client 30s
  timeout server 30s
  timeout check 3s
  retries 3
  option redispatch
frontend webhook
  bind 127.0.0.1:%s ssl crt %s
  default_backend replicas
backend replicas
  balance roundrobin
%s`, rs.lb, pem, servers))
	rs.proxy = exec.Command(haproxy, "-f", cfg, "-db")
	rs.proxyLog = filepath.Join(t.TempDir(), "haproxy.log")
	proxyLog, err := os.Create(rs.proxyLog)
	if err != nil {
		t.Fatal(err)
	}
	defer proxyLog.Close()
	rs.proxy.Stdout, rs.proxy.Stderr = proxyLog, proxyLog
	if err := rs.proxy.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = rs.proxy.Process.Kill(); _ = rs.proxy.Wait() })
	// The single webhook stops first, so the marker proves the apiserver calls the balancer.
	scriptOK(t, "webhook.sh", "stop")
	t.Cleanup(func() {
		scriptOK(t, "webhook.sh", "start")
		pointWebhooksAt(t, "https://127.0.0.1:"+cluster.WebhookPort)
	})
	pointWebhooksAt(t, "https://127.0.0.1:"+rs.lb)
	return rs
}

// validateCalls is each replica's own count of /validate answers so far.
func (rs *replicas) validateCalls(t *testing.T) []float64 {
	var out []float64
	for _, p := range rs.ports {
		out = append(out, webhookMetricsAt(t, p).value("gpu_admission_requests_total", `path="/validate"`))
	}
	return out
}

// validateBuckets sums the replicas' cumulative /validate latency histograms (by upper bound).
func (rs *replicas) validateBuckets(t *testing.T) map[float64]float64 {
	out := map[float64]float64{}
	for _, p := range rs.ports {
		webhookMetricsAt(t, p).addBuckets("gpu_admission_request_duration_seconds", `path="/validate"`, out)
	}
	return out
}

// sum of one metric over the replicas still up.
func (rs *replicas) sum(t *testing.T, name string, matchers ...string) float64 {
	total := 0.0
	for _, p := range rs.ports {
		resp, err := webhookClient(t).Get("https://127.0.0.1:" + p + "/metrics")
		if err != nil {
			continue // a killed replica
		}
		m := parseMetrics(resp.Body)
		resp.Body.Close()
		total += m.value(name, matchers...)
	}
	return total
}

// kill SIGKILLs replica i's process group: a crash, no drain. Called from a goroutine, so it
// reports rather than stops the test.
func (rs *replicas) kill(i int) error {
	b, err := os.ReadFile(filepath.Join(cluster.Dir, "pids", rs.names[i]))
	if err != nil {
		return fmt.Errorf("pid of %s: %v", rs.names[i], err)
	}
	pid, _ := strconv.Atoi(strings.TrimSpace(string(b)))
	if err := syscall.Kill(-pid, syscall.SIGKILL); err != nil {
		return fmt.Errorf("kill %s (%d): %v", rs.names[i], pid, err)
	}
	return nil
}

type burstResult struct {
	created   int
	refusals  map[string]int
	latencies []time.Duration // every create, admitted or not
	// Admitted with the quota checked (no "GPU quota not checked" warning): their GPU-equivalents.
	checkedGE float64
	unchecked int // admitted by quotaUnavailable: failOpen (the API was unreachable)
	admitted  []admittedPod
}

// admittedPod is one create the apiserver accepted: what explains a quota held over its limit.
type admittedPod struct {
	name, uid string
	ge        float64
	warnings  string
	at        time.Duration // since the burst began
}

// podGE is what a created pod (the apiserver's answer) holds in GPU-equivalents.
func podGE(body []byte) float64 {
	var pod any
	if json.Unmarshal(body, &pod) != nil {
		return 0
	}
	ge := 0.0
	containers, _ := path(pod, "spec", "containers").([]any)
	for _, c := range containers {
		limits, _ := path(c, "resources", "limits").(map[string]any)
		for r, q := range limits {
			n, _ := strconv.Atoi(str(q))
			ge += gePerUnit[r] * float64(n)
		}
	}
	return ge
}

// burst POSTs k pods at once through the apiserver's REST API.
func burst(t *testing.T, ns string, k int, pod func(int) string) burstResult {
	client := apiClient(t)
	var mu sync.Mutex
	var wg sync.WaitGroup
	res := burstResult{refusals: map[string]int{}}
	startLine := make(chan struct{})
	start := time.Now()
	for i := 0; i < k; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			<-startLine
			began := time.Now()
			resp, err := client.Post(apiURL("/api/v1/namespaces/"+ns+"/pods"), "application/json", strings.NewReader(pod(i)))
			took := time.Since(began)
			mu.Lock()
			defer mu.Unlock()
			res.latencies = append(res.latencies, took)
			if err != nil {
				res.refusals["transport: "+firstLine(err.Error())]++
				return
			}
			defer resp.Body.Close()
			b, _ := io.ReadAll(resp.Body)
			if resp.StatusCode == http.StatusCreated {
				res.created++
				warnings := strings.Join(resp.Header.Values("Warning"), " | ")
				var created struct{ Metadata struct{ Name, UID string } }
				_ = json.Unmarshal(b, &created)
				res.admitted = append(res.admitted, admittedPod{created.Metadata.Name, created.Metadata.UID, podGE(b), warnings, time.Since(start)})
				if strings.Contains(warnings, "GPU quota not checked") {
					res.unchecked++
				} else {
					res.checkedGE += podGE(b)
				}
				return
			}
			var status struct{ Message string }
			_ = json.Unmarshal(b, &status)
			res.refusals[fmt.Sprintf("%d %s", resp.StatusCode, reasonOf(status.Message))]++
		}(i)
	}
	close(startLine)
	wg.Wait()
	return res
}

func percentile(d []time.Duration, q float64) time.Duration {
	if len(d) == 0 {
		return 0
	}
	s := append([]time.Duration(nil), d...)
	sort.Slice(s, func(i, j int) bool { return s[i] < s[j] })
	return s[int(math.Ceil(q*float64(len(s))))-1]
}

// podsHeld reads the namespace's pods from the apiserver: GPU-equivalents and units per resource
// of those that count (not being deleted), and every pod's uid.
func podsHeld(t *testing.T, ns string) (ge float64, units map[string]int, uids map[string]bool) {
	units, uids = map[string]int{}, map[string]bool{}
	list := getJSON(t, "-n", ns, "pods")
	items, _ := list["items"].([]any)
	for _, item := range items {
		uids[str(path(item, "metadata", "uid"))] = true
		if path(item, "metadata", "deletionTimestamp") != nil {
			continue
		}
		containers, _ := path(item, "spec", "containers").([]any)
		for _, c := range containers {
			limits, _ := path(c, "resources", "limits").(map[string]any)
			for r, q := range limits {
				per, gpu := gePerUnit[r]
				if !gpu {
					continue
				}
				n, _ := strconv.Atoi(str(q))
				units[r] += n
				ge += per * float64(n)
			}
		}
	}
	return ge, units, uids
}

type reservationEntry struct {
	uid, pod, replica string
	since             time.Time
}

func reservationEntries(t *testing.T) []reservationEntry {
	cm := getJSON(t, "-n", "gpu-admission", "configmap", "gpu-admission-quota-reservations")
	data, _ := cm["data"].(map[string]any)
	var out []reservationEntry
	for uid, v := range data {
		var e struct{ Pod, Since, Replica string }
		if err := json.Unmarshal([]byte(str(v)), &e); err != nil {
			t.Fatalf("reservation %s is not JSON: %v", uid, err)
		}
		since, err := time.Parse(time.RFC3339Nano, e.Since)
		if err != nil {
			t.Fatalf("reservation %s: since %q: %v", uid, e.Since, err)
		}
		out = append(out, reservationEntry{uid, e.Pod, e.Replica, since})
	}
	return out
}

// noLeak checks that no reservation counts without its pod once the TTL has passed: every entry
// still within its TTL belongs to a pod that exists; then the namespace's quota is whole again
// (its pods deleted, two 1-GPU pods are admitted at once).
func noLeak(t *testing.T, rs *replicas, ns string) {
	time.Sleep(reservationTTL + time.Second)
	_, _, uids := podsHeld(t, ns)
	for _, e := range reservationEntries(t) {
		if !uids[e.uid] && time.Since(e.since) < reservationTTL {
			t.Errorf("reservation of %s (%s) still counts without a pod", e.pod, e.uid)
		}
	}
	clearPods(t, ns)
	eventually(t, 30*time.Second, "the namespace's pods gone from every live replica", func() error {
		if v := rs.sum(t, "gpu_admission_quota_used", `scope="namespace:`+ns+`"`); v != 0 {
			return fmt.Errorf("still counted: %v", v)
		}
		return nil
	})
	for i := 0; i < 2; i++ {
		if r := kubectl(gpuPod(fmt.Sprintf("after-%d", i), "training", 1), "-n", ns, "create", "-f", "-"); r.Err != nil {
			t.Errorf("after the fault, pod %d of a 2-GPU quota was refused (a leaked reservation?): %s", i+1, firstLine(r.Stderr))
		}
	}
}

// checkHeld fails when the namespace holds more than the quota, and describes what it holds.
func checkHeld(t *testing.T, ns string) (float64, string) {
	ge, units, _ := podsHeld(t, ns)
	if ge > quotaGE+1e-9 {
		t.Errorf("%s holds %.3f GPU-equivalents (%v) under a quota of %v", ns, ge, units, quotaGE)
	}
	if units["nvidia.com/gpu.shared"] > 4 {
		t.Errorf("%s holds %d time-slices under perResource 4", ns, units["nvidia.com/gpu.shared"])
	}
	return ge, fmt.Sprintf("%v", units)
}

// explainHeld logs every admitted pod with its warnings and the reservation that admitted it
// (which replica, when), so a quota held over its limit says how it got there.
func explainHeld(t *testing.T, res burstResult) {
	entries := map[string]reservationEntry{}
	for _, e := range reservationEntries(t) {
		entries[e.uid] = e
	}
	sort.Slice(res.admitted, func(i, j int) bool { return res.admitted[i].at < res.admitted[j].at })
	for _, p := range res.admitted {
		e, ok := entries[p.uid]
		reserved := "no reservation entry"
		if ok {
			reserved = fmt.Sprintf("reserved by %s at %s", e.replica, e.since.Format("15:04:05.000"))
		}
		t.Logf("admitted %s (%s) %.3f GE after %v: %s; warnings: %q", p.name, p.uid, p.ge, p.at.Round(time.Millisecond), reserved, p.warnings)
	}
}

// checkChecked fails when the pods admitted with their quota checked exceed it (those admitted
// while the API was unreachable follow quotaUnavailable: failOpen, with a warning).
func checkChecked(t *testing.T, res burstResult) {
	if res.checkedGE > quotaGE+1e-9 {
		t.Errorf("pods admitted with the quota checked hold %.3f GPU-equivalents under a quota of %v", res.checkedGE, quotaGE)
	}
}

// burstNamespaces counts the uses of each name: a repeated run (go test -count) gets a new
// namespace, as the last one's pods (bound to nodes no kubelet runs) keep it terminating.
var burstNamespaces = map[string]int{}

func burstNamespace(t *testing.T, name string) string {
	if burstNamespaces[name]++; burstNamespaces[name] > 1 {
		name = fmt.Sprintf("%s-%d", name, burstNamespaces[name])
	}
	namespace(t, name, map[string]string{"env": "dev", "gpu-admission.io/serving": "true"})
	t.Cleanup(func() { kubectl("", "delete", "namespace", name, "--wait=false") })
	return name
}

const burstK = 200

func testQuotaReservations(t *testing.T) {
	var report strings.Builder
	fmt.Fprintf(&report, "K=%d concurrent creates, quota %v GPU-equivalents (dev-namespaces, per namespace), replicas behind haproxy round robin\n", burstK, quotaGE)
	for _, n := range []int{2, 3} {
		for _, mechanism := range []bool{false, true} {
			n, mechanism := n, mechanism
			name := fmt.Sprintf("%dReplicasWithout", n)
			args := reservationArgs + " --quota-reservations false"
			if mechanism {
				name, args = fmt.Sprintf("%dReplicasWithReservations", n), reservationArgs
			}
			t.Run(name, func(t *testing.T) {
				rs := startReplicas(t, n, args)
				ns := burstNamespace(t, fmt.Sprintf("burst-%d-%t", n, mechanism))
				before := rs.validateCalls(t)
				buckets0 := rs.validateBuckets(t)
				trips0, reserved0 := rs.sum(t, "gpu_admission_quota_reservation_round_trips_total"),
					rs.sum(t, "gpu_admission_quota_reservations_total", `result="reserved"`)
				conflicts0 := rs.sum(t, "gpu_admission_quota_reservation_conflicts_total")
				res := burst(t, ns, burstK, mixedPod)
				after := rs.validateCalls(t)
				buckets := rs.validateBuckets(t)
				for le := range buckets {
					buckets[le] -= buckets0[le]
				}
				total := 0.0
				var shares []string
				for i := range after {
					total += after[i] - before[i]
				}
				uneven := false
				for i := range after {
					share := (after[i] - before[i]) / total
					shares = append(shares, fmt.Sprintf("%.0f%%", 100*share))
					if share < 0.30 {
						t.Errorf("replica %d answered %.0f of %.0f /validate calls (< 30%%)", i+1, after[i]-before[i], total)
						uneven = true
					}
				}
				if uneven {
					rs.logHealth(t)
				}
				held, heldUnits, _ := podsHeld(t, ns)
				units := fmt.Sprint(heldUnits)
				if mechanism {
					if checkHeld(t, ns); t.Failed() {
						explainHeld(t, res)
					}
				}
				trips := rs.sum(t, "gpu_admission_quota_reservation_round_trips_total") - trips0
				reserved := rs.sum(t, "gpu_admission_quota_reservations_total", `result="reserved"`) - reserved0
				conflicts := rs.sum(t, "gpu_admission_quota_reservation_conflicts_total") - conflicts0
				line := fmt.Sprintf("%d replicas, reservations %-5t: %3d admitted = %.3f GE %s (overshoot %.3f GE); /validate shares %v; "+
					"/validate p50 <= %s p99 <= %s (replicas' histograms); create p50 %v p99 %v; reservation round trips %.0f for %.0f reserved, %.0f conflicts; refusals %v\n",
					n, mechanism, res.created, held, units, math.Max(0, held-quotaGE), shares,
					quantile(buckets, 0.5), quantile(buckets, 0.99), percentile(res.latencies, 0.5).Round(time.Millisecond), percentile(res.latencies, 0.99).Round(time.Millisecond),
					trips, reserved, conflicts, res.refusals)
				t.Log(line)
				report.WriteString(line)
				if mechanism && res.created == 0 {
					t.Errorf("nothing admitted")
				}
			})
		}
	}
	t.Run("ExactlyReachedThenOneDeleted", func(t *testing.T) {
		rs := startReplicas(t, 2, reservationArgs)
		ns := burstNamespace(t, "burst-exact")
		res := burst(t, ns, burstK, trainingPod)
		if held, _ := checkHeld(t, ns); res.created != 2 || held != 2 {
			t.Fatalf("%d 1-GPU pods admitted (%.0f GPU-equivalents held) under a quota of 2, want exactly 2; refusals %v", res.created, held, res.refusals)
		}
		pods := strings.Fields(mustKubectl(t, "", "-n", ns, "get", "pods", "-o", "name"))
		mustKubectl(t, "", "-n", ns, "delete", pods[0], "--grace-period=0", "--force")
		eventually(t, 20*time.Second, "one more pod admitted after the delete", func() error {
			if r := kubectl(gpuPod("one-more", "training", 1), "-n", ns, "create", "-f", "-"); r.Err != nil {
				return fmt.Errorf("%s", firstLine(r.Stderr))
			}
			return nil
		})
		if r := kubectl(gpuPod("too-many", "training", 1), "-n", ns, "create", "-f", "-"); r.Err == nil {
			t.Errorf("a third GPU was admitted once the quota was full again")
		}
		checkHeld(t, ns)
		fmt.Fprintf(&report, "exactly reached: %d of %d admitted; one deleted, one more admitted, the next refused\n", res.created, burstK)
		_ = rs
	})
	t.Run("ReplicaKilledMidBurst", func(t *testing.T) {
		// The mutating webhook's calls in flight to the killed replica fail, and its
		// failurePolicy Ignore lets those pods on unmutated: notebooks keep a whole GPU. The
		// validating webhook must charge them that GPU, not the time-slice they would have become
		// (it charged the quarter once and the namespace held 3 GPUs under a quota of 2).
		rs := startReplicas(t, 2, reservationArgs)
		ns := burstNamespace(t, "burst-kill")
		killed := make(chan error, 1)
		began := time.Now()
		go func() {
			time.Sleep(400 * time.Millisecond)
			killed <- rs.kill(1)
		}()
		res := burst(t, ns, burstK, mixedPod)
		took := time.Since(began)
		if err := <-killed; err != nil {
			t.Fatal(err)
		}
		checkChecked(t, res)
		held, units := checkHeld(t, ns)
		if t.Failed() {
			explainHeld(t, res)
		}
		fmt.Fprintf(&report, "replica killed 400ms into a %v burst: %d admitted = %.3f GE %s; refusals %v\n",
			took.Round(time.Millisecond), res.created, held, units, res.refusals)
		t.Logf("%d admitted = %.3f GE %s; refusals %v", res.created, held, units, res.refusals)
		noLeak(t, rs, ns)
	})
	t.Run("ApiserverRestartedMidBurst", func(t *testing.T) {
		rs := startReplicas(t, 2, reservationArgs)
		ns := burstNamespace(t, "burst-restart")
		done := make(chan struct{})
		go func() {
			defer close(done)
			time.Sleep(100 * time.Millisecond)
			_, _ = script("component.sh", "restart", "kube-apiserver").CombinedOutput()
		}()
		res := burst(t, ns, burstK, mixedPod)
		<-done
		waitMarker(t)
		checkChecked(t, res)
		held, heldUnits, _ := podsHeld(t, ns)
		line := fmt.Sprintf("apiserver restarted mid-burst: %d admitted = %.3f GE %v, of which %.3f GE with the quota checked "+
			"and %d with \"GPU quota not checked\" (quotaUnavailable: failOpen); refusals %v\n",
			res.created, held, heldUnits, res.checkedGE, res.unchecked, res.refusals)
		report.WriteString(line)
		t.Log(line)
		noLeak(t, rs, ns)
	})
	t.Log(report.String())
	writeReport(t, "quota-reservations.txt", report.String())
}
