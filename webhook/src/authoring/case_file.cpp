#include "authoring/case_file.hpp"

#include <rapidjson/pointer.h>

#include <algorithm>
#include <deque>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <system_error>

#include "authoring/documents.hpp"
#include "authoring/yaml_json.hpp"
#include "engine/core/decision.hpp"
#include "policy/edit_distance.hpp"
#include "policy/yaml_documents.hpp"
#include "policy/yaml_reader.hpp"
#include "text/ascii.hpp"

namespace gpua::authoring {
namespace {

using policy::MapReader;
using policy::YamlReader;
using rapidjson::Value;
namespace fs = std::filesystem;

// YAML nodes of one case file, each alias counted as the nodes it repeats: what the conversion
// of inline objects to JSON may build. The largest file of policy-tests/ has 1,218.
constexpr std::uint64_t kMaxCaseFileNodes = 100'000;
// Documents looked at: one holds the cases, a few empty ones ("---" lines) are tolerated.
constexpr std::size_t kMaxCaseFileDocuments = 8;

const std::vector<std::string> kFileKeys = {"cases", "defaults", "policies"};
// What `defaults` may set, and each case too (a case's own value wins).
const std::vector<std::string> kSettingKeys = {"namespace", "namespaceLabels", "operation",
                                               "usage",     "nodes",           "dra"};
const std::vector<std::string> kCaseKeys = {
    "name", "namespace", "namespaceLabels", "operation", "usage", "nodes",
    "dra",  "pod",       "podFile",         "expect"};
const std::vector<std::string> kUsageKeys = {"available", "reason", "podsFile", "namespaces"};
const std::vector<std::string> kFigureKeys = {"gpuEquivalents", "byClass", "byResource"};
const std::vector<std::string> kExpectKeys = {
    "allowed",         "outcome",         "class",           "mode",
    "messageContains", "warningsContain", "noWarnings",      "violations",
    "noPatch",         "patched",         "notPatched",      "absent",
    "patchedPod",      "ignore",          "noViolations",    "violationsExactly",
    "notViolations",   "warningCount",    "auditAnnotations"};
const std::vector<std::string> kOperations = {"CREATE", "UPDATE", "DELETE", "CONNECT"};

std::vector<std::string> outcomeNames() {
  using O = engine::Decision::Outcome;
  std::vector<std::string> names;
  for (O o : {O::NotApplicable, O::Exempt, O::Skipped, O::NoGpu, O::Classified, O::Unclassified})
    names.emplace_back(engine::outcomeName(o));
  return names;
}

std::vector<std::string> modeNames() {
  using policy::Mode;
  std::vector<std::string> names;
  for (Mode m : {Mode::Enforce, Mode::Warn, Mode::Audit, Mode::Observe})
    names.emplace_back(policy::modeName(m));
  return names;
}

// Owns the JSON converted from the file's YAML (inline objects, expected values). Cases hold
// aliasing pointers into it, so it lives as long as any case does; a deque never moves the
// values it holds.
struct JsonArena {
  rapidjson::Document::AllocatorType allocator;
  std::deque<Value> values;
};

// What `defaults` and a case may both set; unset keys fall back to the defaults. The fixture
// files of usage and nodes that cannot be read go with them, to fail the cases that take them.
struct CaseSettings {
  std::optional<std::string> namespaceName, operation;
  std::optional<kube::Labels> namespaceLabels;
  std::optional<CaseUsage> usage;
  std::optional<std::vector<std::string>> nodesFiles, draFiles;
  std::vector<std::string> usageFileErrors, nodesFileErrors, draFileErrors;
};

// Why the fixture file at `path` cannot be read; nullopt when it can.
std::optional<std::string> unreadableFile(const std::string& path) {
  std::error_code ec;
  const auto status = fs::status(path, ec);
  if (!fs::exists(status)) return "file not found: " + path;
  if (fs::is_directory(status)) return "not a file: " + path + " is a directory";
  if (!std::ifstream(path, std::ios::binary)) return "cannot read " + path;
  return std::nullopt;
}

constexpr const char* kFixtureHint = "paths are relative to the case file's directory";

class CaseFileParser {
 public:
  CaseFileParser(std::string path, policy::Diagnostics& errors)
      : path_(std::move(path)), reader_(path_, errors), arena_(std::make_shared<JsonArena>()) {}

