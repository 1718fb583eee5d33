// Where the Kubernetes API is and how to authenticate: in-cluster service account, or a
// kubeconfig file (current or named context; bearer token, token file or client certificate).
#pragma once

#include <map>
#include <stdexcept>
#include <string>

namespace gpua::cluster {

// A configuration that cannot work (unreadable kubeconfig, missing context, no CA...). The
// message names the file and the key.
class ClusterConfigError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct ApiConfig {
  std::string host;  // DNS name or IP literal (no brackets)
  std::string port = "443";
  std::string caPem;                // PEM bundle to verify the server; empty = system roots
  bool insecureSkipVerify = false;  // kubeconfig insecure-skip-tls-verify (logged loudly)
  std::string token;                // static bearer token
  std::string tokenFile;            // re-read before each request: bound tokens rotate
  std::string clientCertPem, clientKeyPem;
  std::string origin;  // for messages: "in-cluster service account" or "kubeconfig F, context C"

  std::string url() const;  // https://host:port
};

// KUBERNETES_SERVICE_HOST/_PORT from `env` (or the process environment when empty), token and
// CA from `serviceAccountDir`.
ApiConfig loadInClusterConfig(const std::string& serviceAccountDir,
                              const std::map<std::string, std::string>& env = {});

// `context` empty = current-context. Relative file paths resolve against the kubeconfig's
// directory, as kubectl does. exec/auth-provider plugins are refused with a clear message.
ApiConfig loadKubeconfig(const std::string& path, const std::string& context = "");

// Reads the bearer token to send now: tokenFile when set (trimmed), else token.
std::string currentToken(const ApiConfig& config);

}  // namespace gpua::cluster
