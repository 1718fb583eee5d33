// Log levels, their names and how a setting names them. Header-only and standard library only,
// so settings parsing (server_core, which does not link telemetry) can validate --log-level.
#pragma once

#include <optional>
#include <string_view>

namespace gpua::telemetry {

enum class LogLevel { Debug, Info, Warn, Error };

inline const char* logLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warn:
      return "warn";
    case LogLevel::Error:
      return "error";
  }
  return "info";
}

// "debug", "info", "warn" (or "warning"), "error"; nullopt for anything else.
inline std::optional<LogLevel> parseLogLevel(std::string_view text) {
  if (text == "debug") return LogLevel::Debug;
  if (text == "info") return LogLevel::Info;
  if (text == "warn" || text == "warning") return LogLevel::Warn;
  if (text == "error") return LogLevel::Error;
  return std::nullopt;
}

}  // namespace gpua::telemetry
