#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <limits>
#include <thread>

#include "support/eventually.hpp"
#include "telemetry/json_logger.hpp"
#include "telemetry/json_text.hpp"
#include "telemetry/metrics.hpp"

namespace gpua::telemetry {
namespace {

using namespace std::chrono;

std::string escaped(std::string_view s) {
  std::string out;
  appendJsonString(out, s);
  return out;
}

TEST(JsonText, EscapesQuotesBackslashesAndControlCharacters) {
  EXPECT_EQ(escaped(R"(say "hi" \o/)"), R"("say \"hi\" \\o/")");
  EXPECT_EQ(escaped("a\nb\rc\td\b\f"), R"("a\nb\rc\td\b\f")");
  EXPECT_EQ(escaped(std::string("\x01\x1f\x7f", 3)), R"("\u0001\u001f\u007f")");
  EXPECT_EQ(escaped(std::string("nul\0x", 5)), R"("nul\u0000x")");
}

TEST(JsonText, KeepsValidUtf8AndReplacesInvalid) {
  EXPECT_EQ(escaped("gr\xC3\xBC\xC3\x9F \xF0\x9F\x9A\x80"),
            "\"gr\xC3\xBC\xC3\x9F \xF0\x9F\x9A\x80\"");
  EXPECT_EQ(escaped("bad\xff"), "\"bad\xEF\xBF\xBD\"");
  EXPECT_EQ(escaped("\xC0\xAF"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");                  // overlong
  EXPECT_EQ(escaped("\xED\xA0\x80"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD\"");  // surrogate
  EXPECT_EQ(escaped("\xE2\x82"), "\"\xEF\xBF\xBD\xEF\xBF\xBD\"");                  // truncated
}

TEST(JsonText, EscapesEverySpecialCharacterAtEveryPositionOfALongString) {
  // Plain runs are scanned a block at a time: a special byte anywhere in a block must be seen.
  const std::vector<std::pair<std::string, std::string>> specials = {
      {"\"", "\\\""},
      {"\\", "\\\\"},
      {"\n", "\\n"},
      {std::string(1, '\0'), "\\u0000"},
      {"\x1f", "\\u001f"},
      {"\x7f", "\\u007f"},
      {"\xff", "\xEF\xBF\xBD"},
      {"\xC3\xBC", "\xC3\xBC"}};
  for (const auto& [raw, escapedForm] : specials) {
    for (std::size_t pos = 0; pos <= 24; ++pos) {
      const std::string before(pos, 'a'), after(24 - pos, 'b');
      EXPECT_EQ(escaped(before + raw + after), "\"" + before + escapedForm + after + "\"")
          << "special " << escapedForm << " at " << pos;
    }
  }
  // Built with append: GCC 12 at -O3 reports a false -Wrestrict for "\"" + std::string(...).
  std::string quoted64("\"");
  quoted64.append(64, 'x').append("\"");
  EXPECT_EQ(escaped(std::string(64, 'x')), quoted64);
  EXPECT_EQ(escaped("~ !#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}"),
            "\"~ !#$%&'()*+,-./09:;<=>?@AZ[]^_`az{|}\"");
}

// What one byte alone becomes, written out case by case (JSON's escapes, \u00XX for the other
// control bytes and DEL, U+FFFD for a byte that cannot stand alone in UTF-8).
std::string referenceEscape(unsigned char b) {
  switch (b) {
    case '"':
      return "\\\"";
    case '\\':
      return "\\\\";
    case '\n':
      return "\\n";
    case '\r':
      return "\\r";
    case '\t':
      return "\\t";
    case '\b':
      return "\\b";
    case '\f':
      return "\\f";
    default:
      break;
  }
  if (b < 0x20 || b == 0x7f) {
    char buf[8];
    std::snprintf(buf, sizeof buf, "\\u%04x", b);
    return buf;
  }
  if (b >= 0x80) return "\xEF\xBF\xBD";
  return std::string(1, static_cast<char>(b));
}

TEST(JsonText, EveryByteAtEveryPositionOfTwoBlocksMatchesTheReference) {
  // Runs are scanned 16 bytes a step, then 8, then one by one: every byte value at every
  // position of 40 bytes crosses each of those paths and their seams.
  for (unsigned b = 0; b < 256; ++b) {
    for (std::size_t pos = 0; pos < 40; ++pos) {
      std::string text(40, 'a');
      text[pos] = static_cast<char>(b);
      // Built with append: GCC 12 reports a false -Wrestrict for "\"" + std::string(...).
      std::string want("\"");
      want.append(pos, 'a').append(referenceEscape(static_cast<unsigned char>(b)));
      want.append(39 - pos, 'a').append("\"");
      ASSERT_EQ(escaped(text), want) << "byte " << b << " at " << pos;
    }
  }
}

// isPlainJsonText is exactly "appendJsonString writes it as it is": every byte value at every
// position of every length up to three blocks (the SSE2 blocks, the overlapping last block, the
// two 8-byte words, the bytes one by one).
TEST(JsonText, IsPlainJsonTextForEveryByteAtEveryPositionOfEveryLength) {
  for (std::size_t length = 0; length <= 48; ++length) {
    std::string text(length, 'a');
    EXPECT_TRUE(isPlainJsonText(text)) << length;
    for (std::size_t at = 0; at < length; ++at) {
      for (int b = 0; b < 256; ++b) {
        text[at] = static_cast<char>(b);
        const bool asItIs = escaped(text) == "\"" + text + "\"";
        EXPECT_EQ(isPlainJsonText(text), asItIs)
            << "length " << length << " byte " << b << " at " << at;
      }
      text[at] = 'a';
    }
  }
}

TEST(JsonText, Rfc3339UtcWithMicroseconds) {
  const system_clock::time_point t{seconds(1'764'495'278) + microseconds(123'456)};
  EXPECT_EQ(formatRfc3339Micros(t), "2025-11-30T09:34:38.123456Z");
  EXPECT_EQ(formatRfc3339Micros(system_clock::time_point{}), "1970-01-01T00:00:00.000000Z");
  EXPECT_EQ(formatRfc3339Micros(system_clock::time_point{microseconds(-1)}),
            "1969-12-31T23:59:59.999999Z");
}

TEST(JsonLogger, FormatsTypedFields) {
  const system_clock::time_point t{seconds(1'764'495'278) + microseconds(7)};
  const std::vector<std::string> changes = {"toleration nvidia.com/gpu", "class \"training\""};
  const std::string ns = "team-a";
  const LogField fields[] = {
      {"uid", "705ab4f5"},  {"namespace", ns}, {"latency_us", 42}, {"bytes", std::size_t{8192}},
      {"negative", -3L},    {"ratio", 0.25},   {"nan", 0.0 / 0.0}, {"dry_run", true},
      {"changes", changes}, {"class", nullptr}};
  EXPECT_EQ(JsonLogger::formatLine(t, LogLevel::Info, "decision\n", fields),
            R"({"time":"2025-11-30T09:34:38.000007Z","level":"info","msg":"decision\n",)"
            R"("uid":"705ab4f5","namespace":"team-a","latency_us":42,"bytes":8192,)"
            R"("negative":-3,"ratio":0.25,"nan":null,"dry_run":true,)"
            R"("changes":["toleration nvidia.com/gpu","class \"training\""],"class":null})"
            "\n");
}

// A line with nothing to escape or cut is written in one piece (JsonLogger::appendLine's plain
// path); one more field that needs escaping sends the same fields through the escaping path.
// Both must give the same bytes for the fields they share.
std::string plainAndEscapedLines(std::span<const LogField> fields, std::string& escaped) {
  const system_clock::time_point t{seconds(1'764'495'278) + microseconds(123)};
  std::vector<LogField> more(fields.begin(), fields.end());
  more.push_back({"zz", "\x01"});
  escaped = JsonLogger::formatLine(t, LogLevel::Info, "admission decision", more);
  const std::string_view tail = R"(,"zz":"\u0001"})"
                                "\n";
  EXPECT_TRUE(escaped.ends_with(tail)) << escaped;
  escaped.resize(escaped.size() - tail.size());
  escaped += "}\n";
  return JsonLogger::formatLine(t, LogLevel::Info, "admission decision", fields);
}

TEST(JsonLogger, APlainLineIsWhatTheEscapingPathWritesForEveryKindOfValue) {
  const std::vector<std::string> none;
  const std::vector<std::string> changes = {"node affinity pool a100", "", "priority class x"};
  const std::vector<std::string> atTheCap(kMaxLogListItems, "c");
  const std::vector<std::string> overTheCap(kMaxLogListItems + 1, "c");
  const std::string atTheBound(kMaxLogValueBytes, 'v');
  const std::string overTheBound(kMaxLogValueBytes + 1, 'v');
  const std::string printable = [] {
    std::string s;
    for (char c = ' '; c < 0x7f; ++c) s += c;
    return s;
  }();
  const std::vector<std::vector<LogField>> lines = {
      {},
      {{"path", "/mutate"}, {"uid", ""}, {"dryRun", false}, {"ok", true}, {"none", nullptr},
       {"null", std::string_view()}},  // an empty view whose data() is null (UBSan: memcpy)
      {{"min", std::numeric_limits<int64_t>::min()},
       {"max", std::numeric_limits<uint64_t>::max()},
       {"zero", 0},
       {"negative", -1L}},
      {{"tiny", -2.2250738585072014e-308},
       {"denormal", std::numeric_limits<double>::denorm_min()},
       {"tenth", 0.1},
       {"big", -1.7976931348623157e308},
       {"nan", std::numeric_limits<double>::quiet_NaN()},
       {"inf", std::numeric_limits<double>::infinity()}},
      {{"changes", std::span<const std::string>(none)}, {"more", changes}},
      {{"cap", atTheCap}, {"overCap", overTheCap}},
      {{"bound", atTheBound}, {"overBound", overTheBound}},
      {{"printable", printable}, {"del", "a\x7f"}, {"utf8", "gr\xC3\xBC\xC3\x9F"}},
  };
  for (const auto& fields : lines) {
    std::string escaped;
    const std::string plain = plainAndEscapedLines(fields, escaped);
    EXPECT_EQ(plain, escaped);
  }
}

// A field from a request is bounded: a 3 MB uid was logged verbatim.
TEST(JsonLogger, LongValuesAndListsAreCutAndSaySo) {
  const system_clock::time_point t{};
  const std::string uid(3 << 20, 'u');
  // A two-byte character straddling the cut is not split.
  std::string umlauts(kMaxLogValueBytes - 1, 'a');
  umlauts.append("\xC3\xBC").append("tail");
  const std::vector<std::string> many(1000, "change");
  const LogField fields[] = {{"uid", uid}, {"name", umlauts}, {"changes", many}};
  const auto line = JsonLogger::formatLine(t, LogLevel::Info, "decision", fields);
  EXPECT_LT(line.size(), 3 * kMaxLogValueBytes);
  std::string cutUid(kMaxLogValueBytes, 'u');
  cutUid.append("...(3145728 bytes)\"");
  EXPECT_NE(line.find(cutUid), std::string::npos);
  std::string cutName(kMaxLogValueBytes - 1, 'a');
  cutName.append("...(").append(std::to_string(umlauts.size())).append(" bytes)\"");
  EXPECT_NE(line.find(cutName), std::string::npos);
  EXPECT_EQ(line.find("\xEF\xBF\xBD"), std::string::npos) << "no character was split";
  EXPECT_NE(line.find("\"change\",\"...(1000 items)\"]"), std::string::npos);
}

TEST(JsonLogger, WritesWholeLinesFromManyThreadsAndFiltersLevels) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    JsonLogger log(f, LogLevel::Info);
    log.debug("hidden");
    EXPECT_FALSE(log.enabled(LogLevel::Debug));
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t)
      threads.emplace_back([&log, t] {
        const std::string payload(300, static_cast<char>('a' + t));
        for (int i = 0; i < 500; ++i) log.info("req", {{"t", t}, {"i", i}, {"payload", payload}});
      });
    for (auto& th : threads) th.join();
    log.error("done", {{"ok", false}});
  }
  std::rewind(f);
  std::string all;
  char buf[65536];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) all.append(buf, n);
  std::fclose(f);
  std::size_t lines = 0;
  std::size_t pos = 0;
  while (pos < all.size()) {
    const std::size_t eol = all.find('\n', pos);
    ASSERT_NE(eol, std::string::npos);
    const std::string line = all.substr(pos, eol - pos);
    ASSERT_EQ(line.rfind("{\"time\":\"", 0), 0u) << line.substr(0, 80);
    ASSERT_EQ(line.back(), '}');
    // A line holds one thread's payload only: no interleaving.
    const std::size_t p = line.find("\"payload\":\"");
    if (p != std::string::npos) {
      EXPECT_EQ(line.substr(p + 11, 300), std::string(300, line[p + 11]));
    }
    ++lines;
    pos = eol + 1;
  }
  EXPECT_EQ(lines, 4u * 500u + 1u);
  EXPECT_EQ(all.find("hidden"), std::string::npos);
  EXPECT_NE(all.find(R"("level":"error","msg":"done","ok":false})"), std::string::npos);
}

}  // namespace
}  // namespace gpua::telemetry

