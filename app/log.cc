#include "app/log.h"

#include <unistd.h>

#include <array>
#include <atomic>
#include <mutex>
#include <shared_mutex>

namespace paddock::app {
namespace {

constexpr std::array<const char*, 8> kNames = {"debug", "info",     "notice", "warning",
                                               "error", "critical", "alert",  "emergency"};
std::atomic<int> g_level{static_cast<int>(LogLevel::kInfo)};
std::mutex g_mask_mutex;
std::optional<SecretMask> g_mask;
// -1: nothing is forwarded. Read without the lock, so that a line no one wants costs nothing.
std::atomic<int> g_forward_level{-1};
// Held shared while a line is handed to the sink, so that stop_forwarding_log can wait.
std::shared_mutex g_sink_mutex;
LogSink g_sink;

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

void forward_log(LogLevel level, LogSink sink) {
  std::unique_lock lock(g_sink_mutex);
  g_sink = std::move(sink);
  g_forward_level = static_cast<int>(level);
}

void stop_forwarding_log() {
  std::unique_lock lock(g_sink_mutex);
  g_forward_level = -1;
  g_sink = nullptr;
}

bool log_wanted(LogLevel level) {
  int forward_level = g_forward_level;
  return static_cast<int>(level) >= g_level ||
         (forward_level >= 0 && static_cast<int>(level) >= forward_level);
}

void log(LogLevel level, std::string_view text) {
  int forward_level = g_forward_level;
  bool to_stderr = static_cast<int>(level) >= g_level;
  bool forwarded = forward_level >= 0 && static_cast<int>(level) >= forward_level;
  if (!to_stderr && !forwarded) return;
  std::string masked(text);
  {
    std::lock_guard lock(g_mask_mutex);
    if (g_mask) masked = g_mask->apply(std::move(masked));
  }
  if (forwarded) {
    std::shared_lock lock(g_sink_mutex);
    if (g_sink && static_cast<int>(level) >= g_forward_level) g_sink(level, masked);
  }
  if (!to_stderr) return;
  std::string line = "paddock mcp: " + std::string(to_string(level)) + ": " + masked;
  if (line.size() > 4096) line.resize(4096);
  line += '\n';
  // One write per line, so lines from several threads never mix.
  [[maybe_unused]] ssize_t wrote = write(STDERR_FILENO, line.data(), line.size());
}

}  // namespace paddock::app
