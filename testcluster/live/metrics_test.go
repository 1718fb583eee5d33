package live

import (
	"bufio"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// metrics is a Prometheus text exposition: one line per series.
type metrics []string

// value sums the series of a metric whose labels contain every matcher (`pool="x"`).
func (m metrics) value(name string, matchers ...string) float64 {
	var sum float64
	for _, line := range m {
		if !strings.HasPrefix(line, name+"{") && !strings.HasPrefix(line, name+" ") {
			continue
		}
		ok := true
		for _, want := range matchers {
			ok = ok && strings.Contains(line, want)
		}
		if !ok {
			continue
		}
		if v, err := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64); err == nil {
			sum += v
		}
	}
	return sum
}

// addBuckets adds the cumulative buckets of histogram `family` whose series contain `match`
// (`name="x"`) to `into`, by upper bound (+Inf included): summed over every matching series.
func (m metrics) addBuckets(family, match string, into map[float64]float64) {
	for _, line := range m {
		if !strings.HasPrefix(line, family+"_bucket{") || !strings.Contains(line, match) {
			continue
		}
		le := line[strings.Index(line, `le="`)+4:]
		le = le[:strings.IndexByte(le, '"')]
		bound := math.Inf(1)
		if le != "+Inf" {
			bound, _ = strconv.ParseFloat(le, 64)
		}
		v, _ := strconv.ParseFloat(line[strings.LastIndexByte(line, ' ')+1:], 64)
		into[bound] += v
	}
}

func parseMetrics(body io.Reader) metrics {
	var out metrics
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if line := sc.Text(); line != "" && !strings.HasPrefix(line, "#") {
			out = append(out, line)
		}
	}
	return out
}

// webhookClient trusts the CA of the webhook's serving certificate (the overlay's caBundle).
func webhookClient(t *testing.T) *http.Client {
	pem, err := os.ReadFile(filepath.Join(cluster.Dir, "install", "overlay", "certs", "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &http.Client{Timeout: 10 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}}}
}

func webhookMetricsAt(t *testing.T, port string) metrics {
	resp, err := webhookClient(t).Get("https://127.0.0.1:" + port + "/metrics")
	if err != nil {
		t.Fatalf("webhook metrics: %v", err)
	}
	defer resp.Body.Close()
	return parseMetrics(resp.Body)
}

func webhookMetrics(t *testing.T) metrics { return webhookMetricsAt(t, cluster.WebhookPort) }

// apiClient talks to the apiserver's REST API as the admin user (client certificate).
func apiClient(t *testing.T) *http.Client {
	pki := filepath.Join(cluster.Dir, "pki")
	cert, err := tls.LoadX509KeyPair(filepath.Join(pki, "admin.crt"), filepath.Join(pki, "admin.key"))
	if err != nil {
		t.Fatal(err)
	}
	pem, err := os.ReadFile(filepath.Join(pki, "ca.crt"))
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(pem)
	return &http.Client{Timeout: 60 * time.Second, Transport: &http.Transport{
		MaxIdleConnsPerHost: 256,
		TLSClientConfig:     &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}}}}
}

// apiserverMetrics reads the apiserver's own /metrics.
func apiserverMetrics(t *testing.T) metrics {
	t.Helper()
	resp, err := apiClient(t).Get(apiURL("/metrics"))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	return parseMetrics(resp.Body)
}

func apiURL(p string) string { return "https://127.0.0.1:" + cluster.APIPort + p }

// writeReport keeps a figure of this run in build/testcluster-report/ (the docs quote them).
func writeReport(t *testing.T, name, content string) {
	dir := filepath.Join(cluster.Root, "build", "testcluster-report")
	_ = os.MkdirAll(dir, 0o755)
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Errorf("report %s: %v", name, err)
	}
	fmt.Fprintf(os.Stderr, "live: wrote %s\n", filepath.Join(dir, name))
}