  void setLineOffset(int lines) {
    reader_.setLineOffset(lines);
    lineOffset_ = lines;
  }
  CaseFile file(const YAML::Node& root);

 private:
  CaseSettings settings(const MapReader& m);
  CaseUsage usage(const YAML::Node& node, const std::string& keyPath,
                  std::vector<std::string>& fileErrors);
  engine::NamespaceUsage figures(const YAML::Node& node, const std::string& keyPath);
  TestCase testCase(const YAML::Node& node, const std::string& keyPath, const CaseSettings& base);
  std::shared_ptr<const Value> object(const MapReader& m, std::vector<std::string>& fileErrors);
  CaseExpect expect(const YAML::Node& node, const std::string& keyPath,
                    std::vector<std::string>& fileErrors);
  void decisionExpectations(const MapReader& m, CaseExpect& e);
  void listExpectations(const MapReader& m, CaseExpect& e);
  void patchExpectations(const MapReader& m, CaseExpect& e, std::vector<std::string>& fileErrors);
  void pointerValues(const MapReader& m, const char* key,
                     std::vector<std::pair<std::string, std::shared_ptr<const Value>>>& out);
  void auditExpectations(const MapReader& m, CaseExpect& e);
  void contradictions(const MapReader& m, const CaseExpect& e);

  std::vector<std::string> strings(const YAML::Node& node, const std::string& keyPath);
  std::vector<std::string> paths(const YAML::Node& node, const std::string& keyPath);
  void checkFixtures(const YAML::Node& node, const std::string& keyPath,
                     std::vector<std::string>& fileErrors);
  std::string caseError(const YAML::Node& node, const std::string& keyPath, std::string message,
                        std::string hint = "") const;
  std::optional<std::string> oneOf(const YAML::Node& node, const std::string& keyPath,
                                   const std::vector<std::string>& names, bool ignoreCase);
  std::string pointer(const YAML::Node& key, const std::string& keyPath);
  std::shared_ptr<const Value> json(const YAML::Node& node, const std::string& keyPath);
  template <typename F>
  void forEachEntry(const YAML::Node& node, const std::string& keyPath, F each);
  std::string resolve(const std::string& relative) const;

