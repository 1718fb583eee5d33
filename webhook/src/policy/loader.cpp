#include "policy/loader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "policy/draft.hpp"
#include "policy/parse.hpp"
#include "policy/resolve.hpp"

namespace gpua::policy {

namespace {

namespace fs = std::filesystem;

// FNV-1a 64 over base file names and contents: identical policy files give the same revision
// whether they are loaded from ./policies by `lint` or from a mounted directory by `serve`.
std::string revisionOf(const std::vector<PolicySource>& sources) {
  uint64_t hash = 0xcbf29ce484222325ULL;
  auto feed = [&hash](std::string_view bytes) {
    for (unsigned char c : bytes) {
      hash ^= c;
      hash *= 0x100000001b3ULL;
    }
    hash ^= 0xff;  // separator, so "ab"+"c" and "a"+"bc" differ
    hash *= 0x100000001b3ULL;
  };
  for (const auto& s : sources) {
    feed(fs::path(s.fileName).filename().string());
    feed(s.text);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

void parseSource(const PolicySource& source, Draft& draft, Diagnostics& errors) {
  YamlReader reader(source.fileName, errors);
  std::vector<YAML::Node> docs;
  try {
    docs = YAML::LoadAll(source.text);
  } catch (const YAML::ParserException& e) {
    report(errors, {source.fileName, e.mark.line + 1, e.mark.column + 1, ""},
           "YAML syntax error: " + e.msg);
    return;
  }
  std::size_t policies = 0;
  for (const auto& doc : docs) {
    if (doc.IsNull()) continue;  // an empty document between two '---'
    ++policies;
    try {
      parseDocument(reader, doc, draft);
    } catch (const YAML::Exception& e) {  // defensive: the reader never indexes blindly
      report(errors, reader.loc(doc, ""), std::string("unreadable document: ") + e.what());
    }
  }
  if (policies == 0)
    report(errors, {source.fileName, 0, 0, ""}, "no GpuPolicy document in file",
           "add a document with apiVersion: gpu-admission.io/v1 and kind: GpuPolicy, or remove "
           "the file");
}

// Diagnostics in file order, then by position, so `lint` reads top to bottom.
void sortDiagnostics(const std::vector<PolicySource>& sources, Diagnostics& errors) {
  auto fileIndex = [&sources](const std::string& f) {
    for (std::size_t i = 0; i < sources.size(); ++i)
      if (sources[i].fileName == f) return i;
    return sources.size();
  };
  std::stable_sort(errors.begin(), errors.end(), [&](const Diagnostic& a, const Diagnostic& b) {
    const auto fa = fileIndex(a.file), fb = fileIndex(b.file);
    if (fa != fb) return fa < fb;
    if (a.line != b.line) return a.line < b.line;
    return a.column < b.column;
  });
}

bool isPolicyFile(const fs::directory_entry& e) {
  const std::string name = e.path().filename().string();
  const std::string ext = e.path().extension().string();
  return e.is_regular_file() && !name.starts_with(".") && (ext == ".yaml" || ext == ".yml");
}

// Files of `path` (itself, or the policy files directly inside a directory).
std::vector<std::string> expand(const std::string& path, Diagnostics& errors) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(path, ec))
    if (isPolicyFile(e)) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  if (ec)
    report(errors, {path, 0, 0, ""}, "cannot list directory: " + ec.message());
  else if (files.empty())
    report(errors, {path, 0, 0, ""}, "no *.yaml or *.yml files in directory");
  return files;
}

std::optional<std::string> readFile(const std::string& file, Diagnostics& errors) {
  std::error_code ec;
  if (!fs::exists(file, ec)) {
    report(errors, {file, 0, 0, ""}, "cannot read: no such file or directory");
    return std::nullopt;
  }
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in) {
    report(errors, {file, 0, 0, ""}, "cannot read file");
    return std::nullopt;
  }
  return text.str();
}

}  // namespace

LoadResult loadPolicySources(const std::vector<PolicySource>& sources) {
  LoadResult result;
  if (sources.empty()) {
    report(result.errors, {}, "no policy files given");
    return result;
  }
  Draft draft;
  for (const auto& s : sources) {
    draft.set.sourceFiles.push_back(s.fileName);
    parseSource(s, draft, result.errors);
  }
  resolveDraft(draft, result.errors);
  sortDiagnostics(sources, result.errors);
  if (!result.errors.empty()) return result;
  draft.set.revision = revisionOf(sources);
  result.policy = std::make_shared<const PolicySet>(std::move(draft.set));
  return result;
}

LoadResult loadPolicyPaths(const std::vector<std::string>& paths) {
  Diagnostics readErrors;
  if (paths.empty()) report(readErrors, {}, "no policy paths given");
  std::vector<PolicySource> sources;
  for (const auto& path : paths)
    for (const auto& file : expand(path, readErrors))
      if (auto text = readFile(file, readErrors)) sources.push_back({file, std::move(*text)});
  if (sources.empty()) return LoadResult{nullptr, std::move(readErrors)};
  LoadResult result = loadPolicySources(sources);
  if (readErrors.empty()) return result;
  // One unreadable file is enough to refuse the whole set.
  readErrors.insert(readErrors.end(), result.errors.begin(), result.errors.end());
  return LoadResult{nullptr, std::move(readErrors)};
}

}  // namespace gpua::policy
