// Runs the real gpu-admission binary as a child process for end-to-end tests: stdout (JSON
// logs) and stderr (banner, errors) go to files the test can read; the bound port is parsed
// from the startup banner; the destructor kills a server the test left running.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <optional>
#include <regex>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "support/temp_dir.hpp"

extern char** environ;

namespace gpua::testing {

class ServerProcess {
 public:
  // `launcher`: a command that runs the binary, e.g. {"/usr/bin/taskset", "-c", "0"}.
  // GPUA_E2E_BINARY overrides the binary under test (to show a test failing on an old build).
  ServerProcess(const std::vector<std::string>& args, const std::string& logDir,
                const std::vector<std::string>& launcher = {}) {
    out_ = logDir + "/server-" + std::to_string(++counter()) + ".out";
    err_ = out_.substr(0, out_.size() - 4) + ".err";
    const char* override = std::getenv("GPUA_E2E_BINARY");
    std::vector<std::string> all = launcher;
    all.emplace_back(override && *override ? override : GPUA_BINARY);
    all.insert(all.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& a : all) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 1, out_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_addopen(&fa, 2, err_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    const int rc = posix_spawn(&pid_, all.front().c_str(), &fa, nullptr, argv.data(), environ);
    posix_spawn_file_actions_destroy(&fa);
    if (rc != 0) throw std::runtime_error("cannot start " + all.front());
  }

  ~ServerProcess() {
    if (!exitCode_) {
      ::kill(pid_, SIGKILL);
      int status = 0;
      ::waitpid(pid_, &status, 0);
    }
  }
  ServerProcess(const ServerProcess&) = delete;
  ServerProcess& operator=(const ServerProcess&) = delete;

  // The port from the banner "... on https://HOST:PORT — try: ...".
  uint16_t waitForPort(std::chrono::milliseconds timeout = std::chrono::seconds(10)) {
    static const std::regex kBanner("on https://[^ ]+:([0-9]+) ");
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      std::smatch m;
      const auto text = err();
      if (std::regex_search(text, m, kBanner)) return static_cast<uint16_t>(std::stoi(m[1]));
      if (exited()) break;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    throw std::runtime_error("server did not print its port; stderr: " + err());
  }

  // Never signals a reaped process (its pid may belong to someone else by now).
  void signal(int sig) {
    if (!exited()) ::kill(pid_, sig);
  }

  // The exit code, waiting up to `timeout`; nullopt if still running (or killed by a signal).
  std::optional<int> waitExit(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (!exited() && std::chrono::steady_clock::now() < deadline)
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return exitCode_;
  }

  pid_t pid() const { return pid_; }
  std::string out() const { return readFile(out_); }
  std::string err() const { return readFile(err_); }

 private:
  bool exited() {
    if (exitCode_) return true;
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) != pid_) return false;
    exitCode_ = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    return true;
  }
  static int& counter() {
    static int n = 0;
    return n;
  }

  pid_t pid_ = 0;
  std::string out_, err_;
  std::optional<int> exitCode_;
};

}  // namespace gpua::testing
