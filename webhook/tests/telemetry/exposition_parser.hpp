// A strict reader of the Prometheus text format for tests: renders must parse back.
#pragma once

#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpua::telemetry::testing {

struct Sample {
  std::string name;
  std::map<std::string, std::string> labels;
  std::string value;  // as written
};

struct Exposition {
  std::map<std::string, std::string> help;  // unescaped
  std::map<std::string, std::string> type;
  std::vector<Sample> samples;

  const Sample* find(const std::string& name,
                     const std::map<std::string, std::string>& labels) const {
    for (const auto& s : samples)
      if (s.name == name && s.labels == labels) return &s;
    return nullptr;
  }
};

inline std::string unescape(const std::string& s, bool quotes) {
  std::string out;
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\') {
      out.push_back(s[i]);
      continue;
    }
    if (++i >= s.size()) throw std::runtime_error("dangling backslash");
    if (s[i] == 'n')
      out.push_back('\n');
    else if (s[i] == '\\')
      out.push_back('\\');
    else if (s[i] == '"' && quotes)
      out.push_back('"');
    else
      throw std::runtime_error("bad escape");
  }
  return out;
}

inline Exposition parseExposition(const std::string& text) {
  Exposition e;
  std::size_t pos = 0;
  while (pos < text.size()) {
    const std::size_t eol = text.find('\n', pos);
    if (eol == std::string::npos) throw std::runtime_error("last line lacks newline");
    const std::string line = text.substr(pos, eol - pos);
    pos = eol + 1;
    if (line.rfind("# HELP ", 0) == 0 || line.rfind("# TYPE ", 0) == 0) {
      const std::size_t sp = line.find(' ', 7);
      if (sp == std::string::npos) throw std::runtime_error("bad comment: " + line);
      const std::string name = line.substr(7, sp - 7);
      if (line[2] == 'H')
        e.help[name] = unescape(line.substr(sp + 1), false);
      else
        e.type[name] = line.substr(sp + 1);
      continue;
    }
    Sample s;
    std::size_t i = 0;
    while (i < line.size() && line[i] != '{' && line[i] != ' ') s.name.push_back(line[i++]);
    if (i < line.size() && line[i] == '{') {
      ++i;
      while (line.at(i) != '}') {
        const std::size_t eq = line.find('=', i);
        const std::string key = line.substr(i, eq - i);
        if (line.at(eq + 1) != '"') throw std::runtime_error("unquoted label: " + line);
        std::size_t j = eq + 2;
        std::string raw;
        while (line.at(j) != '"') {
          if (line[j] == '\\') raw.push_back(line[j++]);
          raw.push_back(line.at(j++));
        }
        s.labels[key] = unescape(raw, true);
        i = j + 1;
        if (line.at(i) == ',') ++i;
      }
      ++i;
    }
    if (line.at(i) != ' ') throw std::runtime_error("no value: " + line);
    s.value = line.substr(i + 1);
    if (s.value.empty() || s.value.find(' ') != std::string::npos)
      throw std::runtime_error("bad value: " + line);
    e.samples.push_back(std::move(s));
  }
  return e;
}

}  // namespace gpua::telemetry::testing
