#include "services/client_view.h"

#include "core/mime_types.h"

namespace paddock::mcp {

std::optional<std::string> client_view(const SecretMask& secrets, std::string data, bool cut) {
  if (looks_like_text(data)) return secrets.apply(std::move(data), cut);
  if (secrets.found_in(data)) return std::nullopt;
  return data;
}

}  // namespace paddock::mcp
