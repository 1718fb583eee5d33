#include "native/cel_text.hpp"

#include <cstdio>
#include <stdexcept>

#include "engine/pod/image_match.hpp"

namespace gpua::native::cel {

std::string str(std::string_view text) {
  std::string out = "\"";
  for (const char ch : text) {
    const auto c = static_cast<unsigned char>(ch);
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += ch;
    } else if (c < 0x20 || c == 0x7F) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02X", c);
      out += buf;
    } else {
      out += ch;
    }
  }
  return out + "\"";
}

std::string strList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + str(items[i]);
  return out + "]";
}

namespace {

std::string joined(const std::vector<std::string>& parts, std::string_view op,
                   std::string_view none) {
  std::vector<const std::string*> kept;
  for (const auto& p : parts)
    if (!p.empty()) kept.push_back(&p);
  if (kept.empty()) return std::string(none);
  if (kept.size() == 1) return *kept.front();
  std::string out = "(";
  for (std::size_t i = 0; i < kept.size(); ++i) {
    if (i) out.append(" ").append(op).append(" ");
    out += *kept[i];
  }
  return out + ")";
}

std::string requirement(const kube::SelectorRequirement& r, std::string_view labels) {
  const std::string has = "(" + str(r.key) + " in " + std::string(labels) + ")";
  const std::string value = std::string(labels) + "[" + str(r.key) + "]";
  switch (r.op) {
    case kube::SelectorOperator::In:
      return "(" + has + " && " + value + " in " + strList(r.values) + ")";
    case kube::SelectorOperator::NotIn:
      return "(!" + has + " || !(" + value + " in " + strList(r.values) + "))";
    case kube::SelectorOperator::Exists:
      return has;
    case kube::SelectorOperator::DoesNotExist:
      return "!" + has;
  }
  return "false";
}

}  // namespace

std::string allOf(const std::vector<std::string>& parts) {
  return joined(parts, "&&", "true");
}

std::string anyOf(const std::vector<std::string>& parts) {
  return joined(parts, "||", "false");
}

std::string labelSelector(const kube::LabelSelector& selector, std::string_view labels) {
  std::vector<std::string> parts;
  for (const auto& [k, v] : selector.matchLabels)
    parts.push_back(requirement({k, kube::SelectorOperator::In, {v}}, labels));
  for (const auto& r : selector.matchExpressions) parts.push_back(requirement(r, labels));
  return allOf(parts);
}

std::string namespaceSelector(const policy::NamespaceSelector& selector) {
  const std::string names =
      selector.names.empty() ? "" : "(variables.nsName in " + strList(selector.names) + ")";
  const std::string labels =
      selector.labels.empty() ? "" : labelSelector(selector.labels, "variables.nsLabels");
  return allOf({names, labels});
}

std::string namespaceExemption(const policy::NamespaceExemption& exemption) {
  const std::string names =
      exemption.names.empty() ? "" : "(variables.nsName in " + strList(exemption.names) + ")";
  const std::string labels =
      exemption.labels.empty() ? "" : labelSelector(exemption.labels, "variables.nsLabels");
  return anyOf({names, labels});
}

std::string normalizedImage(std::string_view image) {
  const std::string i(image);
  const std::string hub = str(engine::kDockerHub);
  const std::string official =
      str(std::string(engine::kDockerHub) + std::string(engine::kOfficialImages));
  const std::string hubHost = str(engine::kDockerHub.substr(0, engine::kDockerHub.size() - 1));
  // The first path component names a registry when it has a '.' or a ':' or is localhost.
  const std::string registry = "(s >= 0 && cel.bind(h, " + i +
                               ".substring(0, s), h.contains(\".\") || h.contains(\":\") || "
                               "h == \"localhost\"))";
  return "cel.bind(s, " + i + ".indexOf(\"/\"), " + registry + " ? cel.bind(h, " + i +
         ".substring(0, s), cel.bind(r, " + i +
         ".substring(s + 1), h != " + str(engine::kDockerHubIndex) + " && h != " + hubHost + " ? " +
         i + " : r == \"\" ? " + hub + " : r.contains(\"/\") ? " + hub + " + r : " + official +
         " + r)) : s < 0 ? " + official + " + " + i + " : " + hub + " + " + i + ")";
}

