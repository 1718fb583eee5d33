// The end-to-end fixture for tests that give the real binary a Kubernetes API to watch: an
// in-process fake API server over TLS and a kubeconfig that points the binary at it.
#pragma once

#include <string>

#include "e2e_fixture.hpp"
#include "support/fake_api_server.hpp"

namespace gpua::testing {

class FakeClusterE2eTest : public E2eTest {
 protected:
  // A kubeconfig in the test's directory: the fake server's CA and the bearer token
  // `e2e-token`.
  std::string kubeconfig() {
    writeFile(work_.path() / "kube" / "ca.crt", api_.caPem());
    const auto path = work_.path() / "kube" / "config";
    writeFile(path, gpua::testing::fakeKubeconfigYaml(api_.port(), "{token: e2e-token}"));
    return path.string();
  }

  gpua::testing::FakeApiServer api_;
};

}  // namespace gpua::testing
