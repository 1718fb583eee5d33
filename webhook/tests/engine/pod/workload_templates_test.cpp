// Workload kinds: pod templates are classified and validated, no quota; mutated like their pods
// only for the kinds of spec.mutateTemplates (CREATE and UPDATE).
#include <gtest/gtest.h>

#include "test_support.hpp"

namespace gpua::engine {
namespace {

using namespace testing;

RequestContext workload(const std::string& group, const std::string& kind) {
  RequestContext c = podContext();
  c.group = group;
  c.kind = kind;
  return c;
}

const std::string kTemplate16 =
    R"({"metadata":{"labels":{"gpu-admission.io/class":"training"}},"spec":{"containers":[)"
    R"({"name":"pytorch","resources":{"limits":{"nvidia.com/gpu":16}}}]}})";
const std::string kTemplateOk =
    R"({"metadata":{"labels":{"gpu-admission.io/class":"training"}},"spec":{"containers":[)"
    R"({"name":"pytorch","resources":{"limits":{"nvidia.com/gpu":1}}}]}})";

TEST(Workloads, DeploymentTemplateIsValidated) {
  rapidjson::Document d =
      parse(R"({"metadata":{"name":"x"},"spec":{"template":)" + kTemplate16 + "}}");
  const Decision decision = decide(d, workload("apps", "Deployment"), makePolicy(), emptyUsage());
  EXPECT_EQ(decision.outcome, Decision::Outcome::Classified);
  EXPECT_EQ(decision.className, "training");
  ASSERT_FALSE(decision.allowed());
  EXPECT_EQ(decision.denial->message,
            "Deployment \"x\" pod template (spec.template) container \"pytorch\" asks for 16 "
            "nvidia.com/gpu but class training allows at most 8 per pod: split the job across "
            "more pods or ask the platform team for a larger limit");
  EXPECT_TRUE(decision.patch.empty());
}

TEST(Workloads, ValidTemplateIsAdmittedUnchanged) {
  UsageSnapshot full = emptyUsage();
  full.namespaces["ml-research"].gpuEquivalents = 1000;  // quotas do not apply to templates
  auto p = makePolicy();
  p.quotas[0].namespaces = {};
  rapidjson::Document d =
      parse(R"({"metadata":{"name":"x"},"spec":{"template":)" + kTemplateOk + "}}");
  const Decision decision = decide(d, workload("apps", "StatefulSet"), p, full);
  EXPECT_TRUE(decision.allowed());
  EXPECT_TRUE(decision.patch.empty());
  EXPECT_EQ(decision.reason,
            "spec.template: label gpu-admission.io/class=training (class training, match rule 1)");
}

TEST(Workloads, CronJobTemplatePath) {
  rapidjson::Document d =
      parse(R"({"metadata":{"name":"nightly"},"spec":{"jobTemplate":{"spec":{"template":)" +
            kTemplate16 + "}}}}");
  const Decision decision = decide(d, workload("batch", "CronJob"), makePolicy(), emptyUsage());
  ASSERT_FALSE(decision.allowed());
  EXPECT_EQ(decision.denial->message.rfind(
                "CronJob \"nightly\" pod template (spec.jobTemplate.spec.template) container", 0),
            0u);
}

// The core group's controllers: a ReplicationController keeps its template at spec.template, a
// PodTemplate at template (no spec).
TEST(Workloads, ReplicationControllerTemplateIsValidated) {
  rapidjson::Document d =
      parse(R"({"metadata":{"name":"rc"},"spec":{"template":)" + kTemplate16 + "}}");
  const Decision decision =
      decide(d, workload("", "ReplicationController"), makePolicy(), emptyUsage());
  ASSERT_FALSE(decision.allowed()) << decision.reason;
  EXPECT_EQ(decision.denial->message.rfind(
                "ReplicationController \"rc\" pod template (spec.template) container", 0),
            0u);
}

TEST(Workloads, PodTemplateTemplateIsValidated) {
  rapidjson::Document d = parse(R"({"metadata":{"name":"pt"},"template":)" + kTemplate16 + "}");
  const Decision decision = decide(d, workload("", "PodTemplate"), makePolicy(), emptyUsage());
  ASSERT_FALSE(decision.allowed()) << decision.reason;
  EXPECT_EQ(
      decision.denial->message.rfind("PodTemplate \"pt\" pod template (template) container", 0),
      0u);
}

TEST(Workloads, PyTorchJobViaTemplateKinds) {
  const std::string job = R"({"metadata":{"name":"mnist"},"spec":{"pytorchReplicaSpecs":{)"
                          R"("Master":{"replicas":1,"template":)" +
                          kTemplateOk +
                          R"(},)"
                          R"("Worker":{"replicas":3,"template":)" +
                          kTemplate16 + "}}}}";
  rapidjson::Document d = parse(job);
  const Decision decision =
      decide(d, workload("kubeflow.org", "PyTorchJob"), makePolicy(), emptyUsage());
  ASSERT_FALSE(decision.allowed());
  ASSERT_EQ(decision.violations.size(), 1u);
  EXPECT_EQ(decision.denial->message.rfind(
                "PyTorchJob \"mnist\" pod template (spec.pytorchReplicaSpecs.Worker.template) "
                "container \"pytorch\" asks for 16",
                0),
            0u);
  // Unknown custom kinds are left alone.
  EXPECT_EQ(decide(d, workload("kubeflow.org", "TFJob"), makePolicy(), emptyUsage()).outcome,
            Decision::Outcome::NotApplicable);
}

TEST(Workloads, UnclassifiedGpuTemplateAndCpuTemplate) {
  rapidjson::Document gpu = parse(
      R"({"metadata":{"name":"x"},"spec":{"template":{"spec":{"containers":[{"name":"c","resources":{"limits":{"nvidia.com/gpu":1}}}]}}}})");
  const Decision d = decide(gpu, workload("batch", "Job"), makePolicy(), emptyUsage());
  EXPECT_EQ(d.outcome, Decision::Outcome::Unclassified);
  ASSERT_FALSE(d.allowed());
  EXPECT_EQ(d.violations[0].rule, "unclassified-gpu-pod");
  rapidjson::Document cpu = parse(
      R"({"metadata":{"name":"x"},"spec":{"template":{"spec":{"containers":[{"name":"c"}]}}}})");
  const Decision c = decide(cpu, workload("apps", "DaemonSet"), makePolicy(), emptyUsage());
  EXPECT_EQ(c.outcome, Decision::Outcome::NoGpu);
  EXPECT_TRUE(c.allowed());
}

// A PyTorchJob whose replica templates carry no labels, as most users write them.
const std::string kUnlabelledJob =
    R"({"metadata":{"name":"mnist"},"spec":{"pytorchReplicaSpecs":{)"
    R"("Master":{"template":{"spec":{"containers":[{"name":"pytorch",)"
    R"("resources":{"limits":{"nvidia.com/gpu":1}}}]}}},)"
    R"("Worker":{"template":{"spec":{"containers":[{"name":"pytorch",)"
    R"("resources":{"limits":{"nvidia.com/gpu":GPUS}}}]}}}}}})";

std::string unlabelledJob(int workerGpus) {
  std::string job = kUnlabelledJob;
  job.replace(job.find("GPUS"), 4, std::to_string(workerGpus));
  return job;
}

// The training operator's labels, declared on the template kind.
policy::PolicySet policyWithOperatorLabels() {
  auto p = makePolicy();
  p.templateKinds[0].podLabels = {{"training.kubeflow.org/job-name", "$(name)"},
                                  {"training.kubeflow.org/replica-type", "$(replica)"}};
  return p;
}

TEST(Workloads, UnlabelledPyTorchJobIsClassifiedByTheOperatorsLabels) {
  rapidjson::Document d = parse(unlabelledJob(2));
  // Without the declared labels the templates match no class, although the pods would.
  const Decision before =
      decide(d, workload("kubeflow.org", "PyTorchJob"), makePolicy(), emptyUsage());
  ASSERT_FALSE(before.allowed());
  EXPECT_EQ(before.violations[0].rule, "unclassified-gpu-pod");

  const Decision after =
      decide(d, workload("kubeflow.org", "PyTorchJob"), policyWithOperatorLabels(), emptyUsage());
  EXPECT_TRUE(after.allowed()) << after.denial->message;
  EXPECT_EQ(after.outcome, Decision::Outcome::Classified);
  EXPECT_EQ(after.className, "training");
  EXPECT_TRUE(after.patch.empty());
  EXPECT_EQ(after.reason,
            "spec.pytorchReplicaSpecs.Master.template: label training.kubeflow.org/job-name "
            "(class training, match rule 2); spec.pytorchReplicaSpecs.Worker.template: label "
            "training.kubeflow.org/job-name (class training, match rule 2)");
}

TEST(Workloads, UnlabelledPyTorchJobOverTheLimitIsDeniedWithTheLimit) {
  rapidjson::Document d = parse(unlabelledJob(16));
  const Decision decision =
      decide(d, workload("kubeflow.org", "PyTorchJob"), policyWithOperatorLabels(), emptyUsage());
  ASSERT_FALSE(decision.allowed());
  ASSERT_EQ(decision.violations.size(), 1u);
  EXPECT_EQ(decision.violations[0].rule, "max-per-pod");
  EXPECT_EQ(decision.denial->message,
            "PyTorchJob \"mnist\" pod template (spec.pytorchReplicaSpecs.Worker.template) "
            "container \"pytorch\" asks for 16 nvidia.com/gpu but class training allows at most "
            "8 per pod: split the job across more pods or ask the platform team for a larger "
            "limit");
}

TEST(Workloads, PlaceholdersAreFilledAndControllerLabelsWin) {
  auto p = policyWithOperatorLabels();
  // A class that only takes the Worker replicas of job "mnist", listed first.
  policy::WorkloadClass workers = p.classes[0];
  workers.name = "mnist-workers";
  workers.match.any = {labelRule("training.kubeflow.org/replica-type", "worker")};
  workers.match.all = {labelRule("training.kubeflow.org/job-name", "mnist")};
  p.classes.insert(p.classes.begin(), workers);
  // The template claims another job name; the operator overwrites it, and so do we.
  std::string job = unlabelledJob(1);
  const std::string worker = R"("Worker":{"template":{)";
  job.insert(job.find(worker) + worker.size(),
             R"("metadata":{"labels":{"training.kubeflow.org/job-name":"other"}},)");
  rapidjson::Document d = parse(job);
  const Decision decision = decide(d, workload("kubeflow.org", "PyTorchJob"), p, emptyUsage());
  EXPECT_TRUE(decision.allowed());
  EXPECT_NE(decision.reason.find("Worker.template: label training.kubeflow.org/replica-type=worker "
                                 "and label training.kubeflow.org/job-name=mnist (class "
                                 "mnist-workers"),
            std::string::npos)
      << decision.reason;
  EXPECT_NE(decision.reason.find("Master.template: label training.kubeflow.org/job-name (class "
                                 "training"),
            std::string::npos)
      << decision.reason;
}

TEST(Workloads, RayJobHeadAndWorkersGetTheirOwnNodeType) {
  auto p = makePolicy();
  p.classes[0].match.any.push_back(labelRule("ray.io/node-type", "worker"));
  p.classes[0].match.any.back().labels["ray.io/originated-from-crd"] = "RayJob";
  policy::TemplateKind ray;
  ray.apiGroup = "ray.io";
  ray.kind = "RayJob";
  ray.templatePaths = {"spec.rayClusterSpec.headGroupSpec.template",
                       "spec.rayClusterSpec.workerGroupSpecs.*.template"};
  ray.podLabels = {{"ray.io/originated-from-crd", "RayJob"}};
  ray.podLabelsByPath = {
      {"spec.rayClusterSpec.headGroupSpec.template", {{"ray.io/node-type", "head"}}},
      {"spec.rayClusterSpec.workerGroupSpecs.*.template", {{"ray.io/node-type", "worker"}}}};
  p.templateKinds.push_back(ray);
  rapidjson::Document d =
      parse(R"({"metadata":{"name":"rl"},"spec":{"rayClusterSpec":{)"
            R"("headGroupSpec":{"template":{"spec":{"containers":[{"name":"ray-head"}]}}},)"
            R"("workerGroupSpecs":[{"groupName":"gpu","template":{"spec":{"containers":[)"
            R"({"name":"ray-worker","resources":{"limits":{"nvidia.com/gpu":"4"}}}]}}}]}}})");
  const Decision decision = decide(d, workload("ray.io", "RayJob"), p, emptyUsage());
  EXPECT_TRUE(decision.allowed());
  EXPECT_EQ(decision.className, "training");
  EXPECT_EQ(decision.reason,
            "spec.rayClusterSpec.headGroupSpec.template: no GPU request and no class matched; "
            "spec.rayClusterSpec.workerGroupSpecs.0.template: label ray.io/node-type=worker and "
            "label ray.io/originated-from-crd=RayJob (class training, match rule 3)");
}

policy::PolicySet mutatingDeployments() {
  auto p = makePolicy();
  p.mutatedTemplateKinds = {{"apps", "Deployment"}, {"kubeflow.org", "PyTorchJob"}};
  return p;
}

// The template gets the pod's mutations under its own path, no decision annotations, and a pod
// made from the mutated template needs nothing more.
TEST(TemplateMutation, AnOptedInKindGetsThePodsMutationsUnderItsTemplate) {
  const std::string deployment =
      R"({"metadata":{"name":"x"},"spec":{"template":)" + kTemplateOk + "}}";
  rapidjson::Document d = parse(deployment);
  const Decision decision =
      decide(d, workload("apps", "Deployment"), mutatingDeployments(), emptyUsage());
  ASSERT_TRUE(decision.allowed());
  ASSERT_FALSE(decision.patch.empty());
  for (const auto& op : decision.patch) {
    EXPECT_TRUE(op.path.starts_with("/spec/template/spec/")) << op.path;
  }
  EXPECT_EQ(decision.changes.front().rfind("spec.template: ", 0), 0u) << decision.changes.front();
  ASSERT_FALSE(applyPatch(d, decision.patch).has_value());
  const Decision again =
      decide(d, workload("apps", "Deployment"), mutatingDeployments(), emptyUsage());
  EXPECT_TRUE(again.patch.empty()) << serializePatch(again.patch);
  // The pod the Deployment makes from it: only the decision annotations are left to write.
  const rapidjson::Value& tmpl = d["spec"]["template"];
  std::string pod =
      R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"x-1","labels":{"gpu-admission.io/class":"training"}},"spec":)" +
      toJson(tmpl["spec"]) + "}";
  const Decision podDecision = decidePod(pod, mutatingDeployments());
  for (const auto& op : podDecision.patch)
    EXPECT_TRUE(op.path.starts_with("/metadata/annotations")) << op.path;
  // Not opted in: validated only, as before.
  rapidjson::Document sts = parse(deployment);
  EXPECT_TRUE(decide(sts, workload("apps", "StatefulSet"), mutatingDeployments(), emptyUsage())
                  .patch.empty());
}

