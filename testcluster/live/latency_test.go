package live

import (
	"fmt"
	"math"
	"sort"
	"strings"
	"testing"
)

// The apiserver's own view of the webhook's latency after everything above: p50 and p99 of
// apiserver_admission_webhook_admission_duration_seconds per webhook, from its histogram (a figure
// for docs/performance.md, not a timed assertion).
func testApiserverLatency(t *testing.T) {
	m := apiserverMetrics(t)
	var b strings.Builder
	for _, hook := range []string{"mutate.gpu-admission.io", "validate-pods.gpu-admission.io", "validate-templates.gpu-admission.io"} {
		buckets := map[float64]float64{}
		m.addBuckets("apiserver_admission_webhook_admission_duration_seconds", `name="`+hook+`"`, buckets)
		count := buckets[math.Inf(1)]
		if count == 0 {
			t.Errorf("the apiserver recorded no call of %s", hook)
			continue
		}
		fmt.Fprintf(&b, "%-36s calls %5.0f  p50 <= %s  p99 <= %s\n", hook, count,
			quantile(buckets, 0.5), quantile(buckets, 0.99))
	}
	t.Logf("apiserver-measured webhook latency:\n%s", b.String())
	writeReport(t, "apiserver-webhook-latency.txt", b.String())
}

// quantile returns the upper bound of the histogram bucket holding quantile q.
func quantile(cumulative map[float64]float64, q float64) string {
	var bounds []float64
	for k := range cumulative {
		bounds = append(bounds, k)
	}
	sort.Float64s(bounds)
	total := cumulative[math.Inf(1)]
	for _, le := range bounds {
		if cumulative[le] >= q*total {
			if math.IsInf(le, 1) {
				return "+Inf"
			}
			return fmt.Sprintf("%gs", le)
		}
	}
	return "+Inf"
}
