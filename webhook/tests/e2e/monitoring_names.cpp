#include "monitoring_names.hpp"

#include <rapidjson/document.h>
#include <yaml-cpp/yaml.h>

#include <fstream>
#include <regex>
#include <sstream>
#include <stdexcept>

namespace gpua::testing {

namespace {

std::string readFile(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot read " + path);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void collectTargets(const rapidjson::Value& panels, std::vector<std::string>& out) {
  if (!panels.IsArray()) return;
  for (const auto& p : panels.GetArray()) {
    if (!p.IsObject()) continue;
    if (p.HasMember("targets") && p["targets"].IsArray())
      for (const auto& t : p["targets"].GetArray())
        if (t.IsObject() && t.HasMember("expr") && t["expr"].IsString())
          out.push_back(t["expr"].GetString());
    if (p.HasMember("panels")) collectTargets(p["panels"], out);  // collapsed rows
  }
}

}  // namespace

Exported parseExposition(const std::string& text) {
  Exported e;
  static const std::regex kType(R"(^# TYPE ([a-zA-Z_:][a-zA-Z0-9_:]*) (\w+)$)");
  static const std::regex kSample(R"(^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{([^}]*)\})? )");
  static const std::regex kLabel(R"re(([a-zA-Z_][a-zA-Z0-9_]*)="(?:[^"\\]|\\.)*")re");
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    std::smatch m;
    if (std::regex_match(line, m, kType)) {
      e.labels[m[1]];
      if (m[2] == "histogram")
        for (const char* s : {"_bucket", "_sum", "_count"}) e.labels[m[1].str() + s];
    } else if (!line.empty() && line[0] != '#' && std::regex_search(line, m, kSample)) {
      const std::string name = m[1];
      e.withSamples.insert(name);
      auto& labels = e.labels[name];
      const std::string body = m[3];
      for (auto it = std::sregex_iterator(body.begin(), body.end(), kLabel);
           it != std::sregex_iterator(); ++it)
        labels.insert((*it)[1]);
    }
  }
  return e;
}

std::vector<std::string> ruleExpressions(const std::string& path) {
  std::vector<std::string> out;
  const YAML::Node doc = YAML::LoadFile(path);
  for (const auto& group : doc["spec"]["groups"])
    for (const auto& rule : group["rules"]) out.push_back(rule["expr"].as<std::string>());
  return out;
}

std::vector<std::string> dashboardExpressions(const std::string& path) {
  const std::string text = readFile(path) + std::string(16, ' ');  // RapidJSON SSE2 padding
  rapidjson::Document d;
  d.Parse(text.c_str(), text.size());
  if (d.HasParseError() || !d.IsObject()) throw std::runtime_error("not a JSON object: " + path);
  std::vector<std::string> out;
  if (d.HasMember("panels")) collectTargets(d["panels"], out);
  return out;
}

std::vector<std::string> metricNameProblems(const std::vector<std::string>& expressions,
                                            const Exported& exported, const std::string& where) {
  // A name not followed by a colon (recording rules are named gpu_admission:...), optionally
  // with a selector whose matchers name labels.
  static const std::regex kUse(R"(\b(gpu_admission_[a-zA-Z0-9_]*)\b(?!:)(\{([^}]*)\})?)");
  static const std::regex kMatcher(R"(([a-zA-Z_][a-zA-Z0-9_]*)\s*(=~|!~|!=|=))");
  std::vector<std::string> problems;
  for (const auto& expr : expressions) {
    for (auto it = std::sregex_iterator(expr.begin(), expr.end(), kUse);
         it != std::sregex_iterator(); ++it) {
      const std::string name = (*it)[1];
      const auto family = exported.labels.find(name);
      if (family == exported.labels.end()) {
        problems.push_back(where + ": " + name + " is not exported by the server");
        continue;
      }
      if (!exported.withSamples.count(name)) continue;  // labels unknown without samples
      const std::string selector = (*it)[3];
      for (auto m = std::sregex_iterator(selector.begin(), selector.end(), kMatcher);
           m != std::sregex_iterator(); ++m) {
        const std::string label = (*m)[1];
        if (label != "le" && !family->second.count(label))
          problems.push_back(where + ": " + name + " has no label " + label);
      }
    }
  }
  return problems;
}

}  // namespace gpua::testing
