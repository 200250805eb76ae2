#include "language/install_diagnosis.h"

#include <array>

namespace paddock {
namespace {

struct Sign {
  std::string_view text;  // as the installer prints it
  std::string_view why;
};

// Name resolution first: without it nothing was even tried, and the later errors follow from it.
constexpr std::array kSigns = {
    Sign{"Temporary failure in name resolution", "name resolution failed"},
    Sign{"Name or service not known", "name resolution failed"},
    Sign{"No address associated with hostname", "name resolution failed"},
    Sign{"NameResolutionError", "name resolution failed"},
    Sign{"getaddrinfo ENOTFOUND", "name resolution failed"},
    Sign{"getaddrinfo EAI_AGAIN", "name resolution failed"},
    Sign{"Could not resolve host", "name resolution failed"},
    Sign{"no such host", "name resolution failed"},
    Sign{"Network is unreachable", "the network is unreachable"},
    Sign{"ENETUNREACH", "the network is unreachable"},
    Sign{"Connection refused", "the connection was refused"},
    Sign{"ECONNREFUSED", "the connection was refused"},
    Sign{"Failed to establish a new connection", "the connection failed"},
    Sign{"ETIMEDOUT", "the connection timed out"},
    Sign{"Connection timed out", "the connection timed out"},
    Sign{"ConnectTimeoutError", "the connection timed out"},
};

}  // namespace

std::optional<std::string> install_diagnosis(std::string_view installer_output) {
  for (const auto& sign : kSigns) {
    if (installer_output.find(sign.text) != std::string_view::npos) {
      return "could not reach the package index (" + std::string(sign.why) + ")";
    }
  }
  return std::nullopt;
}

}  // namespace paddock
