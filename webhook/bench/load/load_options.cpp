#include "load_options.hpp"

#include <cstdlib>
#include <functional>
#include <map>

namespace gpua::load {

namespace {

std::optional<double> number(const std::string& s) {
  char* end = nullptr;
  const double v = std::strtod(s.c_str(), &end);
  if (s.empty() || *end != '\0' || v < 0) return std::nullopt;
  return v;
}

}  // namespace

const char* loadUsage() {
  return "usage: gpua_load --port N [--host 127.0.0.1] [--path /mutate] [--connections 8]\n"
         "                 [--seconds 10] [--warmup 1] [--rate RPS (0 = closed loop)]\n"
         "                 [--no-keepalive] [--no-resume] [--body FILE | --pod "
         "small|typical|large]\n"
         "                 [--server-pid PID] [--label NAME]\n"
         "       gpua_load --dump-body FILE [--pod small|typical|large]  (write the body, exit)\n";
}

OptionsResult parseLoadOptions(int argc, const char* const* argv) {
  LoadOptions o;
  using Setter = std::function<bool(const std::string&)>;
  auto num = [](auto& field) {
    return Setter([&field](const std::string& v) {
      auto n = number(v);
      if (n) field = static_cast<std::remove_reference_t<decltype(field)>>(*n);
      return n.has_value();
    });
  };
  auto str = [](std::string& field) {
    return Setter([&field](const std::string& v) { return field = v, true; });
  };
  const std::map<std::string, Setter> valued{
      {"--host", str(o.host)},       {"--port", num(o.port)},
      {"--path", str(o.path)},       {"--connections", num(o.connections)},
      {"--seconds", num(o.seconds)}, {"--warmup", num(o.warmup)},
      {"--rate", num(o.rate)},       {"--body", str(o.bodyFile)},
      {"--pod", str(o.pod)},         {"--server-pid", num(o.serverPid)},
      {"--label", str(o.label)},     {"--dump-body", str(o.dumpBody)},
  };
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    if (arg == "--no-keepalive") {
      o.keepAlive = false;
    } else if (arg == "--no-resume") {
      o.resume = false;
    } else if (auto it = valued.find(arg); it != valued.end() && i + 1 < argc) {
      if (!it->second(argv[++i])) return {std::nullopt, "bad value for " + arg};
    } else {
      return {std::nullopt, "unknown or incomplete argument " + arg};
    }
  }
  if (o.port == 0 && o.dumpBody.empty()) return {std::nullopt, "--port is required"};
  if (o.host != "127.0.0.1" && o.host != "::1" && o.host != "localhost")
    return {std::nullopt, "--host must be a loopback address"};
  if (o.connections < 1) return {std::nullopt, "--connections must be at least 1"};
  if (o.seconds <= 0) return {std::nullopt, "--seconds must be positive"};
  return {o, {}};
}

}  // namespace gpua::load