TEST(TemplateMutation, EveryTemplateOfACustomKindUnderItsOwnPointer) {
  const std::string job = R"({"metadata":{"name":"mnist"},"spec":{"pytorchReplicaSpecs":{)"
                          R"("Master":{"template":)" +
                          kTemplateOk + R"(},"Worker":{"template":)" + kTemplateOk + "}}}}";
  rapidjson::Document d = parse(job);
  const Decision decision =
      decide(d, workload("kubeflow.org", "PyTorchJob"), mutatingDeployments(), emptyUsage());
  bool master = false, worker = false;
  for (const auto& op : decision.patch) {
    master = master || op.path.starts_with("/spec/pytorchReplicaSpecs/Master/template/spec/");
    worker = worker || op.path.starts_with("/spec/pytorchReplicaSpecs/Worker/template/spec/");
  }
  EXPECT_TRUE(master && worker) << serializePatch(decision.patch);
  EXPECT_FALSE(applyPatch(d, decision.patch).has_value());
}

// UPDATE: mutated, never denied (the pods are judged when they are created); a workload denied
// on CREATE in enforce mode is not mutated.
TEST(TemplateMutation, UpdatesAreMutatedOnlyAndDeniedCreatesAreNotMutated) {
  const std::string over = R"({"metadata":{"name":"x"},"spec":{"template":)" + kTemplate16 + "}}";
  rapidjson::Document d = parse(over);
  const Decision create =
      decide(d, workload("apps", "Deployment"), mutatingDeployments(), emptyUsage());
  EXPECT_FALSE(create.allowed());
  EXPECT_TRUE(create.patch.empty());
  RequestContext update = workload("apps", "Deployment");
  update.operation = "UPDATE";
  const Decision updated = decide(d, update, mutatingDeployments(), emptyUsage());
  EXPECT_TRUE(updated.allowed());
  EXPECT_TRUE(updated.violations.empty());
  EXPECT_FALSE(updated.patch.empty());
  // An UPDATE of a kind that is not mutated is not checked at all.
  EXPECT_EQ(decide(d, update, makePolicy(), emptyUsage()).outcome,
            Decision::Outcome::NotApplicable);
}

