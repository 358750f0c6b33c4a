// The reporter that appends a finished run to the fleet history.
#include "bench/core/history_reporter.hpp"

#include <exception>
#include <string>

#include "bench/sys/config_error.hpp"
#include "bench/sys/dir_handle.hpp"
#include "results/history.hpp"
#include "results/run_reader.hpp"

namespace fabcheck {
namespace {

class HistoryReporter final : public Reporter {
 public:
  HistoryReporter(std::filesystem::path file, std::FILE* console)
      : file_(std::move(file)), console_(console) {}

  void run_started(const RunStart& run) override { run_dir_ = run.run_dir; }

  void run_finished(const RunEnd& run) override {
    if (run.last_words) {
      say("history: not appended to %s (the run did not finish)\n");
      return;
    }
    try {
      FleetStore store;
      read_run_dir(run_dir_, store);
      append_history(file_, store);
      say("history: appended to %s\n");
    } catch (const std::exception& error) {
      if (console_) {
        std::fprintf(console_, "fabcheck: history not appended to %s: %s\n", file_.string().c_str(),
                     error.what());
      }
    }
  }

 private:
  void say(const char* format) {
    if (console_) std::fprintf(console_, format, file_.string().c_str());
  }
  std::filesystem::path file_;
  std::FILE* console_;
  std::filesystem::path run_dir_;
};

}  // namespace

void check_history_file(const std::filesystem::path& file) {
  if (!history_available()) {
    throw ConfigError("--history " + file.string() + ": this build has no HDF5");
  }
  std::error_code error;
  const auto status = std::filesystem::symlink_status(file, error);
  if (std::filesystem::exists(status) && !std::filesystem::is_regular_file(status)) {
    throw ConfigError("--history " + file.string() + ": not a regular file");
  }
  const auto folder = file.has_parent_path() ? file.parent_path() : std::filesystem::path(".");
  if (!std::filesystem::is_directory(folder, error)) {
    throw ConfigError("--history " + file.string() + ": folder " + folder.string() +
                      " does not exist");
  }
  DirHandle::open_output_folder(folder, "--history");  // safe to write into, else exit 2
}

std::unique_ptr<Reporter> make_history_reporter(std::filesystem::path file, std::FILE* console) {
  return std::make_unique<HistoryReporter>(std::move(file), console);
}

}  // namespace fabcheck
