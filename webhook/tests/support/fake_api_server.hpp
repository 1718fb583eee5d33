// A test Kubernetes API server: TLS on 127.0.0.1 (self-signed, generated in memory), speaking
// the real list and watch protocol for pods, namespaces and nodes: paginated lists with
// limit/continue, chunked watch streams of {"type":...,"object":...} lines, resourceVersion
// semantics, BOOKMARK and ERROR events, 410 Gone after compaction, bearer tokens, RBAC 403s,
// dropped connections; and GET, PUT and POST of ConfigMaps with resourceVersion conflicts.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace gpua::testing {

// A kubeconfig for a client of the fake server on `port`: CA file `ca.crt` beside it, one
// context, and `user` as the user's fields (e.g. "{token: t}" or "{tokenFile: token}").
inline std::string fakeKubeconfigYaml(uint16_t port, const std::string& user) {
  return "apiVersion: v1\nkind: Config\ncurrent-context: fake\ncontexts:\n- name: fake\n"
         "  context: {cluster: fake, user: webhook}\nclusters:\n- name: fake\n"
         "  cluster: {server: \"https://127.0.0.1:" +
         std::to_string(port) +
         "\", certificate-authority: ca.crt}\nusers:\n- name: webhook\n  user: " + user + "\n";
}

class FakeApiServer {
 public:
  FakeApiServer();
  ~FakeApiServer();
  FakeApiServer(const FakeApiServer&) = delete;
  FakeApiServer& operator=(const FakeApiServer&) = delete;

  uint16_t port() const;
  const std::string& caPem() const;  // trust this to talk to the server

  // Objects (JSON text). Each change bumps the resourceVersion and becomes a watch event.
  void upsertPod(const std::string& podJson);  // ADDED or MODIFIED, keyed by namespace/name
  void deletePod(const std::string& ns, const std::string& name);
  void upsertNamespace(const std::string& name, const std::map<std::string, std::string>& labels);
  void deleteNamespace(const std::string& name);
  void upsertNode(const std::string& nodeJson);  // keyed by metadata.name
  void deleteNode(const std::string& name);
  std::string resourceVersion() const;

  void bookmark();  // a BOOKMARK event on every open watch
  // History before the current resourceVersion is gone: watches (and continue tokens) from an
  // older version get 410 Gone, as an ERROR event or, with http410 set, as the HTTP status.
  void compact(bool http410 = false);
  // Closes every open watch abruptly; midEvent first sends half an event line.
  void dropWatches(bool midEvent = false);
  // Only "Bearer <token>" is accepted from now on (empty = no auth); open watches are closed.
  void setToken(const std::string& token);
  // false: every new connection is closed right after accept, and open watches are dropped.
  void setReachable(bool reachable);
  void setForbidden(const std::string& resource,
                    bool forbidden);  // 403 for "pods"/"namespaces"/"nodes"
  // Every ConfigMap request waits this long before its answer (an apiserver busy with a burst);
  // other requests and watches go on meanwhile.
  void setConfigMapDelay(std::chrono::milliseconds delay);

  // Request log: "GET /api/v1/pods?limit=2 token=abc", "PUT /api/v1/namespaces/... token=".
  std::vector<std::string> requests() const;
  int count(const std::string& needle) const;  // requests containing needle
  int openWatches() const;

 private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace gpua::testing
