#pragma once

// The registry's authentication, as its 401 answer asks for it (WWW-Authenticate): Basic with the
// user's credentials, or a Bearer token from the realm it names, anonymous or with Basic
// credentials. What comes back is the Authorization header's value for the next requests.

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>

#include "core/result.h"
#include "http/client.h"
#include "rootfs/image_reference.h"
#include "rootfs/registry_credentials.h"

namespace paddock::rootfs {

// `WWW-Authenticate: Bearer realm="...",service="...",scope="..."` as a scheme (lower case) and
// parameters (names in lower case).
std::pair<std::string, std::map<std::string, std::string>> parse_challenge(
    const std::string& header);

struct AuthContext {
  ImageReference reference;
  std::optional<Credentials> credentials;
  bool plain_allowed = false;  // a token service on plain HTTP is accepted (loopback, --insecure)
  bool insecure = false;       // unverified TLS
  std::function<bool()> keep_going;  // false abandons the token request
};

// "Basic ..." or "Bearer ..." for `challenge`, or one line that says what the user can do.
core::Result<std::string> registry_authorization(http::Client& client, const AuthContext& context,
                                                 const std::string& challenge);

// "401 Unauthorized", "404 Not Found", ..., "HTTP 502".
std::string status_text(long status);

// How often a request is tried before its failure is final.
inline constexpr int kAttempts = 3;

}  // namespace paddock::rootfs