// The apiserver refuses activeDeadlineSeconds in the template of a controller that keeps its
// pods running ("activeDeadlineSeconds in ReplicaSet is not Supported"): a class's maximum run
// time goes into a Job's template, never a Deployment's.
TEST(TemplateMutation, NoDeadlineInTheTemplateOfAControllerThatKeepsPodsRunning) {
  auto p = mutatingDeployments();
  p.mutatedTemplateKinds.push_back({"batch", "Job"});
  const std::string tmpl =
      R"({"metadata":{"labels":{"gpu-admission.io/class":"interactive"}},"spec":{"containers":[)"
      R"({"name":"nb","resources":{"limits":{"nvidia.com/gpu":1}}}]}})";
  rapidjson::Document d = parse(R"({"metadata":{"name":"x"},"spec":{"template":)" + tmpl + "}}");
  const auto deadlineIn = [](const Decision& decision) {
    for (const auto& op : decision.patch)
      if (op.path.ends_with("/activeDeadlineSeconds")) return true;
    return false;
  };
  const Decision deployment = decide(d, workload("apps", "Deployment"), p, emptyUsage());
  ASSERT_FALSE(deployment.patch.empty());
  EXPECT_FALSE(deadlineIn(deployment)) << serializePatch(deployment.patch);
  EXPECT_TRUE(deadlineIn(decide(d, workload("batch", "Job"), p, emptyUsage())));
}

