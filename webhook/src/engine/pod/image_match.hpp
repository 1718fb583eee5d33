// Container images against policy image patterns (match rules, spec.exempt.images,
// spec.ruleExemptions).
//
// A pattern is an exact image reference, or a prefix when it ends in '*'. Both sides are
// compared in their normalised form, the way the container runtime resolves a short name:
// "nginx", "library/nginx", "docker.io/nginx" and "index.docker.io/library/nginx" are all
// "docker.io/library/nginx". So `nginx:1.27` matches an image written
// `docker.io/library/nginx:1.27` and the reverse. A prefix matches when the image as written starts
// with it (Gatekeeper's exemptImages rule) or when the normalised image starts with the normalised
// prefix. Tags and digests are compared as written: "nginx" does not match "nginx:latest" (write
// "nginx*" or "nginx:*" for any tag).
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "engine/pod/pod_view.hpp"

namespace gpua::engine {

// Docker Hub's names, which normalizeImage() writes in full (the native compiler writes the same
// normalisation in CEL).
inline constexpr std::string_view kDockerHub = "docker.io/";
inline constexpr std::string_view kDockerHubIndex = "index.docker.io";
inline constexpr std::string_view kOfficialImages = "library/";

// "nginx" -> "docker.io/library/nginx", "pytorch/pytorch:2.3" -> "docker.io/pytorch/pytorch:2.3",
// "nvcr.io/nvidia/pytorch:24.01-py3" unchanged, "localhost:5000/x" unchanged.
std::string normalizeImage(std::string_view image);

bool imageMatches(std::string_view image, std::string_view pattern);
bool imageMatchesAny(std::string_view image, const std::vector<std::string>& patterns);

// The images of the pod's containers and init containers (ephemeral containers are never part
// of a CREATE). A container without an image counts as "".
std::vector<std::string_view> podImages(const PodView& pod);

// True when the pod has at least one container and every image matches one of `patterns`.
bool allImagesMatch(const PodView& pod, const std::vector<std::string>& patterns);
// True when some container's image matches one of `patterns`.
bool anyImageMatches(const PodView& pod, const std::vector<std::string>& patterns);

}  // namespace gpua::engine
