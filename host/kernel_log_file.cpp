// Saved kernel logs, plain or gzip (zlib's inflate, every member of a concatenated stream).
#include "host/kernel_log_file.hpp"

#include <unistd.h>
#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "bench/sys/config_error.hpp"
#include "bench/sys/input_path.hpp"

namespace fabcheck {
namespace {

class Descriptor {
 public:
  explicit Descriptor(int fd) : fd_(fd) {}
  ~Descriptor() { ::close(fd_); }
  Descriptor(const Descriptor&) = delete;
  Descriptor& operator=(const Descriptor&) = delete;
  int get() const { return fd_; }

 private:
  int fd_;
};

// read(2) whole chunks, EINTR retried; 0 at the end.
std::size_t read_some(int fd, char* into, std::size_t size, const std::string& name,
                      std::size_t line) {
  while (true) {
    const ssize_t got = ::read(fd, into, size);
    if (got >= 0) return static_cast<std::size_t>(got);
    if (errno == EINTR) continue;
    throw ConfigError(name, static_cast<long>(line),
                      std::string("cannot read a kernel log: ") + std::strerror(errno));
  }
}

class Inflater {
 public:
  Inflater() {
    // 15 + 32: the largest window, a gzip (or zlib) header detected.
    if (inflateInit2(&stream_, 15 + 32) != Z_OK) throw ConfigError("zlib: cannot start inflate");
  }
  ~Inflater() { inflateEnd(&stream_); }
  Inflater(const Inflater&) = delete;
  Inflater& operator=(const Inflater&) = delete;
  z_stream& stream() { return stream_; }

 private:
  z_stream stream_{};
};

}  // namespace

KernelLogFileStats read_kernel_log_file(const std::filesystem::path& file,
                                        const LineHandler& on_line) {
  const std::string name = file.string();
  const Descriptor fd(open_regular_file(file, "a kernel log"));
  LineSplitter splitter;
  KernelLogFileStats stats;
  std::vector<char> input(64 * 1024);
  std::vector<char> output(256 * 1024);
  std::size_t have = read_some(fd.get(), input.data(), input.size(), name, 0);
  stats.compressed = have >= 2 && static_cast<unsigned char>(input[0]) == 0x1f &&
                     static_cast<unsigned char>(input[1]) == 0x8b;
  if (!stats.compressed) {
    while (have > 0) {
      stats.bytes += have;
      splitter.feed(std::string_view(input.data(), have), on_line);
      have = read_some(fd.get(), input.data(), input.size(), name, splitter.lines() + 1);
    }
    splitter.finish(on_line);
    stats.lines = splitter.lines();
    return stats;
  }
  Inflater inflater;
  z_stream& z = inflater.stream();
  bool member_ended = false;
  auto corrupt = [&](const std::string& why) {
    return ConfigError(name, static_cast<long>(splitter.lines() + 1),
                       "not a whole gzip stream (" + why +
                           "): a rotated log being written, or damaged; nothing judged");
  };
  while (have > 0) {
    z.next_in = reinterpret_cast<Bytef*>(input.data());
    z.avail_in = static_cast<uInt>(have);
    bool output_full = false;
    // Until this input is used and zlib holds no output back (a full buffer may leave some).
    while (z.avail_in > 0 || output_full) {
      if (member_ended) {
        // Another gzip member after the last (cat a.gz b.gz): read on.
        if (inflateReset(&z) != Z_OK) throw corrupt("reset failed");
        member_ended = false;
      }
      z.next_out = reinterpret_cast<Bytef*>(output.data());
      z.avail_out = static_cast<uInt>(output.size());
      const int result = inflate(&z, Z_NO_FLUSH);
      if (result != Z_OK && result != Z_STREAM_END && result != Z_BUF_ERROR)
        throw corrupt(z.msg != nullptr ? z.msg : "inflate error " + std::to_string(result));
      const std::size_t produced = output.size() - z.avail_out;
      stats.bytes += produced;
      if (stats.bytes > kMostKernelLogBytes)
        throw ConfigError(name, 0,
                          "decompresses to more than " + std::to_string(kMostKernelLogBytes >> 30) +
                              " GiB: larger than any kernel log; nothing judged");
      splitter.feed(std::string_view(output.data(), produced), on_line);
      output_full = produced == output.size();
      if (result == Z_STREAM_END) {
        member_ended = true;
        output_full = false;
      }
      if (result == Z_BUF_ERROR && produced == 0) break;  // needs more input
    }
    have = read_some(fd.get(), input.data(), input.size(), name, splitter.lines() + 1);
  }
  if (!member_ended) throw corrupt("it ends inside a member");
  splitter.finish(on_line);
  stats.lines = splitter.lines();
  return stats;
}

}  // namespace fabcheck
