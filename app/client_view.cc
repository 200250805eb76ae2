#include "app/client_view.h"

#include "core/mime_types.h"

namespace paddock::app {

std::optional<std::string> client_view(const SecretMask& secrets, std::string data, bool cut) {
  if (core::looks_like_text(data)) return secrets.apply(std::move(data), cut);
  if (secrets.found_in(data)) return std::nullopt;
  return data;
}

std::optional<std::string> client_text_window(const SecretMask& secrets, std::string_view before,
                                              std::string window, bool cut) {
  if (secrets.empty() || before.empty()) return secrets.apply(std::move(window), cut);
  // Masked apart, the two parts differ from masked together exactly when a value spans them.
  std::string together = secrets.apply(std::string(before) + window, cut);
  std::string apart = secrets.apply(std::string(before)) + secrets.apply(window, cut);
  if (together != apart) return std::nullopt;
  return secrets.apply(std::move(window), cut);
}

}  // namespace paddock::app
