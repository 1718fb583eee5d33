// `gpu-admission test --against-native KUBECONFIG`: each pod case of the suite is also created
// with a server-side dry run in a cluster that runs the compiled native policies alone
// (`gpu-admission compile --to native`, applied, the webhook not registered there), and the
// apiserver's verdict is compared with the webhook's (authoring/native_comparison.hpp). There is
// no CEL evaluator in C++: the apiserver evaluates the compiled policies.
//
// Meant for a test control plane (`make cluster-up`), never production: it creates the cases'
// namespaces there, sets their labels to the cases', and creates the ServiceAccounts their pods
// name.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "authoring/case_checks.hpp"
#include "authoring/native_comparison.hpp"
#include "authoring/test_case.hpp"
#include "cluster/api_client.hpp"
#include "policy/policy_set.hpp"

namespace gpua::cli {

class NativeCases {
 public:
  // Reads which policy revision the cluster runs natively. Throws UsageError when the webhook
  // is registered there too (the dry run would ask it as well) or no compiled policy is there.
  NativeCases(cluster::ApiConfig api, bool verbose);

  // The case's failures: a difference the compiler does not declare.
  std::vector<authoring::CheckFailure> check(const authoring::TestCase& c,
                                             const policy::PolicySet& policy,
                                             const authoring::ReviewReport& webhook);

  // One line: how many cases were compared and how they came out.
  std::string summary() const;
  // True when no case could be compared (all of other policies, or none of pods).
  bool comparedNone() const { return compared_ == 0; }

 private:
  const std::set<std::string, std::less<>>& compiledRules(const policy::PolicySet& policy);
  void ensureNamespace(const std::string& name, const kube::Labels& labels);
  void ensureServiceAccount(const std::string& ns, const rapidjson::Value& pod);
  authoring::NativeAnswer dryRunCreate(const std::string& ns, const rapidjson::Value& pod);
  cluster::ApiResponse call(const std::string& method, const std::string& target,
                            std::string body = {});

  cluster::ApiClient client_;
  std::string server_;
  bool verbose_;
  std::string installedRevision_;
  std::map<std::string, std::set<std::string, std::less<>>> compiledByRevision_;
  std::map<std::string, kube::Labels> namespaces_;  // what this run set them to
  std::set<std::string> serviceAccounts_;           // "namespace/name" known to exist
  int compared_ = 0, otherPolicy_ = 0, notPods_ = 0;
  std::map<authoring::NativeComparison::Result, int> results_;
};

}  // namespace gpua::cli