namespace gpua::telemetry {
namespace {

// Reads what reached the file through its descriptor, never through `f` itself: the logger's
// writer thread writes through `f` meanwhile, and a read on the same stream (rewind, fread)
// between its writes is undefined in C stdio (input followed by output needs a seek); a fresh
// clone's run once lost the timer's line that way (JsonLoggerAsync.TheTimerWritesAnIdleQueue).
std::string readAll(std::FILE* f) {
  std::fflush(f);
  std::string all;
  char buf[65536];
  for (off_t at = 0;;) {
    const ssize_t n = ::pread(fileno(f), buf, sizeof buf, at);
    if (n <= 0) break;
    all.append(buf, static_cast<std::size_t>(n));
    at += n;
  }
  return all;
}

std::size_t countLines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

using gpua::testing::eventually;

TEST(JsonLoggerAsync, QueuesInfoLinesUntilSizeFlushOrDestructionAndLosesNone) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    // A long interval, so only size, flush() and destruction can write here.
    JsonLogger log(f, LogLevel::Info, {1 << 20, 4096, std::chrono::hours(1), nullptr});
    log.info("first", {{"i", 1}});
    EXPECT_EQ(readAll(f), "") << "an info line is queued";
    log.flush();
    EXPECT_EQ(countLines(readAll(f)), 1u);
    const std::string payload(300, 'p');
    for (int i = 0; i < 20; ++i) log.info("bulk", {{"payload", payload}});  // > 4096 bytes
    // The writer takes what is queued when it wakes; lines after that wait for the next wake.
    EXPECT_TRUE(eventually([&] { return countLines(readAll(f)) > 1u; }))
        << "passing wakeBytes wakes the writer";
    log.info("last before exit");
  }
  const std::string all = readAll(f);
  std::fclose(f);
  EXPECT_EQ(countLines(all), 22u) << "destruction writes every queued line";
  EXPECT_NE(all.find("\"msg\":\"last before exit\"}\n"), std::string::npos);
}