  std::string path_;
  YamlReader reader_;
  int lineOffset_ = 0;  // as the reader's, for marks that come without a node
  std::shared_ptr<JsonArena> arena_;
};

std::string CaseFileParser::resolve(const std::string& relative) const {
  if (fs::path(relative).is_absolute()) return relative;
  return (fs::path(path_).parent_path() / relative).lexically_normal().string();
}

// A string or a list of strings.
std::vector<std::string> CaseFileParser::strings(const YAML::Node& node,
                                                 const std::string& keyPath) {
  if (node.IsScalar()) return {node.Scalar()};
  if (node.IsSequence()) return reader_.stringValues(node, keyPath);
  reader_.error(node, keyPath, "expected a string or a list of strings");
  return {};
}

// Like strings(), but empty entries are errors, and each is resolved against the file.
std::vector<std::string> CaseFileParser::paths(const YAML::Node& node, const std::string& keyPath) {
  std::vector<std::string> out;
  if (node.IsScalar()) {
    if (auto p = reader_.name(node, keyPath)) out.push_back(resolve(*p));
  } else if (node.IsSequence()) {
    for (const auto& p : reader_.stringList(node, keyPath)) out.push_back(resolve(p));
  } else {
    reader_.error(node, keyPath, "expected a path or a list of paths");
  }
  return out;
}

// An error of the cases that use `node` rather than of the file: the same
// "file:line:col: key.path: message (hint: ...)" line, kept out of the file's diagnostics.
std::string CaseFileParser::caseError(const YAML::Node& node, const std::string& keyPath,
                                      std::string message, std::string hint) const {
  const policy::SourceLoc at = reader_.loc(node, keyPath);
  return policy::Diagnostic{at.file,        at.line, at.column, at.keyPath, std::move(message),
                            std::move(hint)}
      .format();
}

// The fixture files `node` names (a path or a list of them, as paths() reads it) that cannot be
// read, each as a case error at its own entry. Malformed entries are paths()'s to report.
void CaseFileParser::checkFixtures(const YAML::Node& node, const std::string& keyPath,
                                   std::vector<std::string>& fileErrors) {
  auto check = [&](const YAML::Node& entry, const std::string& path) {
    if (!entry.IsScalar() || entry.Scalar().empty()) return;
    if (auto why = unreadableFile(resolve(entry.Scalar())))
      fileErrors.push_back(caseError(entry, path, *why, kFixtureHint));
  };
  if (node.IsScalar()) check(node, keyPath);
  for (std::size_t i = 0; node.IsSequence() && i < node.size(); ++i)
    check(node[i], policy::indexPath(keyPath, i));
}

// One of `names`; a misspelt value gets the nearest name as a hint.
std::optional<std::string> CaseFileParser::oneOf(const YAML::Node& node, const std::string& keyPath,
                                                 const std::vector<std::string>& names,
                                                 bool ignoreCase) {
  auto value = reader_.string(node, keyPath);
  if (!value) return std::nullopt;
  for (const auto& n : names)
    if (ignoreCase ? text::equalsIgnoreCase(*value, n) : *value == n) return value;
  reader_.error(node, keyPath, "unknown value '" + *value + "'", policy::suggestion(*value, names));
  return std::nullopt;
}

// Calls each(key, value, keyPath of the value) for the entries of a mapping whose keys are
// names (namespaces, classes, resources, pointers), reporting empty and duplicate keys.
template <typename F>
void CaseFileParser::forEachEntry(const YAML::Node& node, const std::string& keyPath, F each) {
  if (!reader_.expectMap(node, keyPath)) return;
  std::map<std::string, bool> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    auto key = reader_.name(it->first, keyPath);
    if (!key) continue;
    const std::string path = keyPath + "." + *key;
    if (!seen.emplace(*key, true).second) {
      reader_.error(it->first, path, "duplicate key '" + *key + "'",
                    "a YAML mapping holds each key once; remove one");
      continue;
    }
    each(*key, it->second, path);
  }
}

// The node as JSON, read as kubectl reads YAML; nullptr after reporting what JSON cannot hold.
std::shared_ptr<const Value> CaseFileParser::json(const YAML::Node& node,
                                                  const std::string& keyPath) {
  Value& value = arena_->values.emplace_back();
  try {
    yamlToJson(node, value, arena_->allocator);
  } catch (const YamlValueError& e) {  // at the offending node inside, not at `node`
    policy::report(reader_.diagnostics(), policy::markLoc(path_, e.mark(), lineOffset_, keyPath),
                   e.what());
    return nullptr;
  }
  return std::shared_ptr<const Value>(arena_, &value);
}

engine::NamespaceUsage CaseFileParser::figures(const YAML::Node& node, const std::string& keyPath) {
  engine::NamespaceUsage nu;
  const MapReader m(reader_, node, keyPath, kFigureKeys);
  if (!m.valid()) return nu;
  if (m.has("gpuEquivalents"))
    nu.gpuEquivalents =
        reader_.number(m.get("gpuEquivalents"), m.path("gpuEquivalents"), 0).value_or(0);
  if (m.has("byClass"))
    forEachEntry(m.get("byClass"), m.path("byClass"), [&](auto& cls, auto& v, auto& path) {
      if (auto n = reader_.number(v, path, 0)) nu.byClass[cls] = *n;
    });
  if (m.has("byResource"))
    forEachEntry(m.get("byResource"), m.path("byResource"), [&](auto& res, auto& v, auto& path) {
      if (auto n = reader_.integer(v, path, 0)) nu.byResource[res] = *n;
    });
  return nu;
}

CaseUsage CaseFileParser::usage(const YAML::Node& node, const std::string& keyPath,
                                std::vector<std::string>& fileErrors) {
  CaseUsage u;
  u.given = true;
  const MapReader m(reader_, node, keyPath, kUsageKeys);
  if (!m.valid()) return u;
  if (m.has("available"))
    u.available = reader_.boolean(m.get("available"), m.path("available")).value_or(true);
  if (m.has("reason")) u.reason = reader_.string(m.get("reason"), m.path("reason")).value_or("");
  if (m.has("podsFile")) {
    u.podsFiles = paths(m.get("podsFile"), m.path("podsFile"));
    checkFixtures(m.get("podsFile"), m.path("podsFile"), fileErrors);
  }
  if (m.has("namespaces"))
    forEachEntry(m.get("namespaces"), m.path("namespaces"),
                 [&](auto& ns, auto& v, auto& path) { u.namespaces[ns] = figures(v, path); });
  return u;
}

CaseSettings CaseFileParser::settings(const MapReader& m) {
  CaseSettings s;
  if (m.has("namespace")) s.namespaceName = reader_.string(m.get("namespace"), m.path("namespace"));
  if (m.has("namespaceLabels")) {
    const auto labels = reader_.stringMap(m.get("namespaceLabels"), m.path("namespaceLabels"));
    s.namespaceLabels = kube::Labels(labels.begin(), labels.end());
  }
  if (m.has("operation"))
    s.operation = oneOf(m.get("operation"), m.path("operation"), kOperations, false);
  if (m.has("usage")) s.usage = usage(m.get("usage"), m.path("usage"), s.usageFileErrors);
  if (m.has("nodes")) {
    s.nodesFiles = paths(m.get("nodes"), m.path("nodes"));
    checkFixtures(m.get("nodes"), m.path("nodes"), s.nodesFileErrors);
  }
  if (m.has("dra")) {
    s.draFiles = paths(m.get("dra"), m.path("dra"));
    checkFixtures(m.get("dra"), m.path("dra"), s.draFileErrors);
  }
  return s;
}

void CaseFileParser::decisionExpectations(const MapReader& m, CaseExpect& e) {
  if (m.has("allowed")) e.allowed = reader_.boolean(m.get("allowed"), m.path("allowed"));
  if (m.has("outcome"))
    e.outcome = oneOf(m.get("outcome"), m.path("outcome"), outcomeNames(), true);
  if (m.has("class")) e.className = reader_.string(m.get("class"), m.path("class"));
  if (m.has("mode")) e.mode = oneOf(m.get("mode"), m.path("mode"), modeNames(), true);
  auto flag = [&](const char* key) {
    return m.has(key) && reader_.boolean(m.get(key), m.path(key)).value_or(false);
  };
  e.noWarnings = flag("noWarnings");
  e.noPatch = flag("noPatch");
  if (flag("noViolations")) {  // the same as violationsExactly: []
    if (e.violationsExactly && !e.violationsExactly->empty())
      reader_.error(m.get("noViolations"), m.path("noViolations"), "contradicts violationsExactly",
                    "give one of them");
    e.violationsExactly.emplace();
  }
  if (m.has("warningCount"))
    if (auto n = reader_.integer(m.get("warningCount"), m.path("warningCount"), 0))
      e.warningCount = static_cast<std::size_t>(*n);
}

void CaseFileParser::listExpectations(const MapReader& m, CaseExpect& e) {
  auto list = [&](const char* key, std::vector<std::string>& out) {
    if (m.has(key)) out = strings(m.get(key), m.path(key));
  };
  list("messageContains", e.messageContains);
  list("warningsContain", e.warningsContain);
  list("violations", e.violations);
  list("notViolations", e.notViolations);
  if (m.has("violationsExactly"))
    e.violationsExactly = strings(m.get("violationsExactly"), m.path("violationsExactly"));
}

// A JSON pointer: "" (the whole object) or "/a/b" with '~' written ~0 and '/' written ~1.
std::string CaseFileParser::pointer(const YAML::Node& key, const std::string& keyPath) {
  const std::string text = reader_.string(key, keyPath).value_or("");
  if (!text.empty() && text[0] != '/')
    reader_.error(key, keyPath, "\"" + text + "\" is not a JSON pointer", "start it with '/'");
  else if (!rapidjson::Pointer(text.c_str()).IsValid())
    reader_.error(key, keyPath, "\"" + text + "\" is not a valid JSON pointer",
                  "write '~' as ~0 and '/' inside a key as ~1");
  return text;
}

// A mapping of JSON pointers to values, as `patched` and `notPatched` hold them.
void CaseFileParser::pointerValues(
    const MapReader& m, const char* key,
    std::vector<std::pair<std::string, std::shared_ptr<const Value>>>& out) {
  if (!m.has(key)) return;
  const YAML::Node node = m.get(key);
  if (!reader_.expectMap(node, m.path(key))) return;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const std::string path = m.path(key) + "[" + it->first.Scalar() + "]";
    const std::string ptr = pointer(it->first, path);
    if (auto v = json(it->second, path)) out.emplace_back(ptr, std::move(v));
  }
}

