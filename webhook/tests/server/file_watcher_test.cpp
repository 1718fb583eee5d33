#include "server/file_watcher.hpp"

#include <gtest/gtest.h>

#include "support/temp_dir.hpp"

namespace gpua::server {
namespace {

namespace fs = std::filesystem;
using gpua::testing::swapDataSymlink;
using gpua::testing::TempDir;
using gpua::testing::writeFile;

TEST(FileWatcher, NoChangeWhenNothingChanged) {
  TempDir dir;
  writeFile(dir.path() / "a.yaml", "a: 1\n");
  FileWatcher w({dir.path().string()});
  EXPECT_FALSE(w.changed());
  EXPECT_FALSE(w.changed());
}

TEST(FileWatcher, ContentEditAddAndRemoveInADirectoryAreChanges) {
  TempDir dir;
  writeFile(dir.path() / "a.yaml", "a: 1\n");
  FileWatcher w({dir.path().string()});
  writeFile(dir.path() / "a.yaml", "a: 2\n");  // same size, same second: content decides
  EXPECT_TRUE(w.changed());
  EXPECT_FALSE(w.changed());
  writeFile(dir.path() / "b.yml", "b: 1\n");
  EXPECT_TRUE(w.changed());
  fs::remove(dir.path() / "b.yml");
  EXPECT_TRUE(w.changed());
}

TEST(FileWatcher, IgnoresFilesThatAreNotPolicies) {
  TempDir dir;
  writeFile(dir.path() / "a.yaml", "a: 1\n");
  FileWatcher w({dir.path().string()});
  writeFile(dir.path() / "notes.txt", "hello\n");
  writeFile(dir.path() / ".hidden.yaml", "x: 1\n");
  EXPECT_FALSE(w.changed());
}

TEST(FileWatcher, SeesAKubeletStyleDataSymlinkSwap) {
  // ConfigMap volume layout: cluster.yaml -> ..data/cluster.yaml, ..data -> ..v1
  TempDir dir;
  writeFile(dir.path() / "..v1" / "cluster.yaml", "rev: 1\n");
  writeFile(dir.path() / "..v2" / "cluster.yaml", "rev: 2\n");
  swapDataSymlink(dir.path(), "..v1");
  fs::create_symlink("..data/cluster.yaml", dir.path() / "cluster.yaml");

  FileWatcher w({dir.path().string()});
  EXPECT_FALSE(w.changed());
  swapDataSymlink(dir.path(), "..v2");
  EXPECT_TRUE(w.changed());
  EXPECT_FALSE(w.changed());
}

TEST(FileWatcher, WatchesSingleFilesThroughSymlinksAndNoticesDisappearance) {
  TempDir dir;
  writeFile(dir.path() / "..v1" / "tls.crt", "cert-1");
  writeFile(dir.path() / "..v2" / "tls.crt", "cert-2");
  swapDataSymlink(dir.path(), "..v1");
  fs::create_symlink("..data/tls.crt", dir.path() / "tls.crt");
  const auto crt = (dir.path() / "tls.crt").string();

  FileWatcher w({crt});
  swapDataSymlink(dir.path(), "..v2");
  EXPECT_TRUE(w.changed());
  fs::remove(dir.path() / "tls.crt");
  EXPECT_TRUE(w.changed());
  EXPECT_FALSE(w.changed());
}

TEST(FileWatcher, FingerprintIsStableAndOrderSensitive) {
  TempDir dir;
  writeFile(dir.path() / "a", "x");
  writeFile(dir.path() / "b", "x");
  const auto a = dir.file("a"), b = dir.file("b");
  EXPECT_EQ(fingerprintPaths({a, b}), fingerprintPaths({a, b}));
  EXPECT_NE(fingerprintPaths({a, b}), fingerprintPaths({b, a}));
}

}  // namespace
}  // namespace gpua::server