TEST(JsonLoggerAsync, WarningsAndErrorsAreWrittenPromptlyWithWhatPrecedesThem) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    JsonLogger log(f, LogLevel::Info, {1 << 20, 1 << 20, std::chrono::hours(1), nullptr});
    log.info("decision");
    log.warn("trouble");
    EXPECT_TRUE(eventually([&] { return countLines(readAll(f)) == 2u; })) << readAll(f);
    const std::string all = readAll(f);
    EXPECT_LT(all.find("decision"), all.find("trouble")) << "order is kept";
  }
  std::fclose(f);
}

TEST(JsonLoggerAsync, TheTimerWritesAnIdleQueue) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    JsonLogger log(f, LogLevel::Info, {1 << 20, 1 << 20, std::chrono::milliseconds(10), nullptr});
    log.info("idle");
    EXPECT_TRUE(eventually([&] { return countLines(readAll(f)) == 1u; }));
  }
  std::fclose(f);
}

TEST(JsonLoggerAsync, AFullQueueDropsLinesCountsThemAndSaysSoInTheLog) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  const std::string payload(200, 'p');
  const LogField fields[] = {{"payload", payload}};
  const auto lineBytes =
      JsonLogger::formatLine(system_clock::now(), LogLevel::Info, "req", fields).size();
  Counter dropped;
  {
    // Room for 4.5 lines and never woken by size or time: exactly 4 fit, the rest drop.
    const std::size_t queue = lineBytes * 9 / 2;
    JsonLogger log(f, LogLevel::Info, {queue, queue, std::chrono::hours(1), &dropped});
    for (int i = 0; i < 50; ++i) log.info("req", {{"payload", payload}});
    EXPECT_EQ(log.droppedLines(), 46u);
    EXPECT_EQ(dropped.value(), 46.0);
  }
  const std::string all = readAll(f);
  std::fclose(f);
  EXPECT_EQ(countLines(all), 5u) << all;
  EXPECT_NE(all.find(R"("level":"warn","msg":"log lines dropped: the log queue was full",)"
                     R"("dropped":46})"),
            std::string::npos)
      << all;
}

