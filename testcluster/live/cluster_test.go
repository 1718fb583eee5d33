// Package live runs gpu-admission behind a real control plane (testcluster/up.sh): the
// kube-apiserver calls the webhook, the scheduler binds the pods it admits, the controllers create
// pods from workloads. Everything a test checks goes through the real apiserver, with kubectl (what a
// user runs and reads) or its REST API (for concurrent creates).
//
// go test ./live/ brings a cluster up and down itself; with GPUA_LIVE_CLUSTER_DIR set to the scratch
// directory of a cluster already up (make cluster-up), it uses that one and leaves it running.
package live

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// env is the test cluster as up.sh recorded it (W/env) plus the paths every test uses.
type env struct {
	Root, Dir, Bin, Binary, Policies, Kubeconfig string
	APIPort, WebhookPort                         string
}

var cluster env

// repoRoot: go test runs a package's tests in its own directory, testcluster/live.
func repoRoot() string {
	wd, err := os.Getwd()
	if err != nil {
		panic(err)
	}
	return filepath.Clean(filepath.Join(wd, "..", ".."))
}

func readEnvFile(path string) (map[string]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	out := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if k, v, ok := strings.Cut(sc.Text(), "="); ok {
			out[k] = v
		}
	}
	return out, sc.Err()
}

func loadEnv(root, dir string) error {
	kv, err := readEnvFile(filepath.Join(dir, "env"))
	if err != nil {
		return fmt.Errorf("no test cluster in %s: %w", dir, err)
	}
	cluster = env{Root: root, Dir: dir, Bin: kv["BIN"], Binary: kv["GPUA_BINARY"], Policies: kv["POLICIES"],
		Kubeconfig: filepath.Join(dir, "admin.kubeconfig"), APIPort: kv["API_PORT"], WebhookPort: kv["WEBHOOK_PORT"]}
	return nil
}

func script(name string, args ...string) *exec.Cmd {
	cmd := exec.Command("bash", append([]string{filepath.Join(cluster.Root, "testcluster", name)}, args...)...)
	cmd.Env = append(os.Environ(), "GPUA_CLUSTER_DIR="+cluster.Dir)
	return cmd
}

func TestMain(m *testing.M) {
	root := repoRoot()
	if dir := os.Getenv("GPUA_LIVE_CLUSTER_DIR"); dir != "" {
		if err := loadEnv(root, dir); err != nil {
			fmt.Fprintln(os.Stderr, "live:", err)
			os.Exit(1)
		}
		os.Exit(m.Run())
	}
	cluster.Root = root
	cluster.Dir = filepath.Join(root, "build", "testcluster-live")
	down := func() {
		cmd := script("down.sh")
		cmd.Env = append(cmd.Env, "GPUA_CLUSTER_KEEP_LOGS=1")
		cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
		_ = cmd.Run()
	}
	// An interrupted run still stops every process it started.
	sig := make(chan os.Signal, 1)
	signal.Notify(sig, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	go func() {
		s := <-sig
		down()
		fmt.Fprintln(os.Stderr, "live: interrupted by", s)
		os.Exit(2)
	}()
	up := script("up.sh")
	up.Stdout, up.Stderr = os.Stderr, os.Stderr
	if err := up.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "live: the test cluster did not come up:", err)
		down()
		os.Exit(1)
	}
	if err := loadEnv(root, cluster.Dir); err != nil {
		fmt.Fprintln(os.Stderr, "live:", err)
		down()
		os.Exit(1)
	}
	code := m.Run()
	down()
	os.Exit(code)
}

// result of a command: what it printed and how it ended.
type result struct {
	Stdout, Stderr string
	Err            error
}

func (r result) combined() string { return r.Stdout + r.Stderr }

func run(stdin string, name string, args ...string) result {
	cmd := exec.Command(name, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.Kubeconfig)
	if stdin != "" {
		cmd.Stdin = strings.NewReader(stdin)
	}
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	return result{out.String(), errb.String(), err}
}

// kubectl runs the control plane's own kubectl against the test cluster.
func kubectl(stdin string, args ...string) result {
	return run(stdin, filepath.Join(cluster.Bin, "kubectl"), args...)
}

func mustKubectl(t *testing.T, stdin string, args ...string) string {
	t.Helper()
	r := kubectl(stdin, args...)
	if r.Err != nil {
		t.Fatalf("kubectl %s: %v\n%s", strings.Join(args, " "), r.Err, r.combined())
	}
	return r.Stdout
}

// gpua runs the gpu-admission binary the webhook runs.
func gpua(stdin string, args ...string) result { return run(stdin, cluster.Binary, args...) }

func getJSON(t *testing.T, args ...string) map[string]any {
	t.Helper()
	var obj map[string]any
	out := mustKubectl(t, "", append(append([]string{"get"}, args...), "-o", "json")...)
	if err := json.Unmarshal([]byte(out), &obj); err != nil {
		t.Fatalf("kubectl get %v: %v", args, err)
	}
	return obj
}

// namespace creates (or relabels) a namespace and waits for its default ServiceAccount, which
// the ServiceAccount admission plugin needs before any pod can be created there.
func namespace(t *testing.T, name string, labels map[string]string) {
	t.Helper()
	meta := map[string]any{"name": name, "labels": labels}
	doc, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Namespace", "metadata": meta})
	mustKubectl(t, string(doc), "apply", "-f", "-")
	eventually(t, 60*time.Second, "default ServiceAccount in "+name, func() error {
		return kubectl("", "-n", name, "get", "serviceaccount", "default").Err
	})
}

func eventually(t *testing.T, limit time.Duration, what string, cond func() error) {
	t.Helper()
	deadline := time.Now().Add(limit)
	for {
		err := cond()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: still not true after %s: %v", what, limit, err)
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// path reads a value from decoded JSON by keys and indices ("spec", "containers", 0, ...).
func path(v any, keys ...any) any {
	for _, k := range keys {
		switch k := k.(type) {
		case string:
			m, ok := v.(map[string]any)
			if !ok {
				return nil
			}
			v = m[k]
		case int:
			a, ok := v.([]any)
			if !ok || k >= len(a) {
				return nil
			}
			v = a[k]
		}
	}
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// jsonField decodes a JSON document and reads one value from it as text ("" when absent).
func jsonField(t *testing.T, doc string, keys ...any) string {
	t.Helper()
	var v any
	if err := json.Unmarshal([]byte(doc), &v); err != nil {
		t.Fatalf("not JSON (%v): %.300s", err, doc)
	}
	switch x := path(v, keys...).(type) {
	case nil:
		return ""
	case string:
		return x
	default:
		b, _ := json.Marshal(x)
		return string(b)
	}
}

// writeTemp writes content to a file in the test's temporary directory.
func writeTemp(t *testing.T, name, content string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// clearPods force-deletes every pod of the namespaces and waits until they are gone: with no
// kubelet, a graceful delete of a bound pod never completes, and the scheduler would go on
// counting it on its node.
func clearPods(t *testing.T, namespaces ...string) {
	t.Helper()
	for _, ns := range namespaces {
		kubectl("", "-n", ns, "delete", "pods", "--all", "--grace-period=0", "--force")
		eventually(t, 30*time.Second, "pods of "+ns+" gone", func() error {
			if out := mustKubectl(t, "", "-n", ns, "get", "pods", "-o", "name"); strings.TrimSpace(out) != "" {
				return fmt.Errorf("left: %s", out)
			}
			return nil
		})
	}
}
