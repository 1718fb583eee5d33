#include "policy/loader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "kube/fnv.hpp"
#include "policy/draft.hpp"
#include "policy/parse.hpp"
#include "policy/resolve.hpp"

namespace gpua::policy {

namespace {

namespace fs = std::filesystem;

// FNV-1a 64 over base file names and contents: identical policy files give the same revision
// whether they are loaded from ./policies by `lint` or from a mounted directory by `serve`.
std::string revisionOf(const std::vector<PolicySource>& sources) {
  uint64_t hash = kube::kFnvOffsetBasis;
  for (const auto& s : sources) {
    kube::fnvField(hash, fs::path(s.fileName).filename().string());
    kube::fnvField(hash, s.text);
  }
  char hex[17];
  std::snprintf(hex, sizeof hex, "%016llx", static_cast<unsigned long long>(hash));
  return hex;
}

// True for a line that starts a YAML document: "---" alone or followed by a blank.
bool startsDocument(std::string_view line) {
  return line.substr(0, 3) == "---" &&
         (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
}

// The documents of a multi-document file. yaml-cpp 0.7's LoadAll loops forever on some
// malformed input (",,#,lC ", found by fuzz_policy), so the file is split at its "---" lines
// and each document loaded alone. Each is padded with the newlines before it, so the marks
// yaml-cpp reports (and every diagnostic built on them) keep the file's line numbers.
std::vector<YAML::Node> loadDocuments(const std::string& text) {
  std::vector<YAML::Node> docs;
  std::size_t start = 0, line = 0, startLine = 0;
  auto flush = [&](std::size_t end) {
    if (end > start || docs.empty())
      docs.push_back(YAML::Load(std::string(startLine, '\n') + text.substr(start, end - start)));
  };
  for (std::size_t pos = 0; pos < text.size(); ++line) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    if (pos > 0 && startsDocument(std::string_view(text).substr(pos, eol - pos))) {
      flush(pos);
      start = pos;
      startLine = line;
    }
    pos = eol + 1;
  }
  flush(text.size());
  return docs;
}

void parseSource(const PolicySource& source, Draft& draft, Diagnostics& errors) {
  YamlReader reader(source.fileName, errors);
  std::vector<YAML::Node> docs;
  try {
    docs = loadDocuments(source.text);
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

// A hidden entry (the kubelet's ..data) or another extension is no policy file and is never
// stat'ed; a policy-named entry that cannot be stat'ed is reported, not skipped.
bool isPolicyFile(const fs::directory_entry& e, Diagnostics& errors) {
  const std::string name = e.path().filename().string();
  const std::string ext = e.path().extension().string();
  if (name.starts_with(".") || (ext != ".yaml" && ext != ".yml")) return false;
  std::error_code ec;
  const bool regular = e.is_regular_file(ec);
  // A dangling symlink is a file that is gone (kubelet removes a ConfigMap key's link after
  // its target): skipped, as before. Any other failure (ELOOP, EACCES) is reported.
  const bool gone = ec == std::errc::no_such_file_or_directory || ec == std::errc::not_a_directory;
  if (ec && !gone) report(errors, {e.path().string(), 0, 0, ""}, "cannot stat: " + ec.message());
  return regular;
}

// Files of `path` (itself, or the policy files directly inside a directory).
std::vector<std::string> expand(const std::string& path, Diagnostics& errors) {
  std::error_code ec;
  if (!fs::is_directory(path, ec)) return {path};
  std::vector<std::string> files;
  const std::size_t errorsBefore = errors.size();
  for (fs::directory_iterator it(path, ec), end; !ec && it != end; it.increment(ec))
    if (isPolicyFile(*it, errors)) files.push_back(it->path().string());
  std::sort(files.begin(), files.end());
  if (ec)
    report(errors, {path, 0, 0, ""}, "cannot list directory: " + ec.message());
  else if (files.empty() && errors.size() == errorsBefore)
    report(errors, {path, 0, 0, ""}, "no *.yaml or *.yml files in directory");
  return files;
}

std::optional<std::string> readFile(const std::string& file, Diagnostics& errors) {
  std::error_code ec;
  const bool exists = fs::exists(file, ec);
  if (ec) {
    report(errors, {file, 0, 0, ""}, "cannot stat: " + ec.message());
    return std::nullopt;
  }
  if (!exists) {
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

uint64_t PolicyFiles::fingerprint() const {
  uint64_t hash = kube::kFnvOffsetBasis;
  for (const auto& s : sources) {
    kube::fnvField(hash, s.fileName);
    kube::fnvField(hash, s.text);
  }
  for (const auto& e : errors) kube::fnvField(hash, e.format());
  return hash;
}

PolicyFiles readPolicyPaths(const std::vector<std::string>& paths) {
  PolicyFiles out;
  if (paths.empty()) report(out.errors, {}, "no policy paths given");
  for (const auto& path : paths)
    for (const auto& file : expand(path, out.errors))
      if (auto text = readFile(file, out.errors)) out.sources.push_back({file, std::move(*text)});
  return out;
}

LoadResult loadPolicyFiles(const PolicyFiles& files) {
  if (files.sources.empty()) return LoadResult{nullptr, files.errors};
  LoadResult result = loadPolicySources(files.sources);
  if (files.errors.empty()) return result;
  // One unreadable file is enough to refuse the whole set.
  std::vector<Diagnostic> errors = files.errors;
  errors.insert(errors.end(), result.errors.begin(), result.errors.end());
  return LoadResult{nullptr, std::move(errors)};
}

LoadResult loadPolicyPaths(const std::vector<std::string>& paths) {
  return loadPolicyFiles(readPolicyPaths(paths));
}

}  // namespace gpua::policy
