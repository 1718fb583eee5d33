#include "policy/loader.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>

#include "kube/fnv.hpp"
#include "policy/draft.hpp"
#include "policy/lint_warnings.hpp"
#include "policy/parse.hpp"
#include "policy/resolve.hpp"
#include "policy/source_limits.hpp"
#include "policy/yaml_documents.hpp"

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

// What one load has spent of its bytes and YAML nodes (source_limits.hpp). Once a limit is
// passed and reported, the load reads and parses nothing more: it is refused anyway.
struct LoadBudget {
  std::uintmax_t bytes = 0;
  std::uint64_t nodes = 0;
  bool spent = false;
};

// "file is N bytes" for a file read whole; "at least N" for one cut at the limit while read
// (it grew after its size was taken, or has none, like a pipe).
std::string bytesText(std::uintmax_t bytes, bool cut) {
  return (cut ? "at least " : "") + std::to_string(bytes) + " bytes";
}

// Whether `bytes` more of `file` fit the limits; reports the one they pass. Leaves the budget
// to the caller, so a size taken before reading is checked the same way as the bytes read.
bool fitsBytes(const std::string& file, std::uintmax_t bytes, bool cut, LoadBudget& budget,
               Diagnostics& errors) {
  if (bytes > kMaxPolicyFileBytes) {
    report(errors, {file, 0, 0, ""},
           "file is " + bytesText(bytes, cut) + ", more than the limit of " +
               std::to_string(kMaxPolicyFileBytes) + " bytes per policy file",
           "a policy file is a few KB; check that the path names policy files");
    return false;
  }
  if (budget.bytes + bytes <= kMaxPolicyLoadBytes) return true;
  report(errors, {file, 0, 0, ""},
         "policy files reach " + bytesText(budget.bytes + bytes, cut) +
             " with this file, more than the limit of " + std::to_string(kMaxPolicyLoadBytes) +
             " bytes for all policy files of one load");
  budget.spent = true;
  return false;
}

// Adds a document's nodes to the load's budget; reports the node that passes it, or an alias
// that repeats the node containing it (a cycle, which the parse code would never leave).
bool chargeNodes(const std::string& file, const DocumentSpan& doc, const NodeCount& count,
                 LoadBudget& budget, Diagnostics& errors) {
  if (count.cycle) {
    report(errors, markLoc(file, *count.cycle, doc.firstLine, ""),
           "alias repeats a node that contains it, so the document never ends",
           "an alias (*name) may only repeat a node that ends before it");
    return false;
  }
  constexpr std::uint64_t kSaturated = std::numeric_limits<std::uint64_t>::max();
  budget.nodes = count.nodes >= kSaturated - budget.nodes ? kSaturated : budget.nodes + count.nodes;
  if (!count.over) return true;
  const std::string figure = budget.nodes == kSaturated ? "at least " + std::to_string(kSaturated)
                                                        : std::to_string(budget.nodes);
  report(errors, markLoc(file, *count.over, doc.firstLine, ""),
         "policy files reach " + figure +
             " YAML nodes with this document, more than the limit of " +
             std::to_string(kMaxPolicyLoadNodes) + " for all policy files of one load",
         count.aliases ? "each alias (*name) counts as all the nodes it repeats; write a large "
                         "repeated part once instead"
                       : "");
  budget.spent = true;
  return false;
}

// One document of a file, loaded, and the lines of the file before it.
struct Document {
  YAML::Node node;
  int lineOffset;
};

// The documents of a file, each loaded alone, once the file's count of documents and the
// load's count of nodes allow it. Nullopt after reporting why the file cannot be parsed.
std::optional<std::vector<Document>> loadDocuments(const PolicySource& source, LoadBudget& budget,
                                                   Diagnostics& errors) {
  const DocumentSplit split = splitDocuments(source.text, kMaxDocumentsPerFile + 1);
  if (split.count > kMaxDocumentsPerFile) {
    report(errors, {source.fileName, split.spans.back().firstLine + 1, 1, ""},
           "file has " + std::to_string(split.count) + " YAML documents, more than the limit of " +
               std::to_string(kMaxDocumentsPerFile) + " per file",
           "each line \"---\" starts a document; write fewer, larger documents or more files");
    return std::nullopt;
  }
  std::vector<Document> docs;
  for (const DocumentSpan& span : split.spans) {
    const std::string text = source.text.substr(span.offset, span.length);
    try {
      const NodeCount count = countNodes(text, kMaxPolicyLoadNodes - budget.nodes);
      if (!chargeNodes(source.fileName, span, count, budget, errors)) return std::nullopt;
      docs.push_back({YAML::Load(text), span.firstLine});
    } catch (const YAML::ParserException& e) {
      report(errors, markLoc(source.fileName, e.mark, span.firstLine, ""),
             "YAML syntax error: " + e.msg);
      return std::nullopt;
    }
  }
  return docs;
}