void CaseFileParser::patchExpectations(const MapReader& m, CaseExpect& e,
                                       std::vector<std::string>& fileErrors) {
  pointerValues(m, "patched", e.patched);
  pointerValues(m, "notPatched", e.notPatched);
  // A value both required and refused at one pointer is the author's mistake.
  for (const auto& [ptr, unwanted] : e.notPatched)
    for (const auto& [wantedPtr, wanted] : e.patched)
      if (ptr == wantedPtr && *unwanted == *wanted) {
        const YAML::Node entries = m.get("notPatched");
        for (auto it = entries.begin(); it != entries.end(); ++it)
          if (it->first.Scalar() == ptr)
            reader_.error(it->first, m.path("notPatched") + "[" + ptr + "]",
                          "contradicts patched, which expects this value at " + ptr,
                          "give one of them");
      }
  auto pointers = [&](const char* key, std::vector<std::string>& out) {
    if (!m.has(key)) return;
    const YAML::Node node = m.get(key);
    out = strings(node, m.path(key));
    for (std::size_t i = 0; node.IsSequence() && i < node.size(); ++i)
      pointer(node[i], policy::indexPath(m.path(key), i));
    if (node.IsScalar()) pointer(node, m.path(key));
  };
  pointers("absent", e.absent);
  pointers("ignore", e.ignore);
  if (m.has("patchedPod"))
    if (auto p = reader_.name(m.get("patchedPod"), m.path("patchedPod"))) {
      e.patchedPodFile = resolve(*p);
      checkFixtures(m.get("patchedPod"), m.path("patchedPod"), fileErrors);
    }
}

