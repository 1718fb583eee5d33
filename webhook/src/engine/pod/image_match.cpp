#include "engine/pod/image_match.hpp"

#include "engine/core/json_util.hpp"

namespace gpua::engine {

namespace {

// The first path component names a registry when it looks like a host: it has a '.' or a ':'
// (a port), or it is "localhost". Otherwise the reference is a Docker Hub repository.
bool namesRegistry(std::string_view first) {
  return first.find_first_of(".:") != std::string_view::npos || first == "localhost";
}

}  // namespace

std::string normalizeImage(std::string_view image) {
  const auto slash = image.find('/');
  if (slash != std::string_view::npos && namesRegistry(image.substr(0, slash))) {
    std::string_view host = image.substr(0, slash);
    std::string_view rest = image.substr(slash + 1);
    if (host != kDockerHubIndex && host != kDockerHub.substr(0, kDockerHub.size() - 1))
      return std::string(image);
    if (rest.empty()) return std::string(kDockerHub);  // the prefix "docker.io/"
    // Docker Hub written out: official images still live under library/.
    if (rest.find('/') == std::string_view::npos)
      return std::string(kDockerHub).append(kOfficialImages).append(rest);
    return std::string(kDockerHub) + std::string(rest);
  }
  if (slash == std::string_view::npos)
    return std::string(kDockerHub).append(kOfficialImages).append(image);
  return std::string(kDockerHub) + std::string(image);
}

bool imageMatches(std::string_view image, std::string_view pattern) {
  if (pattern.empty()) return false;
  if (pattern.back() != '*') return normalizeImage(image) == normalizeImage(pattern);
  const std::string_view prefix = pattern.substr(0, pattern.size() - 1);
  if (prefix.empty()) return true;  // "*": every image
  // As written first: a prefix may stop inside a registry host ("nvcr*") or a repository name
  // ("docker.io/pyt*"), where normalising the prefix alone would guess wrong.
  if (image.starts_with(prefix)) return true;
  return normalizeImage(image).starts_with(normalizeImage(prefix));
}

bool imageMatchesAny(std::string_view image, const std::vector<std::string>& patterns) {
  for (const auto& p : patterns)
    if (imageMatches(image, p)) return true;
  return false;
}

std::vector<std::string_view> podImages(const PodView& pod) {
  std::vector<std::string_view> out;
  for (const char* key : {"containers", "initContainers"}) {
    const rapidjson::Value* list = json::arrayMember(pod.spec, key);
    if (list == nullptr) continue;
    for (const auto& c : list->GetArray())
      if (c.IsObject()) out.push_back(json::stringMember(&c, "image"));
  }
  return out;
}

bool allImagesMatch(const PodView& pod, const std::vector<std::string>& patterns) {
  if (patterns.empty()) return false;
  const auto images = podImages(pod);
  if (images.empty()) return false;
  for (const auto image : images)
    if (!imageMatchesAny(image, patterns)) return false;
  return true;
}

bool anyImageMatches(const PodView& pod, const std::vector<std::string>& patterns) {
  for (const auto image : podImages(pod))
    if (imageMatchesAny(image, patterns)) return true;
  return false;
}

}  // namespace gpua::engine
