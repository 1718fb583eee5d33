// Inputs of the benchmarks and the load harness, generated in code so they run on a plain clone:
// pods shaped like the corpus (a small device-plugin pod, a Kubeflow PyTorchJob worker, a large
// multi-container serving pod), AdmissionReview envelopes around them, a 1,000-class policy and
// pod lists for the usage ledger.
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "policy/loader.hpp"

namespace gpua::bench {

enum class PodSize { Small, Typical, Large };

const char* podSizeName(PodSize size);

// A pod of about 2 KB (Small), 8 KB (Typical: a Kubeflow PyTorchJob worker with ~40 env vars,
// volumes, training.kubeflow.org labels, spec.priority already set) or 200 KB (Large: many
// containers with many env vars). All ask for nvidia.com/gpu, so the engine mutates them.
std::string podJson(PodSize size);

// The AdmissionReview v1 request the apiserver would send for `podJson` (CREATE in team-a).
std::string admissionReviewJson(const std::string& pod, const std::string& uid);

// The shipped policies/ directory (GPUA_BENCH_POLICIES overrides the compiled-in path).
std::string shippedPolicyDir();
policy::LoadResult loadShippedPolicy();

// A policy the benchmark cannot run without: exits with the first error when it does not load.
std::shared_ptr<const policy::PolicySet> mustLoad(policy::LoadResult r, const char* what);
// The shipped policy, loaded once (mustLoad).
std::shared_ptr<const policy::PolicySet> shippedPolicy();

// One GpuPolicy with `classes` workload classes and as many pools. Classes 0..n-2 match a
// label no bench pod carries; the last one matches Kubeflow training pods, so classifying the
// typical pod walks every class (first match wins).
std::string manyClassesPolicyYaml(std::size_t classes);

// A JSON array of `count` running GPU pods spread over 200 namespaces, as in a pod list.
std::string podListJson(std::size_t count);

// One pod of the list above (for watch events).
std::string listPodJson(std::size_t index);

}  // namespace gpua::bench
