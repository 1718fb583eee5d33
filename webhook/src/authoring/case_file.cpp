#include "authoring/case_file.hpp"

#include <filesystem>
#include <set>

#include "authoring/documents.hpp"

namespace gpua::authoring {
namespace {

using rapidjson::Value;
namespace fs = std::filesystem;

// Errors carry the file and case so the author finds the spot at once.
struct Where {
  std::string file, caseName;
  [[noreturn]] void fail(const std::string& what) const {
    throw InputError(file + (caseName.empty() ? "" : ":" + caseName) + ": " + what);
  }
};

void checkKeys(const Value& obj, const std::set<std::string>& allowed, const std::string& section,
               const Where& w) {
  if (!obj.IsObject()) w.fail(section + " must be a mapping");
  for (const auto& m : obj.GetObject())
    if (!allowed.count(m.name.GetString()))
      w.fail("unknown key \"" + std::string(m.name.GetString()) + "\" in " + section);
}

std::string asString(const Value& v, const std::string& key, const Where& w) {
  if (!v.IsString()) w.fail(key + " must be a string");
  return v.GetString();
}

bool asBool(const Value& v, const std::string& key, const Where& w) {
  if (!v.IsBool()) w.fail(key + " must be true or false");
  return v.GetBool();
}

double asNumber(const Value& v, const std::string& key, const Where& w) {
  if (!v.IsNumber()) w.fail(key + " must be a number");
  return v.GetDouble();
}

// A string or a list of strings.
std::vector<std::string> asStrings(const Value& v, const std::string& key, const Where& w) {
  if (v.IsString()) return {v.GetString()};
  if (!v.IsArray()) w.fail(key + " must be a string or a list of strings");
  std::vector<std::string> out;
  for (const auto& s : v.GetArray()) out.push_back(asString(s, key, w));
  return out;
}

kube::Labels asLabels(const Value& v, const Where& w) {
  if (!v.IsObject()) w.fail("namespaceLabels must be a mapping");
  kube::Labels labels;
  for (const auto& m : v.GetObject())
    labels[m.name.GetString()] = asString(m.value, "namespaceLabels values", w);
  return labels;
}

std::string resolve(const std::string& caseFile, const std::string& rel) {
  if (fs::path(rel).is_absolute()) return rel;
  return (fs::path(caseFile).parent_path() / rel).lexically_normal().string();
}

CaseUsage parseUsage(const Value& v, const std::string& file, const Where& w) {
  checkKeys(v, {"available", "reason", "podsFile", "namespaces"}, "usage", w);
  CaseUsage u;
  u.given = true;
  if (v.HasMember("available")) u.available = asBool(v["available"], "usage.available", w);
  if (v.HasMember("reason")) u.reason = asString(v["reason"], "usage.reason", w);
  if (v.HasMember("podsFile"))
    for (const auto& p : asStrings(v["podsFile"], "usage.podsFile", w))
      u.podsFiles.push_back(resolve(file, p));
  if (v.HasMember("namespaces")) {
    const Value& nss = v["namespaces"];
    if (!nss.IsObject()) w.fail("usage.namespaces must be a mapping of namespace -> figures");
    for (const auto& m : nss.GetObject()) {
      const Value& f = m.value;
      checkKeys(f, {"gpuEquivalents", "byClass", "byResource"}, "usage.namespaces.<ns>", w);
      engine::NamespaceUsage nu;
      if (f.HasMember("gpuEquivalents"))
        nu.gpuEquivalents = asNumber(f["gpuEquivalents"], "gpuEquivalents", w);
      if (f.HasMember("byClass")) {
        if (!f["byClass"].IsObject())
          w.fail("byClass must be a mapping of class -> GPU-equivalents");
        for (const auto& c : f["byClass"].GetObject())
          nu.byClass[c.name.GetString()] = asNumber(c.value, "byClass values", w);
      }
      if (f.HasMember("byResource")) {
        if (!f["byResource"].IsObject())
          w.fail("byResource must be a mapping of resource -> units");
        for (const auto& r : f["byResource"].GetObject()) {
          if (!r.value.IsInt64()) w.fail("byResource values must be integers");
          nu.byResource[r.name.GetString()] = r.value.GetInt64();
        }
      }
      u.namespaces[m.name.GetString()] = nu;
    }
  }
  return u;
}

// violationsExactly / noViolations / notViolations / warningCount / auditAnnotations.
void parseExactExpectations(const Value& v, CaseExpect& e, const Where& w) {
  if (v.HasMember("violationsExactly"))
    e.violationsExactly = asStrings(v["violationsExactly"], "expect.violationsExactly", w);
  if (v.HasMember("noViolations") && asBool(v["noViolations"], "expect.noViolations", w)) {
    if (e.violationsExactly && !e.violationsExactly->empty())
      w.fail("expect.noViolations contradicts expect.violationsExactly");
    if (!e.violationsExactly) e.violationsExactly.emplace();
  }
  if (v.HasMember("notViolations"))
    e.notViolations = asStrings(v["notViolations"], "expect.notViolations", w);
  if (v.HasMember("warningCount")) {
    const Value& n = v["warningCount"];
    if (!n.IsUint()) w.fail("expect.warningCount must be a whole number >= 0");
    e.warningCount = n.GetUint();
  }
  if (v.HasMember("auditAnnotations")) {
    const Value& aa = v["auditAnnotations"];
    if (!aa.IsObject())
      w.fail("expect.auditAnnotations must map keys to values (null = the key is absent)");
    for (const auto& m : aa.GetObject()) {
      const std::string key = m.name.GetString();
      if (m.value.IsNull())
        e.auditAnnotations.emplace_back(key, std::nullopt);
      else
        e.auditAnnotations.emplace_back(key,
                                        asString(m.value, "expect.auditAnnotations." + key, w));
    }
  }
}

CaseExpect parseExpect(const Value& v, const std::string& file,
                       const std::shared_ptr<const rapidjson::Document>& owner, const Where& w) {
  checkKeys(
      v,
      {"allowed", "outcome", "class", "mode", "messageContains", "warningsContain", "noWarnings",
       "violations", "noPatch", "patched", "absent", "patchedPod", "ignore", "noViolations",
       "violationsExactly", "notViolations", "warningCount", "auditAnnotations"},
      "expect", w);
  CaseExpect e;
  if (v.HasMember("allowed")) e.allowed = asBool(v["allowed"], "expect.allowed", w);
  if (v.HasMember("outcome")) e.outcome = asString(v["outcome"], "expect.outcome", w);
  if (v.HasMember("class")) e.className = asString(v["class"], "expect.class", w);
  if (v.HasMember("mode")) e.mode = asString(v["mode"], "expect.mode", w);
  if (v.HasMember("messageContains"))
    e.messageContains = asStrings(v["messageContains"], "expect.messageContains", w);
  if (v.HasMember("warningsContain"))
    e.warningsContain = asStrings(v["warningsContain"], "expect.warningsContain", w);
  if (v.HasMember("violations")) e.violations = asStrings(v["violations"], "expect.violations", w);
  parseExactExpectations(v, e, w);
  if (v.HasMember("noWarnings")) e.noWarnings = asBool(v["noWarnings"], "expect.noWarnings", w);
  if (v.HasMember("noPatch")) e.noPatch = asBool(v["noPatch"], "expect.noPatch", w);
  if (v.HasMember("patched")) {
    if (!v["patched"].IsObject()) w.fail("expect.patched must map JSON pointers to values");
    for (const auto& m : v["patched"].GetObject()) {
      const std::string ptr = m.name.GetString();
      if (!ptr.empty() && ptr[0] != '/')
        w.fail("expect.patched key \"" + ptr + "\" is not a JSON pointer (starts with /)");
      e.patched.emplace_back(ptr, std::shared_ptr<const Value>(owner, &m.value));
    }
  }
  if (v.HasMember("absent")) e.absent = asStrings(v["absent"], "expect.absent", w);
  if (v.HasMember("patchedPod"))
    e.patchedPodFile = resolve(file, asString(v["patchedPod"], "expect.patchedPod", w));
  if (v.HasMember("ignore")) e.ignore = asStrings(v["ignore"], "expect.ignore", w);
  if (!e.ignore.empty() && !e.patchedPodFile) w.fail("expect.ignore applies to patchedPod only");
  if (e.noPatch && (!e.patched.empty() || e.patchedPodFile))
    w.fail("expect.noPatch contradicts expect.patched/patchedPod");
  return e;
}

std::shared_ptr<const Value> loadObject(const std::string& path, const Where& w) {
  try {
    return std::make_shared<const rapidjson::Document>(readDocumentFile(path));
  } catch (const InputError& e) {
    w.fail(std::string("podFile: ") + e.what());
  }
}

TestCase parseCase(const Value& v, const Value* defaults, CaseFile& cf,
                   const std::shared_ptr<const rapidjson::Document>& owner, std::size_t index) {
  Where w{cf.path, "cases[" + std::to_string(index) + "]"};
  checkKeys(v,
            {"name", "namespace", "namespaceLabels", "operation", "usage", "nodes", "pod",
             "podFile", "expect"},
            "a case", w);
  TestCase c;
  c.file = cf.path;
  if (!v.HasMember("name")) w.fail("a case needs a name");
  c.name = asString(v["name"], "name", w);
  w.caseName = c.name;
  // A key set on the case wins over the same key in `defaults`.
  auto pick = [&](const char* key) -> const Value* {
    if (v.HasMember(key)) return &v[key];
    if (defaults && defaults->HasMember(key)) return &(*defaults)[key];
    return nullptr;
  };
  if (auto* ns = pick("namespace")) c.namespaceName = asString(*ns, "namespace", w);
  if (auto* l = pick("namespaceLabels")) c.namespaceLabels = asLabels(*l, w);
  if (auto* op = pick("operation")) c.operation = asString(*op, "operation", w);
  if (auto* u = pick("usage")) c.usage = parseUsage(*u, cf.path, w);
  if (auto* n = pick("nodes"))
    for (const auto& f : asStrings(*n, "nodes", w)) c.nodesFiles.push_back(resolve(cf.path, f));
  const bool inlinePod = v.HasMember("pod"), filePod = v.HasMember("podFile");
  if (inlinePod == filePod) w.fail("give exactly one of pod (inline) or podFile");
  c.object = inlinePod ? std::shared_ptr<const Value>(owner, &v["pod"])
                       : loadObject(resolve(cf.path, asString(v["podFile"], "podFile", w)), w);
  if (!v.HasMember("expect")) w.fail("a case needs expect");
  c.expect = parseExpect(v["expect"], cf.path, owner, w);
  return c;
}

}  // namespace

CaseFile loadCaseFile(const std::string& path) {
  CaseFile cf;
  cf.path = path;
  const auto doc = std::make_shared<const rapidjson::Document>(readDocumentFile(path));
  const Where w{path, ""};
  checkKeys(*doc, {"cases", "defaults", "policies"}, "the file (top level)", w);
  if (doc->HasMember("policies"))
    for (const auto& p : asStrings((*doc)["policies"], "policies", w))
      cf.policies.push_back(resolve(path, p));
  const Value* defaults = nullptr;
  if (doc->HasMember("defaults")) {
    defaults = &(*doc)["defaults"];
    checkKeys(*defaults, {"namespace", "namespaceLabels", "operation", "usage", "nodes"},
              "defaults", w);
  }
  if (!doc->HasMember("cases") || !(*doc)["cases"].IsArray() || (*doc)["cases"].Empty())
    w.fail("needs a non-empty list `cases`");
  std::set<std::string> names;
  std::size_t i = 0;
  for (const auto& item : (*doc)["cases"].GetArray()) {
    TestCase c = parseCase(item, defaults, cf, doc, i++);
    if (!names.insert(c.name).second) Where{path, c.name}.fail("duplicate case name");
    cf.cases.push_back(std::move(c));
  }
  return cf;
}

}  // namespace gpua::authoring
