// DirHandle: what is written goes into the folder made, whatever is renamed, replaced or linked
// around it meanwhile (a property test over random trees of links, FIFOs and folders); output
// folders another user could change are refused; small files are read bounded, never a FIFO.
#include "bench/sys/dir_handle.hpp"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <thread>

#include "bench/sys/config_error.hpp"

namespace fabcheck {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

fs::path fresh_dir(const std::string& tag) {
  std::string pattern = (fs::temp_directory_path() / ("fabcheck-dirhandle-" + tag + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp");
  return pattern;
}

std::string slurp(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Every regular file under `root` (links not followed) with its content.
std::map<std::string, std::string> snapshot(const fs::path& root) {
  std::map<std::string, std::string> files;
  for (auto it = fs::recursive_directory_iterator(root); it != fs::recursive_directory_iterator();
       ++it) {
    if (it->is_symlink()) continue;
    if (it->is_regular_file()) files[it->path().string()] = slurp(it->path());
  }
  return files;
}

// Property: over random trees of links (to files outside, to folders outside, dangling, looping),
// FIFOs and folders under the names the writer uses, planted after the folder is made, every
// write goes into the folder made and nothing outside it changes or appears.
TEST(DirHandle, WritesNeverLeaveTheFolderMadeOverRandomTreesOfLinks) {
  const fs::path base = fresh_dir("property");
  const fs::path victims = base / "victims";
  fs::create_directories(victims / "folder");
  std::ofstream(victims / "passwd") << "root:x:0:0\n";
  std::ofstream(victims / "folder" / "keep") << "keep\n";
  const auto before = snapshot(victims);
  const std::vector<std::string> names = {"summary.json", "measurements.jsonl", "evidence",
                                          "a.txt", ".summary.json.tmp-x", "sub"};
  std::mt19937 random(20261202);
  for (int round = 0; round < 300; ++round) {
    const fs::path area = base / ("area" + std::to_string(round));
    fs::create_directories(area);
    const DirHandle parent = DirHandle::open(area);
    DirHandle made = parent.make_dir("run", 0755);
    // The attack: the folder made is renamed aside and a hostile tree takes its name.
    fs::rename(area / "run", area / "aside");
    fs::create_directory(area / "run");
    for (const std::string& name : names) {
      switch (random() % 6) {
        case 0: fs::create_symlink(victims / "passwd", area / "run" / name); break;
        case 1: fs::create_directory_symlink(victims / "folder", area / "run" / name); break;
        case 2: ::mkfifo((area / "run" / name).c_str(), 0666); break;
        case 3: fs::create_symlink(area / "run" / name, area / "run" / name); break;  // loop
        case 4: fs::create_directory(area / "run" / name); break;
        default: break;
      }
    }
    if (random() % 3 == 0) {  // or the name itself is a link to the victims
      fs::remove_all(area / "run");
      fs::create_directory_symlink(victims, area / "run");
    }
    // The writer, through the handle only.
    made.publish_file("summary.json", "{\"ok\":1}\n", 0644);
    made.publish_file("a.txt", "new\n", 0644, false);
    UniqueFd lines = made.create_file("measurements.jsonl", 0644, O_WRONLY | O_APPEND);
    ASSERT_EQ(write_all(lines.get(), "{}\n"), 0);
    const DirHandle evidence = made.make_dir("evidence", 0700);
    UniqueFd note = evidence.create_file("index.txt", 0600);
    ASSERT_EQ(write_all(note.get(), "index\n"), 0);
    UniqueFd again = made.open_file("measurements.jsonl", O_WRONLY | O_APPEND);
    ASSERT_EQ(write_all(again.get(), "{}\n"), 0);
    EXPECT_EQ(slurp(area / "aside" / "summary.json"), "{\"ok\":1}\n") << round;
    EXPECT_EQ(slurp(area / "aside" / "a.txt"), "new\n") << round;
    EXPECT_EQ(slurp(area / "aside" / "measurements.jsonl"), "{}\n{}\n") << round;
    EXPECT_EQ(slurp(area / "aside" / "evidence" / "index.txt"), "index\n") << round;
    ASSERT_EQ(snapshot(victims), before) << "round " << round << " wrote outside the folder";
  }
  fs::remove_all(base);
}

// The same while another thread swaps the folder for links as fast as it can: nothing outside.
TEST(DirHandle, AThreadSwappingTheFolderForLinksNeverRedirectsAWrite) {
  const fs::path base = fresh_dir("race");
  fs::create_directories(base / "victims");
  std::ofstream(base / "victims" / "summary.json") << "victim\n";
  const DirHandle parent = DirHandle::open(base);
  std::atomic<bool> stop{false};
  std::atomic<long> swaps{0};
  std::thread attacker([&] {
    std::error_code ignored;
    for (long k = 0; !stop; ++k) {
      fs::rename(base / "run", base / ("aside-" + std::to_string(k)), ignored);
      fs::create_directory_symlink(base / "victims", base / "run", ignored);
      if (!ignored) ++swaps;
      std::this_thread::yield();
    }
  });
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  for (int round = 0; round < 2000 || (swaps < 500 && std::chrono::steady_clock::now() < until);
       ++round) {
    std::error_code ignored;
    fs::remove(base / "run", ignored);
    try {
      const DirHandle made = parent.make_dir("run", 0755);
      made.publish_file("summary.json", "mine\n", 0644);
      UniqueFd file = made.create_file("findings.jsonl", 0644, O_WRONLY | O_APPEND);
      ASSERT_EQ(write_all(file.get(), "x\n"), 0);
    } catch (const std::system_error&) {
      // The name was taken by the attacker's link first: refused, nothing written.
    }
  }
  stop = true;
  attacker.join();
  EXPECT_GT(swaps.load(), 100);
  EXPECT_EQ(slurp(base / "victims" / "summary.json"), "victim\n");
  EXPECT_FALSE(fs::exists(base / "victims" / "findings.jsonl"));
  fs::remove_all(base);
}

TEST(DirHandle, RefusesAnOutputFolderOthersCanWriteWithoutTheStickyBit) {
  const fs::path base = fresh_dir("unsafe");
  fs::create_directory(base / "open");
  ::chmod((base / "open").c_str(), 0777);
  try {
    DirHandle::open_output_folder(base / "open", "--out");
    FAIL() << "a folder anyone can write was accepted";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), HasSubstr((base / "open").string()));
    EXPECT_THAT(error.what(), HasSubstr("writable by others without the sticky bit"));
  }
  fs::create_directory(base / "sticky");
  ::chmod((base / "sticky").c_str(), 01777);  // /tmp's mode: others cannot rename what is ours
  EXPECT_NO_THROW(DirHandle::open_output_folder(base / "sticky", "--out"));
  fs::create_directory(base / "group");
  ::chmod((base / "group").c_str(), 0775);
  EXPECT_THROW(DirHandle::open_output_folder(base / "group", "--out"), ConfigError);
  fs::remove_all(base);
}

TEST(DirHandle, RefusesAnOutputFolderOwnedByAnotherUser) {
  if (::geteuid() != 0) GTEST_SKIP() << "needs root to give a folder to another user";
  const fs::path base = fresh_dir("owner");
  fs::create_directory(base / "theirs");
  ASSERT_EQ(::chown((base / "theirs").c_str(), 65534, 65534), 0);
  try {
    DirHandle::open_output_folder(base / "theirs", "--out");
    FAIL() << "another user's folder was accepted";
  } catch (const ConfigError& error) {
    EXPECT_THAT(error.what(), HasSubstr("owned by uid 65534"));
  }
  fs::remove_all(base);
}

TEST(DirHandle, MakeUniqueDirNumbersANameTaken) {
  const fs::path base = fresh_dir("unique");
  const DirHandle parent = DirHandle::open(base);
  std::string first, second, third;
  parent.make_unique_dir("run", 0755, first);
  parent.make_unique_dir("run", 0755, second);
  fs::create_symlink("/etc", base / "run-3");  // a link under the next name is skipped, not used
  parent.make_unique_dir("run", 0755, third);
  EXPECT_EQ(first, "run");
  EXPECT_EQ(second, "run-2");
  EXPECT_EQ(third, "run-4");
  fs::remove_all(base);
}

// The bounded reader: a FIFO is refused at once (never waited on), a link to /dev/zero and a
// 2 GB sparse file are refused before anything is read.
TEST(DirHandle, SmallFileReaderRefusesFifoDeviceLinkAndHugeSparseFile) {
  const fs::path base = fresh_dir("bounded");
  ASSERT_EQ(::mkfifo((base / "fifo").c_str(), 0666), 0);
  fs::create_symlink("/dev/zero", base / "zero");
  {
    const int fd = ::open((base / "sparse").c_str(), O_CREAT | O_WRONLY, 0600);
    ASSERT_EQ(::ftruncate(fd, 2LL << 30), 0);
    ::close(fd);
  }
  std::ofstream(base / "record") << "host=a\npid=1\n";
  const DirHandle dir = DirHandle::open(base);
  const auto start = std::chrono::steady_clock::now();
  std::string why;
  EXPECT_FALSE(read_small_file(dir, "fifo", 4096, &why));
  EXPECT_THAT(why, HasSubstr("named pipe"));
  EXPECT_FALSE(read_small_file(dir, "zero", 4096, &why));
  EXPECT_THAT(why, HasSubstr("symbolic link"));
  EXPECT_FALSE(read_small_file("/dev/zero", 4096, &why));
  EXPECT_THAT(why, HasSubstr("character device"));
  EXPECT_FALSE(read_small_file(dir, "sparse", 4096, &why));
  EXPECT_THAT(why, HasSubstr("more than the 4096"));
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(2));
  EXPECT_EQ(read_small_file(dir, "record", 4096).value_or(""), "host=a\npid=1\n");
  fs::remove_all(base);
}

TEST(DirHandle, PublishWithoutReplaceNeverWritesOverAName) {
  const fs::path base = fresh_dir("publish");
  std::ofstream(base / "victim") << "keep\n";
  fs::create_symlink(base / "victim", base / "profile.toml");
  const DirHandle dir = DirHandle::open(base);
  try {
    dir.publish_file("profile.toml", "new\n", 0644, false);
    FAIL() << "written over a link";
  } catch (const std::system_error& error) {
    EXPECT_EQ(error.code().value(), EEXIST);
  }
  EXPECT_EQ(slurp(base / "victim"), "keep\n");
  // No temporary file is left behind.
  EXPECT_EQ(std::distance(fs::directory_iterator(base), fs::directory_iterator()), 2);
  fs::remove_all(base);
}

}  // namespace
}  // namespace fabcheck
