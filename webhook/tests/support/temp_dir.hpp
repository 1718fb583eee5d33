// A temporary directory removed at scope exit, plus file helpers for tests.
#pragma once

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

namespace gpua::testing {

class TempDir {
 public:
  TempDir() {
    std::string tmpl = (std::filesystem::temp_directory_path() / "gpua-test-XXXXXX").string();
    if (!mkdtemp(tmpl.data())) throw std::runtime_error("mkdtemp failed");
    path_ = tmpl;
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path_, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& path() const { return path_; }
  std::string file(const std::string& name) const { return (path_ / name).string(); }
  // Writes `text` to `name` in the directory; returns the file's path.
  std::string write(const std::string& name, const std::string& text) const;

 private:
  std::filesystem::path path_;
};

inline void writeFile(const std::filesystem::path& path, const std::string& content) {
  std::filesystem::create_directories(path.parent_path());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << content;
  if (!out) throw std::runtime_error("cannot write " + path.string());
}

// Writes through a temporary file and rename, as editors and kubelet do: readers never see a
// half-written file.
inline void writeFileAtomically(const std::filesystem::path& path, const std::string& content) {
  const auto tmp = path.string() + ".tmp";
  writeFile(tmp, content);
  std::filesystem::rename(tmp, path);
}

// Points `dir/..data` at `dir/<version>` the way kubelet updates ConfigMap/Secret volumes:
// a new symlink renamed over the old one.
inline void swapDataSymlink(const std::filesystem::path& dir, const std::string& version) {
  const auto tmp = dir / "..data_tmp";
  std::filesystem::remove(tmp);
  std::filesystem::create_directory_symlink(version, tmp);
  std::filesystem::rename(tmp, dir / "..data");
}

inline std::string TempDir::write(const std::string& name, const std::string& text) const {
  writeFile(path_ / name, text);
  return file(name);
}

inline std::string readFile(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

}  // namespace gpua::testing