// `kubectl apply` of the manifest again merges nvidia.com/gpu back beside the class's rewrite
// that is stored: the UPDATE rewrites it onto the target once more instead of keeping both.
TEST(TemplateMutation, AReappliedWholeGpuBesideTheStoredRewriteIsRewrittenAgain) {
  auto p = mutatingDeployments();
  const std::string tmpl =
      R"({"metadata":{"labels":{"gpu-admission.io/class":"inference"}},"spec":{"containers":[)"
      R"({"name":"llm","resources":{"limits":{"nvidia.com/gpu":2,"nvidia.com/mig-2g.20gb":1}}}]}})";
  rapidjson::Document d = parse(R"({"metadata":{"name":"x"},"spec":{"template":)" + tmpl + "}}");
  RequestContext update = workload("apps", "Deployment");
  update.operation = "UPDATE";
  const Decision decision = decide(d, update, p, emptyUsage());
  ASSERT_FALSE(applyPatch(d, decision.patch).has_value());
  EXPECT_EQ(toJson(d["spec"]["template"]["spec"]["containers"][0]["resources"]),
            R"({"limits":{"nvidia.com/mig-2g.20gb":2}})");
  // A pod that asks for both itself keeps what it wrote (the class's profile check judges it).
  const Decision pod =
      decidePod(gpuPod(R"({"gpu-admission.io/class":"inference"})",
                       R"({"limits":{"nvidia.com/gpu":1,"nvidia.com/mig-2g.20gb":1}})"),
                p);
  for (const auto& op : pod.patch) EXPECT_EQ(op.path.find("nvidia.com~1gpu"), std::string::npos);
}

}  // namespace
}  // namespace gpua::engine
