#include "cluster/api_config.hpp"

#include <gtest/gtest.h>

#include "cluster/api_client.hpp"
#include "support/cluster_fixtures.hpp"

namespace gpua::cluster {
namespace {

using testing::TempDir;

const char* kKubeconfig = R"(apiVersion: v1
kind: Config
current-context: dev
contexts:
- name: dev
  context: {cluster: c1, user: u1}
- name: prod
  context: {cluster: c2, user: u2}
- name: broken
  context: {cluster: nowhere, user: u1}
clusters:
- name: c1
  cluster: {server: "https://10.0.0.1:6443", certificate-authority: certs/ca.crt}
- name: c2
  cluster: {server: "https://[fd00::1]", certificate-authority-data: Q0EgUEVN}
users:
- name: u1
  user: {tokenFile: token}
- name: u2
  user: {token: static-token}
- name: plugin
  user: {exec: {command: aws}}
)";

TEST(ApiConfig, KubeconfigCurrentContextWithRelativeFiles) {
  TempDir dir;
  std::filesystem::create_directories(dir.file("certs"));
  dir.write("certs/ca.crt", "CA FILE");
  dir.write("token", "tok-1\n");
  const auto path = dir.write("config", kKubeconfig);
  const auto c = loadKubeconfig(path);
  EXPECT_EQ(c.host, "10.0.0.1");
  EXPECT_EQ(c.port, "6443");
  EXPECT_EQ(c.caPem, "CA FILE");
  EXPECT_EQ(c.tokenFile, dir.file("token"));
  EXPECT_EQ(currentToken(c), "tok-1");
  dir.write("token", "tok-2");  // rotated
  EXPECT_EQ(currentToken(c), "tok-2");
  EXPECT_EQ(c.origin, "kubeconfig " + path + ", context dev");
}

TEST(ApiConfig, NamedContextInlineDataAndIpv6) {
  TempDir dir;
  const auto c = loadKubeconfig(dir.write("config", kKubeconfig), "prod");
  EXPECT_EQ(c.host, "fd00::1");
  EXPECT_EQ(c.port, "443");
  EXPECT_EQ(c.url(), "https://[fd00::1]:443");
  EXPECT_EQ(c.caPem, "CA PEM");
  EXPECT_EQ(currentToken(c), "static-token");
}

TEST(ApiConfig, ClearErrors) {
  TempDir dir;
  std::filesystem::create_directories(dir.file("certs"));
  dir.write("certs/ca.crt", "CA FILE");
  const auto path = dir.write("config", kKubeconfig);
  auto message = [](auto f) {
    try {
      f();
    } catch (const ClusterConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message([&] { loadKubeconfig(path, "staging"); }),
            path + ": contexts has no entry named \"staging\"");
  EXPECT_EQ(message([&] { loadKubeconfig(path, "broken"); }),
            path + ": clusters has no entry named \"nowhere\"");
  EXPECT_EQ(message([&] { loadKubeconfig(dir.file("nope")); }),
            "cannot read kubeconfig " + dir.file("nope"));
  EXPECT_NE(message([&] { loadKubeconfig(dir.write("bad", "a: [")); }).find(": invalid kubeconfig"),
            std::string::npos);
  std::string plugin = kKubeconfig;
  plugin.replace(plugin.find("user: u1}\n- name: prod"), 9, "user: plugin}");
  EXPECT_NE(
      message([&] {
        loadKubeconfig(dir.write("plugin", plugin));
      }).find("users[plugin].user: exec and auth-provider credential plugins are not supported"),
      std::string::npos);
  std::string http = kKubeconfig;
  http.replace(http.find("https://10"), 8, "http://");
  EXPECT_NE(
      message([&] { loadKubeconfig(dir.write("http", http)); }).find("must be an https:// URL"),
      std::string::npos);
}

TEST(ApiConfig, InClusterServiceAccount) {
  TempDir dir;
  dir.write("ca.crt", "SA CA");
  dir.write("token", "sa-token\n");
  const auto c = loadInClusterConfig(
      dir.path(), {{"KUBERNETES_SERVICE_HOST", "10.96.0.1"}, {"KUBERNETES_SERVICE_PORT", "443"}});
  EXPECT_EQ(c.url(), "https://10.96.0.1:443");
  EXPECT_EQ(c.caPem, "SA CA");
  EXPECT_EQ(currentToken(c), "sa-token");
  EXPECT_THROW(loadInClusterConfig(dir.path(), {{"UNRELATED", "x"}}), ClusterConfigError);
  EXPECT_THROW(loadInClusterConfig(dir.file("missing"), {{"KUBERNETES_SERVICE_HOST", "h"},
                                                         {"KUBERNETES_SERVICE_PORT", "1"}}),
               ClusterConfigError);
}

TEST(ApiConfig, InvalidCaIsAConfigError) {
  ApiConfig c;
  c.host = "127.0.0.1";
  c.caPem = "-----BEGIN CERTIFICATE-----\nnot base64\n-----END CERTIFICATE-----\n";
  c.origin = "test";
  EXPECT_THROW(ApiClient{c}, ClusterConfigError);
}

TEST(ApiConfig, HttpErrorsSayWhatToFix) {
  ApiConfig c;
  c.host = "k8s";
  c.port = "6443";
  c.origin = "in-cluster service account";
  EXPECT_EQ(describeHttpError(403, "GET", "/api/v1/namespaces?limit=500", "nope", c),
            "Kubernetes API forbids GET https://k8s:6443/api/v1/namespaces (403 Forbidden): grant "
            "the webhook's service account RBAC verbs [list, watch] on resource \"namespaces\" "
            "(apiGroups [\"\"]) in a ClusterRole: nope");
  EXPECT_EQ(describeHttpError(401, "GET", "/api/v1/pods", "", c),
            "Kubernetes API rejected the credentials of in-cluster service account (401 "
            "Unauthorized) for GET https://k8s:6443/api/v1/pods: the token is missing, invalid or "
            "expired");
}

}  // namespace
}  // namespace gpua::cluster
