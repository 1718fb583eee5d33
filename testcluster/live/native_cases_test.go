package live

import (
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// nativePolicyTests: `gpu-admission test --against-native` with only the compiled policies in
// the cluster (docs/native-backstop.md, "Policy tests against the compiled policies"). The
// shipped policy's cases agree with the apiserver, but for the rules the compiler declares it
// does not compile; with the enforce binding removed, the cases it denies are reported as
// differences and the command fails.
func nativePolicyTests(t *testing.T, dir string) {
	withoutWebhooks(t, func() {
		args := []string{"test", filepath.Join(cluster.Root, "policy-tests"), "--policies", cluster.Policies,
			"--against-native", cluster.Kubeconfig}
		r := gpua("", append(args, "-v")...)
		summary := nativeSummary(t, r.Stdout)
		t.Logf("%s", summary)
		if r.Err != nil {
			t.Fatalf("test --against-native failed: %v\n%s\n%s", r.Err, failLines(r.Stdout), r.Stderr)
		}
		counts := nativeCounts(t, summary)
		if counts["compared"] == 0 || counts["agree"] == 0 || counts["differ"] != 0 {
			t.Errorf("want cases compared, some agreeing and none differing: %v", counts)
		}
		writeReport(t, "native-policy-tests.txt", summary+"\n")

		// The enforce binding removed: what the webhook denies by a compiled rule now passes
		// natively, and the command says so.
		mustKubectl(t, "", "delete", "validatingadmissionpolicybinding", "gpu-admission-enforce")
		defer func() {
			mustKubectl(t, "", "apply", "-f", dir)
			eventually(t, 60*time.Second, "the compiled enforce policy denies again", nativeEnforced)
		}()
		eventually(t, 60*time.Second, "the enforce binding no longer denies", func() error {
			if nativeEnforced() == nil {
				return fmt.Errorf("still denied")
			}
			return nil
		})
		broken := gpua("", args...)
		if broken.Err == nil {
			t.Fatalf("with the enforce binding removed, test --against-native passed:\n%s", broken.Stdout)
		}
		if !strings.Contains(broken.Stdout, "compiled) but the native policies admit") {
			t.Errorf("no case reported as denied by the webhook and admitted natively:\n%s", broken.Stdout)
		}
		t.Logf("with the enforce binding removed:\n%s", failLines(broken.Stdout))
	})
}

func nativeSummary(t *testing.T, out string) string {
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "against the native policies in ") {
			return line
		}
	}
	t.Fatalf("no summary line in:\n%s", out)
	return ""
}

// nativeCounts reads "N cases compared: A agree, ... D differ" from the summary.
func nativeCounts(t *testing.T, summary string) map[string]int {
	out := map[string]int{}
	for key, re := range map[string]string{"compared": `(\d+) cases compared`, "agree": `(\d+) agree`, "differ": `(\d+) differ`} {
		m := regexp.MustCompile(re).FindStringSubmatch(summary)
		if m == nil {
			t.Fatalf("no %q in %q", re, summary)
		}
		out[key], _ = strconv.Atoi(m[1])
	}
	return out
}

func failLines(out string) string {
	var b strings.Builder
	for _, line := range strings.Split(out, "\n") {
		if strings.HasPrefix(line, "FAIL") || strings.HasPrefix(line, "     native") {
			b.WriteString(line + "\n")
		}
	}
	return b.String()
}
