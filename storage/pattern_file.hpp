// Files of the data pattern: opened O_DIRECT where the filesystem allows, written (untimed) and
// fsynced, and dropped from the page cache so a read-back comes from the device.
#pragma once

#include <cstdint>
#include <filesystem>

#include "storage/io_engine.hpp"
#include "storage/scratch_dir.hpp"
#include "storage/storage_options.hpp"

namespace fabcheck {

// Opens `file` of `scratch` (through its folder's descriptor, ScratchDir::open_file) with O_DIRECT
// when asked and the filesystem allows it, else buffered; `direct` says which it got.
int open_for_pattern(IoEngine& engine, const ScratchDir& scratch, const std::filesystem::path& file,
                     OpenAccess access, bool want_direct, bool& direct);

// Fsyncs `handle` (`file`, for the error) through `engine`; throws std::system_error.
void fsync_file(IoEngine& engine, int handle, const std::filesystem::path& file);

// Writes [0, size) of `file` with `rank`'s pattern (untimed preparation) and fsyncs it.
void write_pattern_file(IoEngine& engine, const ScratchDir& scratch,
                        const std::filesystem::path& file, std::uint64_t size, int rank,
                        const StorageOptions& options);

// Drops the page cache of a file this process wrote (posix_fadvise DONTNEED), so a later read
// comes from the device or server; best effort.
void drop_page_cache(const ScratchDir& scratch, const std::filesystem::path& file);

}  // namespace fabcheck