std::string imageMatchesAny(std::string_view image, const std::vector<std::string>& patterns) {
  const std::string i(image);
  std::vector<std::string> exact, tests;
  for (const auto& p : patterns) {
    if (p.empty()) continue;
    if (p.back() != '*') {
      exact.push_back(engine::normalizeImage(p));
      continue;
    }
    const std::string prefix = p.substr(0, p.size() - 1);
    if (prefix.empty()) return "true";  // "*": every image
    // As written first, then both normalised (engine::imageMatches).
    tests.push_back(i + ".startsWith(" + str(prefix) + ")");
    tests.push_back("n.startsWith(" + str(engine::normalizeImage(prefix)) + ")");
  }
  if (!exact.empty()) tests.push_back("n in " + strList(exact));
  if (tests.empty()) return "false";
  return "cel.bind(n, " + normalizedImage(image) + ", " + anyOf(tests) + ")";
}

std::string cut(std::string_view expr, std::size_t max) {
  const std::string e(expr);
  const std::string n = std::to_string(max);
  return "(size(" + e + ") > " + n + " ? " + e + ".substring(0, " + n + ") + \"...\" : " + e + ")";
}

std::string firstNonEmpty(std::string_view list) {
  std::string out = "cel.bind(hs, ";
  out.append(list).append(".filter(h, h != \"\"), size(hs) > 0 ? hs[0] : \"\")");
  return out;
}

std::string sortedStrings(std::string_view list, std::size_t bound) {
  std::string positions = "[";
  for (std::size_t i = 0; i < bound; ++i) positions += (i ? ", " : "") + std::to_string(i);
  positions += "]";
  const std::string n = std::to_string(bound);
  const std::string rank = "size(ss.filter(j, j < s))";
  std::string out = "cel.bind(ss, ";
  out.append(list)
      .append(", size(ss) <= 1 || size(ss) > " + n + " ? ss : ")
      .append(positions)
      .append(".filter(i, i < size(ss)).map(i, ss.filter(s, " + rank + " == i)[0]))");
  return out;
}

namespace {

constexpr std::string_view kBind = "cel.bind(";

// The end of the string literal starting at `i` (its closing quote).
std::size_t literalEnd(std::string_view s, std::size_t i) {
  const char quote = s[i];
  for (++i; i < s.size(); ++i) {
    if (s[i] == '\\') {
      ++i;
    } else if (s[i] == quote) {
      return i;
    }
  }
  return s.size();
}

// The top-level arguments of the call whose '(' is at `open`; `close` gets its ')'.
std::vector<std::string_view> callArguments(std::string_view s, std::size_t open,
                                            std::size_t& close) {
  std::vector<std::string_view> args;
  int depth = 0;
  std::size_t start = open + 1;
  for (std::size_t i = open; i < s.size(); ++i) {
    const char c = s[i];
    if (c == '"' || c == '\'') {
      i = literalEnd(s, i);
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if (c == ')' || c == ']' || c == '}') {
      if (--depth == 0) {
        args.push_back(s.substr(start, i - start));
        close = i;
        return args;
      }
    } else if (c == ',' && depth == 1) {
      args.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  throw std::invalid_argument("cel.bind without its closing parenthesis");
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  return s;
}

}  // namespace

std::string lowerBinds(std::string_view expr) {
  std::string out;
  for (std::size_t i = 0; i < expr.size(); ++i) {
    const char c = expr[i];
    if (c == '"' || c == '\'') {
      const std::size_t end = literalEnd(expr, i);
      out.append(expr.substr(i, end - i + 1));
      i = end;
      continue;
    }
    if (expr.substr(i).starts_with(kBind)) {
      std::size_t close = 0;
      const auto args = callArguments(expr, i + kBind.size() - 1, close);
      if (args.size() != 3) throw std::invalid_argument("cel.bind takes 3 arguments");
      out += "[" + lowerBinds(trimmed(args[1])) + "].map(" + std::string(trimmed(args[0])) + ", " +
             lowerBinds(trimmed(args[2])) + ")[0]";
      i = close;
      continue;
    }
    out += c;
  }
  return out;
}

std::string nodeValueMatches(const policy::NodeRequirementRef& r, std::string_view v) {
  const std::string value(v);
  const std::vector<std::string> values(r.values.begin(), r.values.end());
  int64_t bound = 0;
  switch (r.op) {
    case policy::NodeOperator::In:
      return "(" + value + " in " + strList(values) + ")";
    case policy::NodeOperator::NotIn:
      return "!(" + value + " in " + strList(values) + ")";
    case policy::NodeOperator::Exists:
      return "true";
    case policy::NodeOperator::DoesNotExist:
      return "false";
    case policy::NodeOperator::Gt:
    case policy::NodeOperator::Lt:
      if (values.size() != 1 || !policy::parseNodeInteger(values.front(), bound)) return "false";
      return "(" + value + ".matches(" + kNodeIntegerPattern + ") && int(" + value + ") " +
             (r.op == policy::NodeOperator::Gt ? "> " : "< ") + std::to_string(bound) + ")";
  }
  return "false";
}

}  // namespace gpua::native::cel
