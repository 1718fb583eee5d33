#include "telemetry/async_line_writer.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "support/eventually.hpp"
#include "telemetry/metrics.hpp"

namespace gpua::telemetry {
namespace {

using namespace std::chrono_literals;

std::string readAll(std::FILE* f) {
  std::fflush(f);
  std::rewind(f);
  std::string all;
  char buf[65536];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) all.append(buf, n);
  return all;
}

std::size_t countLines(const std::string& s) {
  return static_cast<std::size_t>(std::count(s.begin(), s.end(), '\n'));
}

template <class Pred>
bool eventually(Pred pred) {
  for (int i = 0; i < 400; ++i) {
    if (pred()) return true;
    std::this_thread::sleep_for(5ms);
  }
  return pred();
}

TEST(AsyncLineWriter, DestructionWritesEveryQueuedLineInOrder) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    // Never woken by size or time: only destruction can write these.
    AsyncLineWriter w(f, {1 << 20, 1 << 20, std::chrono::hours(1), nullptr, {}});
    for (int i = 0; i < 1000; ++i) ASSERT_TRUE(w.push("line " + std::to_string(i) + "\n", false));
  }
  const auto all = readAll(f);
  std::fclose(f);
  std::string expected;
  for (int i = 0; i < 1000; ++i) expected += "line " + std::to_string(i) + "\n";
  EXPECT_EQ(all, expected);
}

TEST(AsyncLineWriter, WritesOnTheTimerOnSizeAndAtOnceForUrgentLines) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    AsyncLineWriter slow(f, {1 << 20, 1 << 20, std::chrono::hours(1), nullptr, {}});
    slow.push("routine\n", false);
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(readAll(f), "") << "below wakeBytes, before the interval: still queued";
    slow.push("urgent\n", true);
    EXPECT_TRUE(eventually([&] { return readAll(f) == "routine\nurgent\n"; })) << readAll(f);
    slow.push(std::string(1 << 20, 'x').substr(0, (1 << 20) - 1) + "\n", false);
    EXPECT_TRUE(eventually([&] { return countLines(readAll(f)) == 3; })) << "wakeBytes reached";
  }
  std::fclose(f);

  std::FILE* g = std::tmpfile();
  ASSERT_NE(g, nullptr);
  {
    AsyncLineWriter timed(g, {1 << 20, 1 << 20, 10ms, nullptr, {}});
    timed.push("idle\n", false);
    EXPECT_TRUE(eventually([&] { return readAll(g) == "idle\n"; }));
  }
  std::fclose(g);
}

TEST(AsyncLineWriter, FlushReturnsOnceQueuedLinesAreInTheFile) {
  std::FILE* f = std::tmpfile();
  ASSERT_NE(f, nullptr);
  {
    AsyncLineWriter w(f, {1 << 20, 1 << 20, std::chrono::hours(1), nullptr, {}});
    w.push("a\n", false);
    w.push("b\n", false);
    w.flush();
    EXPECT_EQ(readAll(f), "a\nb\n");
  }
  std::fclose(f);
}

TEST(AsyncLineWriter, AFullQueueDropsAndCountsWithoutWaitingForTheFile) {
  // A pipe nobody reads yet: the writer thread blocks in write(2) once the pipe is full, as it
  // does when a container runtime falls behind. Logging threads must not block with it.
  int fds[2];
  ASSERT_EQ(::pipe(fds), 0);
  ::fcntl(fds[1], F_SETPIPE_SZ, 4096);  // best effort: a small pipe fills sooner
  std::FILE* out = ::fdopen(fds[1], "w");
  ASSERT_NE(out, nullptr);
  Counter dropped;
  const std::string line(999, 'l');
  constexpr int kLines = 2000;  // 2 MB: far more than the pipe and the 64 KiB queue hold
  int accepted = 0;
  auto w = std::make_unique<AsyncLineWriter>(
      out, AsyncWriterOptions{64 << 10, 4 << 10, 1ms, &dropped,
                              [](uint64_t n) { return "dropped " + std::to_string(n) + "\n"; }});
  for (int i = 0; i < kLines; ++i) accepted += w->push(line + "\n", false) ? 1 : 0;
  // Every push returned although nothing reads the pipe: lines past the bound were dropped.
  EXPECT_LT(accepted, kLines);
  EXPECT_GT(accepted, 0);
  EXPECT_EQ(w->dropped(), static_cast<uint64_t>(kLines - accepted));
  EXPECT_EQ(dropped.value(), static_cast<double>(kLines - accepted));

  // Now read, so the writer can finish: destruction writes every accepted line and says how
  // many were dropped.
  std::string received;
  std::thread reader([fd = fds[0], &received] {
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) received.append(buf, n);
  });
  w.reset();
  std::fclose(out);  // EOF for the reader
  reader.join();
  ::close(fds[0]);
  std::istringstream lines(received);
  int kept = 0;
  uint64_t reported = 0;
  for (std::string l; std::getline(lines, l);) {
    if (l == line)
      ++kept;
    else if (l.rfind("dropped ", 0) == 0)
      reported += std::stoull(l.substr(8));
    else
      ADD_FAILURE() << "unexpected line: " << l.substr(0, 40);
  }
  EXPECT_EQ(kept, accepted);
  EXPECT_EQ(reported, static_cast<uint64_t>(kLines - accepted));
}

}  // namespace
}  // namespace gpua::telemetry