TEST(JsonLoggerAsync, LevelsFilterBeforeAnythingIsQueued) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    JsonLogger log(f, LogLevel::Warn, {1 << 20, 1 << 20, std::chrono::hours(1), nullptr});
    log.debug("d");
    log.info("i");
    log.warn("w");
    log.error("e");
  }
  const std::string all = readAll(f);
  std::fclose(f);
  EXPECT_EQ(countLines(all), 2u) << all;
  EXPECT_EQ(all.find("\"msg\":\"i\""), std::string::npos);
}

TEST(LogLevel, ParsesTheSettingNames) {
  EXPECT_EQ(parseLogLevel("debug"), LogLevel::Debug);
  EXPECT_EQ(parseLogLevel("info"), LogLevel::Info);
  EXPECT_EQ(parseLogLevel("warn"), LogLevel::Warn);
  EXPECT_EQ(parseLogLevel("warning"), LogLevel::Warn);
  EXPECT_EQ(parseLogLevel("error"), LogLevel::Error);
  EXPECT_EQ(parseLogLevel("INFO"), std::nullopt);
  EXPECT_EQ(parseLogLevel(""), std::nullopt);
  for (auto l : {LogLevel::Debug, LogLevel::Info, LogLevel::Warn, LogLevel::Error})
    EXPECT_EQ(parseLogLevel(logLevelName(l)), l);
}

TEST(JsonText, AppendRfc3339MicrosMatchesFormatAcrossSecondsAndPadsMicros) {
  const auto base = system_clock::time_point(seconds(1'764'495'278));  // 2025-11-30T09:34:38Z
  std::string out;
  appendRfc3339Micros(out, base + microseconds(42));
  EXPECT_EQ(out, "2025-11-30T09:34:38.000042Z");
  out.clear();
  appendRfc3339Micros(out, base + seconds(1) + microseconds(999'999));  // next second: new date
  EXPECT_EQ(out, "2025-11-30T09:34:39.999999Z");
  EXPECT_EQ(formatRfc3339Micros(base - microseconds(1)), "2025-11-30T09:34:37.999999Z");
}

}  // namespace
}  // namespace gpua::telemetry
