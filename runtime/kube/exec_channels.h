#pragma once

// Kubernetes' exec over WebSocket, the channel protocols v4.channel.k8s.io and
// v5.channel.k8s.io: every binary message starts with its channel (0 stdin, 1 stdout, 2 stderr,
// 3 the error channel, which carries a metav1.Status when the command ends, 4 terminal size),
// and v5 adds a close message (255, channel) that ends stdin. Pure.

#include <optional>
#include <string>
#include <string_view>

#include "core/result.h"

namespace paddock::kube {

inline constexpr const char* kChannelProtocols = "v5.channel.k8s.io, v4.channel.k8s.io";

enum class Channel : unsigned char {
  kStdin = 0,
  kStdout = 1,
  kStderr = 2,
  kError = 3,
  kResize = 4
};

struct ChannelMessage {
  Channel channel;
  std::string_view data;
};

// A server's message split into its channel and data; nothing for an empty message.
std::optional<ChannelMessage> split_channel(std::string_view message);

// What a client sends: bytes for the command's stdin, and (v5 only) the end of stdin.
std::string stdin_message(std::string_view data);
std::string close_stdin_message();

// The command's exit code from the error channel's metav1.Status: 0 for Success, the
// ExitCode cause of NonZeroExitCode; any other failure is an error with the API's message.
core::Result<int> exit_code_of_status(std::string_view status_json);

}  // namespace paddock::kube
