#include "server/file_watcher.hpp"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string_view>

#include "kube/fnv.hpp"

namespace gpua::server {

namespace {

namespace fs = std::filesystem;

// FNV-1a: good enough to notice edits (not a security boundary).
void mix(uint64_t& h, std::string_view data) { kube::fnvField(h, data); }

void mixFile(uint64_t& h, const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    mix(h, "\x01unreadable");
    return;
  }
  std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  mix(h, content);
}

bool isPolicyFile(const fs::directory_entry& e) {
  const auto name = e.path().filename().string();
  if (name.empty() || name.front() == '.') return false;
  const auto ext = e.path().extension().string();
  std::error_code ec;
  return (ext == ".yaml" || ext == ".yml") && fs::is_regular_file(e.path(), ec);
}

void mixDirectory(uint64_t& h, const fs::path& dir) {
  std::vector<fs::path> files;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
    if (isPolicyFile(*it)) files.push_back(it->path());
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    mix(h, f.filename().string());
    mixFile(h, f);
  }
}

}  // namespace

uint64_t fingerprintPaths(const std::vector<std::string>& paths) {
  uint64_t h = kube::kFnvOffsetBasis;
  for (const auto& p : paths) {
    mix(h, p);
    std::error_code ec;
    const auto status = fs::status(p, ec);  // follows symlinks
    if (ec || !fs::exists(status))
      mix(h, "\x01missing");
    else if (fs::is_directory(status))
      mixDirectory(h, p);
    else
      mixFile(h, p);
  }
  return h;
}

FileWatcher::FileWatcher(std::vector<std::string> paths)
    : paths_(std::move(paths)), last_(fingerprintPaths(paths_)) {}

bool FileWatcher::changed() {
  const auto now = fingerprintPaths(paths_);
  if (now == last_) return false;
  last_ = now;
  return true;
}

}  // namespace gpua::server
