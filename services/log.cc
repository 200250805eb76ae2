#include "services/log.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <mutex>

namespace paddock::mcp {
namespace {

constexpr std::array<const char*, 8> kNames = {"debug", "info",     "notice", "warning",
                                               "error", "critical", "alert",  "emergency"};
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::mutex g_mask_mutex;
std::optional<SecretMask> g_mask;

}  // namespace

std::optional<LogLevel> log_level_from_name(std::string_view name) {
  for (std::size_t i = 0; i < kNames.size(); ++i) {
    if (name == kNames[i]) return static_cast<LogLevel>(i);
  }
  return std::nullopt;
}

const char* to_string(LogLevel level) {
  return kNames[static_cast<std::size_t>(level)];
}

void set_log_level(LogLevel level) {
  g_level = static_cast<int>(level);
}

void mask_log_with(const SecretMask& secrets) {
  std::lock_guard lock(g_mask_mutex);
  g_mask = secrets;
}

void log(LogLevel level, std::string_view text) {
  if (static_cast<int>(level) < g_level) return;
  std::string line = "paddock mcp: " + std::string(to_string(level)) + ": " + std::string(text);
  {
    std::lock_guard lock(g_mask_mutex);
    if (g_mask) line = g_mask->apply(std::move(line));
  }
  if (line.size() > 4096) line.resize(4096);
  line += '\n';
  // One write per line, so lines from several threads never mix.
  [[maybe_unused]] ssize_t wrote = write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace paddock::mcp
