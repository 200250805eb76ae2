#pragma once

// The server's own log, on stderr (stdout carries only protocol messages). One line each:
// "paddock mcp: LEVEL: text", with passed-through secrets masked once mask_log_with is called.

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "app/secret_mask.h"

namespace paddock::app {

// MCP's (syslog's) levels, least severe first.
enum class LogLevel { kDebug, kInfo, kNotice, kWarning, kError, kCritical, kAlert, kEmergency };

std::optional<LogLevel> log_level_from_name(std::string_view name);
const char* to_string(LogLevel level);

void set_log_level(LogLevel level);
// Every later line passes this mask (a copy is kept, so it may be called with any mask).
void mask_log_with(const SecretMask& secrets);
void log(LogLevel level, std::string_view text);
// Whether a line at `level` goes anywhere (stderr or the forwarded sink): a caller whose line
// takes work to build skips it when not.
bool log_wanted(LogLevel level);

// Lines at `level` and above also go to `sink`, masked as stderr's are, whatever the stderr
// level: MCP's notifications/message, once the client asked for them with logging/setLevel
// (mcp/server.cc). One sink at a time; a later call replaces it. The sink must not log.
using LogSink = std::function<void(LogLevel level, const std::string& text)>;
void forward_log(LogLevel level, LogSink sink);
// No sink any more; returns once no line is being handed to the old one.
void stop_forwarding_log();

}  // namespace paddock::app
