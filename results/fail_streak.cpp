// The fail_streak policy and the node outcome log it reads.
#include "results/fail_streak.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <system_error>

#include <nlohmann/json.hpp>

#include "bench/sys/config_error.hpp"
#include "bench/sys/dir_handle.hpp"
#include "results/json_text.hpp"

namespace fabcheck {
namespace {

constexpr unsigned kMostRuns = 1000;

std::optional<unsigned> whole_number(std::string_view text) {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// The log as a regular file of root or this user that nobody else can write, opened for reading
// and appending below `folder` without following a link (created when missing).
UniqueFd open_log(const DirHandle& folder, const std::string& name, const std::string& where) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    try {
      UniqueFd fd = folder.open_file(name, O_RDWR | O_APPEND | O_NONBLOCK);
      struct stat info {};
      if (::fstat(fd.get(), &info) != 0) throw std::system_error(errno, std::generic_category());
      if (!S_ISREG(info.st_mode)) throw ConfigError(where, 0, "not a regular file");
      if (info.st_uid != 0 && info.st_uid != ::geteuid())
        throw ConfigError(where, 0, "owned by user " + std::to_string(info.st_uid));
      if ((info.st_mode & (S_IWGRP | S_IWOTH)) != 0)
        throw ConfigError(where, 0, "writable by group or others");
      if (info.st_nlink != 1) throw ConfigError(where, 0, "has other names (hard links)");
      return fd;
    } catch (const std::system_error& error) {
      if (error.code().value() != ENOENT) throw;
    }
    try {
      return folder.create_file(name, 0644, O_RDWR | O_APPEND);
    } catch (const std::system_error& error) {
      if (error.code().value() != EEXIST) throw;  // made meanwhile: open it
    }
  }
  throw ConfigError(where, 0, "appears and disappears while being opened");
}

}  // namespace

std::optional<FailStreak> parse_fail_streak(std::string_view text) {
  const std::size_t slash = text.find('/');
  const auto fails = whole_number(text.substr(0, slash));
  if (!fails || *fails < 1 || *fails > kMostRuns) return std::nullopt;
  if (slash == std::string_view::npos) return FailStreak{*fails, 0};
  const auto window = whole_number(text.substr(slash + 1));
  if (!window || *window < *fails || *window > kMostRuns) return std::nullopt;
  return FailStreak{*fails, *window};
}

std::string describe(const FailStreak& streak) {
  const std::string runs = streak.fails == 1 ? " run" : " runs";
  if (streak.window == 0) return std::to_string(streak.fails) + runs + " in a row";
  return std::to_string(streak.fails) + " of the last " + std::to_string(streak.window) + " runs";
}

unsigned failing_runs(const std::vector<NodeOutcome>& outcomes, const std::string& host,
                      const FailStreak& streak) {
  unsigned failing = 0;
  unsigned judged = 0;
  for (auto it = outcomes.rbegin(); it != outcomes.rend(); ++it) {
    if (it->host != host || it->outcome == "hold") continue;
    if (streak.window != 0 && judged == streak.window) break;
    ++judged;
    if (it->outcome == "fail") {
      ++failing;
    } else if (streak.window == 0) {
      break;  // a pass ends the run of failures
    }
  }
  return failing;
}

std::string outcome_line(const NodeOutcome& outcome) {
  const nlohmann::json line = {{"kind", kNodeOutcomeKind},   {"utc", outcome.utc},
                               {"run", outcome.run},         {"host", outcome.host},
                               {"outcome", outcome.outcome}, {"noisy", outcome.noisy},
                               {"code", outcome.code}};
  return json_text(line);
}

