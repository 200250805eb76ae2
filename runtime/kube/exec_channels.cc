#include "runtime/kube/exec_channels.h"

#include <nlohmann/json.hpp>

namespace paddock::kube {

std::optional<ChannelMessage> split_channel(std::string_view message) {
  if (message.empty()) return std::nullopt;
  return ChannelMessage{static_cast<Channel>(static_cast<unsigned char>(message[0])),
                        message.substr(1)};
}

std::string stdin_message(std::string_view data) {
  std::string message(1, static_cast<char>(Channel::kStdin));
  message.append(data);
  return message;
}

std::string close_stdin_message() {
  return std::string{static_cast<char>(255), static_cast<char>(Channel::kStdin)};
}

core::Result<int> exit_code_of_status(std::string_view status_json) {
  auto status = nlohmann::json::parse(status_json, nullptr, false);
  if (!status.is_object()) return core::invalid_input("the exec's status is not JSON");
  if (status.value("status", "") == "Success") return 0;
  if (status.value("reason", "") == "NonZeroExitCode" && status.contains("details")) {
    for (const auto& cause : status["details"].value("causes", nlohmann::json::array())) {
      if (cause.value("reason", "") != "ExitCode") continue;
      std::string code = cause.value("message", "");
      if (!code.empty() && code.find_first_not_of("0123456789") == std::string::npos) {
        return std::stoi(code);
      }
    }
  }
  return core::Error{EIO, "the exec failed: " + status.value("message", std::string(status_json))};
}

}  // namespace paddock::kube