void CaseFileParser::auditExpectations(const MapReader& m, CaseExpect& e) {
  if (!m.has("auditAnnotations")) return;
  forEachEntry(m.get("auditAnnotations"), m.path("auditAnnotations"),
               [&](auto& key, auto& v, auto& path) {
                 if (v.IsNull())
                   e.auditAnnotations.emplace_back(key, std::nullopt);
                 else if (auto text = reader_.string(v, path))
                   e.auditAnnotations.emplace_back(key, *text);
               });
}

// Expectations that cannot hold together are the author's mistake, not a failing case.
void CaseFileParser::contradictions(const MapReader& m, const CaseExpect& e) {
  if (!e.ignore.empty() && !m.has("patchedPod"))
    reader_.error(m.get("ignore"), m.path("ignore"), "applies to patchedPod only",
                  "add patchedPod, or remove ignore");
  if (e.noPatch && (m.has("patched") || m.has("patchedPod")))
    reader_.error(m.get("noPatch"), m.path("noPatch"), "contradicts patched/patchedPod",
                  "give one of them");
}

CaseExpect CaseFileParser::expect(const YAML::Node& node, const std::string& keyPath,
                                  std::vector<std::string>& fileErrors) {
  CaseExpect e;
  const MapReader m(reader_, node, keyPath, kExpectKeys);
  if (!m.valid()) return e;
  listExpectations(m, e);  // before decisionExpectations, which checks noViolations against it
  decisionExpectations(m, e);
  patchExpectations(m, e, fileErrors);
  auditExpectations(m, e);
  contradictions(m, e);
  return e;
}