std::optional<NodeOutcome> parse_outcome_line(std::string_view line, std::string* why) {
  const auto refuse = [&](const std::string& what) -> std::optional<NodeOutcome> {
    if (why != nullptr) *why = what;
    return std::nullopt;
  };
  const nlohmann::json value = nlohmann::json::parse(line, nullptr, false);
  if (!value.is_object()) return refuse("not a JSON object");
  const auto text = [&](const char* key) -> const std::string* {
    const auto field = value.find(key);
    return field != value.end() && field->is_string() ? field->get_ptr<const std::string*>()
                                                      : nullptr;
  };
  const std::string* kind = text("kind");
  if (kind == nullptr || *kind != kNodeOutcomeKind) return refuse("not a node outcome");
  NodeOutcome outcome;
  for (auto [key, into] : {std::pair{"utc", &outcome.utc}, std::pair{"run", &outcome.run},
                           std::pair{"host", &outcome.host}, std::pair{"outcome", &outcome.outcome},
                           std::pair{"code", &outcome.code}}) {
    const std::string* field = text(key);
    if (field == nullptr) return refuse(std::string("no string \"") + key + "\"");
    *into = *field;
  }
  if (outcome.outcome != "pass" && outcome.outcome != "fail" && outcome.outcome != "hold")
    return refuse("outcome \"" + outcome.outcome + "\" is not pass, fail or hold");
  const auto noisy = value.find("noisy");
  if (noisy == value.end() || !noisy->is_boolean()) return refuse("no boolean \"noisy\"");
  outcome.noisy = noisy->get<bool>();
  return outcome;
}

std::vector<NodeOutcome> append_outcomes(const std::filesystem::path& file,
                                         const std::vector<NodeOutcome>& mine,
                                         std::size_t tail_bytes) {
  const std::string where = file.string();
  if (!file.has_filename()) throw ConfigError(where, 0, "not a file name");
  const DirHandle folder = DirHandle::open_output_folder(file.parent_path(), "--outcomes");
  const UniqueFd fd = open_log(folder, file.filename().string(), where);
  if (::flock(fd.get(), LOCK_EX) != 0)
    throw std::system_error(errno, std::generic_category(), where);
  struct stat info {};
  if (::fstat(fd.get(), &info) != 0) throw std::system_error(errno, std::generic_category(), where);
  const auto size = static_cast<std::size_t>(info.st_size);
  const std::size_t start = size > tail_bytes ? size - tail_bytes : 0;
  std::string tail(size - start, '\0');
  std::size_t got = 0;
  while (got < tail.size()) {
    const ssize_t n =
        ::pread(fd.get(), tail.data() + got, tail.size() - got, static_cast<off_t>(start + got));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) throw std::system_error(n < 0 ? errno : EIO, std::generic_category(), where);
    got += static_cast<std::size_t>(n);
  }
  std::vector<NodeOutcome> outcomes;
  std::size_t at = 0;
  // A tail that starts inside a line: that line is skipped (only whole lines are read).
  if (start > 0) at = tail.find('\n') == std::string::npos ? tail.size() : tail.find('\n') + 1;
  for (long line = 1; at < tail.size(); ++line) {
    std::size_t end = tail.find('\n', at);
    if (end == std::string::npos) end = tail.size();
    const std::string_view text(tail.data() + at, end - at);
    at = end + 1;
    if (text.empty()) continue;
    std::string why;
    auto outcome = parse_outcome_line(text, &why);
    if (!outcome) {
      // Lines are numbered from the file's start when it was read whole, else within the tail.
      const std::string place =
          start == 0 ? where : where + " (last " + std::to_string(tail_bytes) + " bytes)";
      throw ConfigError(place, line, why);
    }
    outcomes.push_back(std::move(*outcome));
  }
  // A run answered again (a script's retry) is not a new run: its outcomes are kept once.
  std::string bytes;
  for (const NodeOutcome& outcome : mine) {
    bool known = false;
    for (const NodeOutcome& old : outcomes)
      known = known || (old.run == outcome.run && old.host == outcome.host);
    if (known) continue;
    bytes += outcome_line(outcome) + "\n";
    outcomes.push_back(outcome);
  }
  if (const int error = write_all(fd.get(), bytes); error != 0)
    throw std::system_error(error, std::generic_category(), "append to " + where);
  return outcomes;
}

}  // namespace fabcheck
