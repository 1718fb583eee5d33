package live

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// createDryRun is `kubectl -n ns create --dry-run=server -o json -f -` for one pod (JSON), as one
// request to the apiserver instead of a kubectl process: a few milliseconds instead of a few
// hundred, which the suites that dry-run hundreds of pods need (the native differential dry-runs
// each pod four times). The request is kubectl's (POST with dryRun=All, kubectl create's field
// manager and strict field validation) and so are the outputs: the object the apiserver would
// store on stdout; on stderr the server's warnings as "Warning: <text>" lines (each once, as
// kubectl prints them) and a refusal as kubectl words it. dryRunMatchesKubectl checks that on
// pods the apiserver admits, mutates, warns about and denies.
func createDryRun(t *testing.T, podJSON, ns string) result {
	t.Helper()
	target := apiURL("/api/v1/namespaces/" + url.PathEscape(ns) +
		"/pods?dryRun=All&fieldManager=kubectl-create&fieldValidation=Strict")
	req, err := http.NewRequest(http.MethodPost, target, strings.NewReader(podJSON))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	resp, err := dryRunClient(t).Do(req)
	if err != nil {
		return result{Stderr: err.Error() + "\n", Err: err}
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return result{Stderr: err.Error() + "\n", Err: err}
	}
	var stderr strings.Builder
	for _, w := range warningTexts(resp.Header.Values("Warning")) {
		fmt.Fprintf(&stderr, "Warning: %s\n", w)
	}
	if resp.StatusCode/100 == 2 {
		return result{Stdout: kubectlPrinted(t, body), Stderr: stderr.String()}
	}
	stderr.WriteString(kubectlRefusal(body))
	return result{Stderr: stderr.String(), Err: fmt.Errorf("the apiserver answered %d", resp.StatusCode)}
}

// kubectlPrinted: the object as `-o json` prints it, without its managed fields (kubectl's
// --show-managed-fields=false).
func kubectlPrinted(t *testing.T, body []byte) string {
	var obj map[string]any
	if err := json.Unmarshal(body, &obj); err != nil {
		t.Fatalf("dry run: the apiserver's answer is no JSON object: %v\n%s", err, body)
	}
	if meta, ok := obj["metadata"].(map[string]any); ok {
		delete(meta, "managedFields")
	}
	out, _ := json.MarshalIndent(obj, "", "    ")
	return string(out) + "\n"
}

// kubectlRefusal words an apiserver Status as kubectl create prints it: an invalid object names
// the kind, the name and each cause; anything else is "Error from server (<reason>): error when
// creating "STDIN": <message>".
func kubectlRefusal(body []byte) string {
	var status struct {
		Message, Reason string
		Details         *struct {
			Kind, Name string
			Causes     []struct{ Field, Message string }
		}
	}
	if err := json.Unmarshal(body, &status); err != nil || status.Message == "" {
		status.Message = strings.TrimSpace(string(body))
	}
	if status.Reason == "Invalid" && status.Details != nil && len(status.Details.Causes) > 0 {
		prefix := fmt.Sprintf("The %s %q is invalid: ", status.Details.Kind, status.Details.Name)
		causes := status.Details.Causes
		if len(causes) == 1 {
			return prefix + causes[0].Field + ": " + causes[0].Message + "\n"
		}
		var b strings.Builder
		b.WriteString(prefix + "\n")
		for _, c := range causes {
			fmt.Fprintf(&b, "* %s: %s\n", c.Field, c.Message)
		}
		return b.String()
	}
	if status.Reason != "" {
		return fmt.Sprintf("Error from server (%s): error when creating \"STDIN\": %s\n", status.Reason, status.Message)
	}
	return fmt.Sprintf("Error from server: error when creating \"STDIN\": %s\n", status.Message)
}

var (
	dryRunOnce sync.Once
	dryRunHTTP *http.Client
)

// One client for the whole run: its kept-alive connections save a TLS handshake per request.
func dryRunClient(t *testing.T) *http.Client {
	dryRunOnce.Do(func() { dryRunHTTP = apiClient(t) })
	return dryRunHTTP
}

// warningTexts: the texts of HTTP Warning headers (`299 - "text"`, RFC 7234 quoted strings, as
// the apiserver writes them), each once, in order.
func warningTexts(headers []string) []string {
	var out []string
	seen := map[string]bool{}
	for _, h := range headers {
		text := h
		if open := strings.IndexByte(h, '"'); open >= 0 {
			text = unquoteWarning(h[open+1:])
		}
		if !seen[text] {
			seen[text] = true
			out = append(out, text)
		}
	}
	return out
}

// unquoteWarning reads a quoted string's content up to its closing quote (backslash escapes one
// character).
func unquoteWarning(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\' && i+1 < len(s):
			i++
			b.WriteByte(s[i])
		case c == '"':
			return b.String()
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// dryRunMatchesKubectl: createDryRun and kubectl give the same verdict, stored pod (but for the
// fields the apiserver makes anew: uid, creation time, the token volume's name), warnings and
// refusal.
func dryRunMatchesKubectl(t *testing.T, pod, ns string) {
	t.Helper()
	fast := createDryRun(t, pod, ns)
	slow := kubectl(pod, "-n", ns, "create", "--dry-run=server", "-o", "json", "-f", "-")
	name := jsonField(t, pod, "metadata", "name")
	if (fast.Err == nil) != (slow.Err == nil) || fast.Stderr != slow.Stderr {
		t.Errorf("%s in %s: the request and kubectl disagree:\nrequest: %v %q\nkubectl: %v %q",
			name, ns, fast.Err, fast.Stderr, slow.Err, slow.Stderr)
		return
	}
	if fast.Err == nil && comparable(t, fast.Stdout) != comparable(t, slow.Stdout) {
		t.Errorf("%s in %s: the stored pods differ:\nrequest: %s\nkubectl: %s", name, ns, fast.Stdout, slow.Stdout)
	}
}

// comparable: a stored object without what the apiserver makes anew on each request.
func comparable(t *testing.T, stored string) string {
	var obj map[string]any
	if err := json.Unmarshal([]byte(stored), &obj); err != nil {
		t.Fatalf("stored object: %v\n%s", err, stored)
	}
	if meta, ok := obj["metadata"].(map[string]any); ok {
		delete(meta, "uid")
		delete(meta, "creationTimestamp")
	}
	withoutTokenVolume(obj) // its name is random per request
	return mustJSON(obj)
}