// The object under review: inline (`pod`) or read from `podFile`. A podFile that cannot be read
// or parsed is an error of the case (`fileErrors`), not of the file.
std::shared_ptr<const Value> CaseFileParser::object(const MapReader& m,
                                                    std::vector<std::string>& fileErrors) {
  if (m.has("pod") == m.has("podFile")) {
    reader_.error(m.node(), m.path(), "give exactly one of pod (inline) or podFile");
    return nullptr;
  }
  if (m.has("pod"))
    return reader_.expectMap(m.get("pod"), m.path("pod")) ? json(m.get("pod"), m.path("pod"))
                                                          : nullptr;
  const auto file = reader_.name(m.get("podFile"), m.path("podFile"));
  if (!file) return nullptr;
  const std::size_t before = fileErrors.size();
  checkFixtures(m.get("podFile"), m.path("podFile"), fileErrors);
  if (fileErrors.size() != before) return nullptr;
  try {
    return std::make_shared<const rapidjson::Document>(readDocumentFile(resolve(*file)));
  } catch (const InputError& e) {
    fileErrors.push_back(caseError(m.get("podFile"), m.path("podFile"), e.what()));
    return nullptr;
  }
}

TestCase CaseFileParser::testCase(const YAML::Node& node, const std::string& keyPath,
                                  const CaseSettings& base) {
  TestCase c;
  c.file = path_;
  const MapReader m(reader_, node, keyPath, kCaseKeys);
  if (!m.valid()) return c;
  if (m.require("name")) c.name = reader_.name(m.get("name"), m.path("name")).value_or("");
  const CaseSettings own = settings(m);
  c.namespaceName = own.namespaceName.value_or(base.namespaceName.value_or(""));
  c.namespaceLabels = own.namespaceLabels.value_or(base.namespaceLabels.value_or(kube::Labels{}));
  c.operation = own.operation.value_or(base.operation.value_or("CREATE"));
  c.usage = own.usage.value_or(base.usage.value_or(CaseUsage{}));
  c.nodesFiles = own.nodesFiles.value_or(base.nodesFiles.value_or(std::vector<std::string>{}));
  c.draFiles = own.draFiles.value_or(base.draFiles.value_or(std::vector<std::string>{}));
  // The unreadable files of usage and nodes go with the setting the case takes (its own or the
  // defaults'), then those of podFile and patchedPod.
  for (const auto* errors : {own.usage ? &own.usageFileErrors : &base.usageFileErrors,
                             own.nodesFiles ? &own.nodesFileErrors : &base.nodesFileErrors,
                             own.draFiles ? &own.draFileErrors : &base.draFileErrors})
    c.fixtureErrors.insert(c.fixtureErrors.end(), errors->begin(), errors->end());
  c.object = object(m, c.fixtureErrors);
  if (m.require("expect")) c.expect = expect(m.get("expect"), m.path("expect"), c.fixtureErrors);
  return c;
}

CaseFile CaseFileParser::file(const YAML::Node& root) {
  CaseFile cf;
  cf.path = path_;
  const MapReader m(reader_, root, "", kFileKeys);
  if (!m.valid()) return cf;
  if (m.has("policies")) cf.policies = paths(m.get("policies"), "policies");
  CaseSettings defaults;
  if (m.has("defaults"))
    defaults = settings(MapReader(reader_, m.get("defaults"), "defaults", kSettingKeys));
  if (!m.require("cases") || !reader_.expectList(m.get("cases"), "cases")) return cf;
  const YAML::Node cases = m.get("cases");
  if (cases.size() == 0) reader_.error(cases, "cases", "no cases", "add at least one case");
  std::map<std::string, policy::SourceLoc> names;
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::string keyPath = policy::indexPath("cases", i);
    TestCase c = testCase(cases[i], keyPath, defaults);
    if (c.name.empty()) continue;
    const auto loc = reader_.loc(cases[i]["name"], keyPath + ".name");
    if (auto [it, fresh] = names.emplace(c.name, loc); !fresh)
      reader_.error(cases[i]["name"], keyPath + ".name", "duplicate case name '" + c.name + "'",
                    "first used at " + it->second.where());
    cf.cases.push_back(std::move(c));
  }
  return cf;
}

