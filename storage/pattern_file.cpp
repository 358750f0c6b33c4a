// Opening, writing and un-caching pattern files.
#include "storage/pattern_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <system_error>

#include "storage/io_loop.hpp"

namespace fabcheck {

namespace fs = std::filesystem;

int open_for_pattern(IoEngine& engine, const ScratchDir& scratch, const fs::path& file,
                     OpenAccess access, bool want_direct, bool& direct) {
  direct = want_direct;
  if (!engine.caps().touches_files) return engine.adopt(UniqueFd());
  if (want_direct) {
    try {
      return engine.adopt(scratch.open_file(file, open_flags({access, true})));
    } catch (const std::system_error& error) {
      if (error.code().value() != EINVAL) throw;  // EINVAL: the filesystem refuses O_DIRECT
      direct = false;
    }
  }
  return engine.adopt(scratch.open_file(file, open_flags({access, false})));
}

void fsync_file(IoEngine& engine, int handle, const fs::path& file) {
  const IoRequest request{IoOp::fsync, handle, nullptr, 0, 0, 0};
  engine.submit({&request, 1});
  IoCompletion completion;
  while (engine.reap(1, {&completion, 1}) == 0) {
  }
  if (completion.result < 0) {
    throw std::system_error(static_cast<int>(-completion.result), std::generic_category(),
                            "fsync " + file.string());
  }
}

void write_pattern_file(IoEngine& engine, const ScratchDir& scratch, const fs::path& file,
                        std::uint64_t size, int rank, const StorageOptions& options) {
  bool direct = false;
  const int handle =
      open_for_pattern(engine, scratch, file, OpenAccess::write_only, options.direct, direct);
  IoLoopConfig config;
  config.op = IoOp::write;
  config.block_size = std::min(options.block_size, size);
  config.queue_depth = options.queue_depth;
  config.region_bytes = size;
  config.max_bytes = size;
  config.pattern_rank = rank;
  config.file_label = file.string();
  run_io_loop(engine, handle, config);
  fsync_file(engine, handle, file);
  engine.close(handle);
}

void drop_page_cache(const ScratchDir& scratch, const fs::path& file) {
  try {
    const UniqueFd fd = scratch.open_file(file, O_RDONLY);
    ::fdatasync(fd.get());
    ::posix_fadvise(fd.get(), 0, 0, POSIX_FADV_DONTNEED);
  } catch (const std::system_error&) {
    // Best effort: a file not there has nothing cached.
  }
}

}  // namespace fabcheck
