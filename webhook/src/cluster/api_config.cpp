#include "cluster/api_config.hpp"

#include <yaml-cpp/yaml.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "kube/base64.hpp"

namespace gpua::cluster {

namespace {

namespace fs = std::filesystem;

std::string readText(const std::string& path, const std::string& what) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ClusterConfigError("cannot read " + what + " " + path);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string trim(std::string s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string::npos) return "";
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

// A kubeconfig's *-data field: standard base64, possibly wrapped over lines or left unpadded.
std::string decodeData(const std::string& in, const std::string& where) {
  std::string text;
  text.reserve(in.size() + 3);
  for (char c : in)
    if (c != '\n' && c != '\r' && c != ' ') text.push_back(c);
  while (text.size() % 4 != 0) text.push_back('=');
  auto out = kube::base64Decode(text);
  if (!out) throw ClusterConfigError(where + ": invalid base64");
  return std::move(*out);
}

// Splits "https://host:port/path" into host and port (IPv6 literals in brackets).
void parseServer(const std::string& server, const std::string& where, ApiConfig& out) {
  std::string rest = server;
  if (rest.rfind("https://", 0) == 0)
    rest = rest.substr(8);
  else
    throw ClusterConfigError(where + ": server \"" + server +
                             "\" must be an https:// URL (plain http is not supported)");
  rest = rest.substr(0, rest.find('/'));
  if (!rest.empty() && rest.front() == '[') {
    const auto close = rest.find(']');
    if (close == std::string::npos) throw ClusterConfigError(where + ": bad IPv6 server address");
    out.host = rest.substr(1, close - 1);
    if (close + 1 < rest.size() && rest[close + 1] == ':') out.port = rest.substr(close + 2);
  } else {
    const auto colon = rest.rfind(':');
    out.host = rest.substr(0, colon);
    if (colon != std::string::npos) out.port = rest.substr(colon + 1);
  }
  if (out.host.empty()) throw ClusterConfigError(where + ": server \"" + server + "\" has no host");
}

YAML::Node findNamed(const YAML::Node& list, const std::string& name, const std::string& listKey,
                     const std::string& path) {
  if (list && list.IsSequence())
    for (const auto& item : list)
      if (item["name"] && item["name"].as<std::string>() == name) return item;
  throw ClusterConfigError(path + ": " + listKey + " has no entry named \"" + name + "\"");
}

// A file path or inline base64 data, as kubeconfig allows for certificates and keys.
std::string fileOrData(const YAML::Node& node, const std::string& key, const fs::path& baseDir,
                       const std::string& where) {
  if (const auto data = node[key + "-data"]; data)
    return decodeData(data.as<std::string>(), where + "." + key + "-data");
  if (const auto file = node[key]; file) {
    fs::path p = file.as<std::string>();
    if (p.is_relative()) p = baseDir / p;
    return readText(p.string(), where + "." + key);
  }
  return "";
}

std::string envOr(const std::map<std::string, std::string>& env, const char* key) {
  if (!env.empty()) {
    auto it = env.find(key);
    return it == env.end() ? "" : it->second;
  }
  const char* v = std::getenv(key);
  return v == nullptr ? "" : v;
}

}  // namespace

std::string ApiConfig::url() const {
  const bool ipv6 = host.find(':') != std::string::npos;
  return "https://" + (ipv6 ? "[" + host + "]" : host) + ":" + port;
}

ApiConfig loadInClusterConfig(const std::string& serviceAccountDir,
                              const std::map<std::string, std::string>& env) {
  ApiConfig c;
  c.origin = "in-cluster service account (" + serviceAccountDir + ")";
  c.host = envOr(env, "KUBERNETES_SERVICE_HOST");
  c.port = envOr(env, "KUBERNETES_SERVICE_PORT");
  if (c.host.empty() || c.port.empty())
    throw ClusterConfigError(
        "not running in a cluster: KUBERNETES_SERVICE_HOST/KUBERNETES_SERVICE_PORT are unset "
        "(use --kubeconfig outside a cluster)");
  c.caPem = readText(serviceAccountDir + "/ca.crt", "service account CA");
  c.tokenFile = serviceAccountDir + "/token";
  (void)readText(c.tokenFile, "service account token");  // fail early on a missing mount
  return c;
}

ApiConfig loadKubeconfig(const std::string& path, const std::string& context) {
  YAML::Node root;
  try {
    root = YAML::Load(readText(path, "kubeconfig"));
  } catch (const YAML::Exception& e) {
    throw ClusterConfigError(path + ":" + std::to_string(e.mark.line + 1) +
                             ": invalid kubeconfig: " + e.msg);
  }
  try {
    std::string ctxName = context;
    if (ctxName.empty() && root["current-context"])
      ctxName = root["current-context"].as<std::string>();
    if (ctxName.empty())
      throw ClusterConfigError(path + ": no current-context set and no --kube-context given");
    const auto ctx = findNamed(root["contexts"], ctxName, "contexts", path)["context"];
    if (!ctx || !ctx["cluster"])
      throw ClusterConfigError(path + ": context \"" + ctxName + "\" names no cluster");
    const auto clusterName = ctx["cluster"].as<std::string>();
    const auto cluster = findNamed(root["clusters"], clusterName, "clusters", path)["cluster"];
    const fs::path baseDir = fs::path(path).parent_path();
    ApiConfig c;
    c.origin = "kubeconfig " + path + ", context " + ctxName;
    const std::string where = path + ": clusters[" + clusterName + "].cluster";
    if (!cluster || !cluster["server"]) throw ClusterConfigError(where + " has no server");
    parseServer(cluster["server"].as<std::string>(), where + ".server", c);
    c.caPem = fileOrData(cluster, "certificate-authority", baseDir, where);
    c.insecureSkipVerify =
        cluster["insecure-skip-tls-verify"] && cluster["insecure-skip-tls-verify"].as<bool>();
    if (ctx["user"]) {
      const auto userName = ctx["user"].as<std::string>();
      const auto user = findNamed(root["users"], userName, "users", path)["user"];
      const std::string uw = path + ": users[" + userName + "].user";
      if (user && (user["exec"] || user["auth-provider"]))
        throw ClusterConfigError(uw +
                                 ": exec and auth-provider credential plugins are not "
                                 "supported; use a token, tokenFile or client certificate");
      if (user && user["token"]) c.token = user["token"].as<std::string>();
      if (user && user["tokenFile"]) {
        fs::path p = user["tokenFile"].as<std::string>();
        c.tokenFile = (p.is_relative() ? baseDir / p : p).string();
      }
      if (user) {
        c.clientCertPem = fileOrData(user, "client-certificate", baseDir, uw);
        c.clientKeyPem = fileOrData(user, "client-key", baseDir, uw);
      }
      if (c.clientCertPem.empty() != c.clientKeyPem.empty())
        throw ClusterConfigError(uw + ": client-certificate and client-key must be given together");
    }
    return c;
  } catch (const YAML::Exception& e) {
    throw ClusterConfigError(path + ":" + std::to_string(e.mark.line + 1) +
                             ": invalid kubeconfig: " + e.msg);
  }
}

std::string currentToken(const ApiConfig& config) {
  if (config.tokenFile.empty()) return config.token;
  std::ifstream in(config.tokenFile, std::ios::binary);
  if (!in) return config.token;  // mid-rotation: the next request re-reads it
  std::ostringstream s;
  s << in.rdbuf();
  return trim(s.str());
}

}  // namespace gpua::cluster