// A document of the file, loaded alone, and the lines of the file before it.
struct LoadedDocument {
  YAML::Node node;
  int lineOffset = 0;
};

// Loads a document once its YAML nodes (aliases expanded) fit what is left of `budget`; nullopt
// after reporting why it cannot be loaded.
std::optional<LoadedDocument> loadDocument(const std::string& text,
                                           const policy::DocumentSpan& span,
                                           const std::string& path, std::uint64_t& budget,
                                           policy::Diagnostics& errors) {
  const std::string doc = text.substr(span.offset, span.length);
  try {
    const auto count = policy::countNodes(doc, budget);
    if (count.cycle) {
      policy::report(errors, policy::markLoc(path, *count.cycle, span.firstLine, ""),
                     "alias repeats a node that contains it, so the document never ends",
                     "an alias (*name) may only repeat a node that ends before it");
      return std::nullopt;
    }
    if (count.over) {
      policy::report(errors, policy::markLoc(path, *count.over, span.firstLine, ""),
                     "more than " + std::to_string(kMaxCaseFileNodes) +
                         " YAML nodes in one case file (each alias counts as the nodes it "
                         "repeats)",
                     "split the file");
      return std::nullopt;
    }
    budget -= count.nodes;
    return LoadedDocument{YAML::Load(doc), span.firstLine};
  } catch (const YAML::ParserException& e) {
    policy::report(errors, policy::markLoc(path, e.mark, span.firstLine, ""),
                   "YAML syntax error: " + e.msg);
    return std::nullopt;
  }
}

// The file's one non-empty document (empty ones, as after a leading "---", are skipped);
// nullopt after reporting a syntax error, an empty file or a second document.
std::optional<LoadedDocument> theDocument(const std::string& text, const std::string& path,
                                          policy::Diagnostics& errors) {
  const auto split = policy::splitDocuments(text, kMaxCaseFileDocuments);
  if (split.count > split.spans.size()) {
    policy::report(errors, {path, 0, 0, ""},
                   std::to_string(split.count) + " YAML documents: a case file holds one");
    return std::nullopt;
  }
  std::uint64_t budget = kMaxCaseFileNodes;
  std::optional<LoadedDocument> found;
  for (const auto& span : split.spans) {
    auto doc = loadDocument(text, span, path, budget, errors);
    if (!doc) return std::nullopt;
    if (doc->node.IsNull()) continue;
    if (found) {
      policy::report(errors, {path, span.firstLine + 1, 1, ""},
                     "a second YAML document: a case file is one mapping with `cases:`",
                     "remove the \"---\" line, or move these cases to a file of their own");
      return std::nullopt;
    }
    found = std::move(doc);
  }
  if (!found)
    policy::report(errors, {path, 0, 0, ""}, "no cases: the file is empty",
                   "a case file is a mapping with a list `cases:` (docs/policy-testing.md)");
  return found;
}

}  // namespace

CaseFileResult parseCaseFile(std::string_view text, const std::string& path) {
  CaseFileResult result;
  const auto doc = theDocument(std::string(text), path, result.errors);
  if (!doc) return result;
  CaseFileParser parser(path, result.errors);
  parser.setLineOffset(doc->lineOffset);
  CaseFile cf;
  try {
    cf = parser.file(doc->node);
  } catch (const YAML::Exception& e) {  // defensive: the reader never indexes blindly
    policy::report(result.errors, {path, 0, 0, ""},
                   std::string("unreadable case file: ") + e.what());
  }
  if (result.errors.empty()) result.caseFile = std::move(cf);
  std::stable_sort(result.errors.begin(), result.errors.end(),
                   [](const policy::Diagnostic& a, const policy::Diagnostic& b) {
                     return a.line != b.line ? a.line < b.line : a.column < b.column;
                   });
  return result;
}

CaseFileResult loadCaseFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  if (!in.is_open() || in.bad()) {
    CaseFileResult result;
    policy::report(result.errors, {path, 0, 0, ""}, "cannot read the case file");
    return result;
  }
  return parseCaseFile(text.str(), path);
}

}  // namespace gpua::authoring