void parseSource(const PolicySource& source, Draft& draft, LoadBudget& budget,
                 Diagnostics& errors) {
  const auto docs = loadDocuments(source, budget, errors);
  if (!docs) return;
  YamlReader reader(source.fileName, errors);
  std::size_t policies = 0;
  for (const auto& doc : *docs) {
    if (doc.node.IsNull()) continue;  // an empty document between two '---'
    ++policies;
    reader.setLineOffset(doc.lineOffset);
    try {
      parseDocument(reader, doc.node, draft);
    } catch (const YAML::Exception& e) {  // defensive: the reader never indexes blindly
      report(errors, reader.loc(doc.node, ""), std::string("unreadable document: ") + e.what());
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

// At most `limit` bytes of `in`, so a file is never read whole past the limits.
std::string readAtMost(std::istream& in, std::size_t limit) {
  std::string text;
  std::array<char, 64 * 1024> chunk;
  while (in && text.size() < limit) {
    in.read(chunk.data(),
            static_cast<std::streamsize>(std::min(chunk.size(), limit - text.size())));
    text.append(chunk.data(), static_cast<std::size_t>(in.gcount()));
  }
  return text;
}

// The file's bytes, within the limits. Its size is checked before it is read, then the bytes
// read: it may have grown since, or have no size (a pipe), so reading stops one byte past the
// limit of a file.
std::optional<std::string> readFile(const std::string& file, LoadBudget& budget,
                                    Diagnostics& errors) {
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
  const std::uintmax_t size = fs::file_size(file, ec);
  if (!ec && !fitsBytes(file, size, false, budget, errors)) return std::nullopt;
  std::ifstream in(file, std::ios::binary);
  std::string text = readAtMost(in, kMaxPolicyFileBytes + 1);
  if (!in.is_open() || in.bad()) {
    report(errors, {file, 0, 0, ""}, "cannot read file");
    return std::nullopt;
  }
  if (!fitsBytes(file, text.size(), text.size() > kMaxPolicyFileBytes, budget, errors))
    return std::nullopt;
  budget.bytes += text.size();
  return text;
}

}  // namespace

LoadResult loadPolicySources(const std::vector<PolicySource>& sources) {
  LoadResult result;
  if (sources.empty()) {
    report(result.errors, {}, "no policy files given");
    return result;
  }
  Draft draft;
  LoadBudget budget;  // sources given in memory (fuzz_policy) meet the limits of files read
  for (const auto& s : sources) {
    draft.set.sourceFiles.push_back(s.fileName);
    if (fitsBytes(s.fileName, s.text.size(), false, budget, result.errors)) {
      budget.bytes += s.text.size();
      parseSource(s, draft, budget, result.errors);
    }
    if (budget.spent) break;
  }
  // A load cut short would only add references to what was never parsed.
  if (!budget.spent) resolveDraft(draft, result.errors);
  sortDiagnostics(sources, result.errors);
  if (!result.errors.empty()) return result;
  warnUnjudgedRequireEffects(draft, result.warnings);
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
  LoadBudget budget;
  for (const auto& path : paths)
    for (const auto& file : expand(path, out.errors)) {
      if (auto text = readFile(file, budget, out.errors))
        out.sources.push_back({file, std::move(*text)});
      if (budget.spent) return out;  // refused: the files after it are not read
    }
  return out;
}

LoadResult loadPolicyFiles(const PolicyFiles& files) {
  if (files.sources.empty()) return LoadResult{nullptr, files.errors, {}};
  LoadResult result = loadPolicySources(files.sources);
  if (files.errors.empty()) return result;
  // One unreadable file is enough to refuse the whole set.
  std::vector<Diagnostic> errors = files.errors;
  errors.insert(errors.end(), result.errors.begin(), result.errors.end());
  return LoadResult{nullptr, std::move(errors), {}};
}

LoadResult loadPolicyPaths(const std::vector<std::string>& paths) {
  return loadPolicyFiles(readPolicyPaths(paths));
}

}  // namespace gpua::policy
