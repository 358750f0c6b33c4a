// The engine factory: which engines this build has and how a name becomes one.
#include "storage/io_engine.hpp"

#include <fcntl.h>

#include "bench/sys/config_error.hpp"
#include "bench/sys/text_scan.hpp"
#include "storage/null_engine.hpp"
#include "storage/psync_engine.hpp"
#if defined(FABCHECK_HAVE_URING)
#include "storage/uring_engine.hpp"
#endif

namespace fabcheck {

int open_flags(const OpenOptions& options) {
  int flags = 0;
  switch (options.access) {
    case OpenAccess::read_only:
      flags = O_RDONLY;
      break;
    case OpenAccess::write_only:
      flags = O_WRONLY;
      break;
    case OpenAccess::read_write:
      flags = O_RDWR;
      break;
  }
  return options.direct ? flags | O_DIRECT : flags;
}

std::vector<std::string> available_io_engines() {
#if defined(FABCHECK_HAVE_URING)
  return {"io_uring", "psync", "null"};
#else
  return {"psync", "null"};
#endif
}

std::string default_io_engine() {
#if defined(FABCHECK_HAVE_URING)
  static const bool kernel_ok = UringEngine::kernel_supports();
  if (kernel_ok) return "io_uring";
#endif
  return "psync";
}

std::unique_ptr<IoEngine> make_io_engine(const std::string& name, std::uint32_t queue_depth) {
  if (name == "psync") return std::make_unique<PsyncEngine>(queue_depth);
  if (name == "null") return std::make_unique<NullEngine>(queue_depth);
#if defined(FABCHECK_HAVE_URING)
  if (name == "io_uring") return std::make_unique<UringEngine>(queue_depth);
#endif
  const std::string known = text::join(available_io_engines(), ", ");
  throw ConfigError(
      "storage.engine", 0,
      "unknown or unavailable engine \"" + name + "\" (this build has: " + known + ")");
}

}  // namespace fabcheck
