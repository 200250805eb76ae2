#include "rootfs/registry_auth.h"

#include <nlohmann/json.hpp>

#include "core/base64.h"
#include "core/text.h"

namespace paddock::rootfs {
namespace {

using json = nlohmann::json;

}  // namespace

std::pair<std::string, std::map<std::string, std::string>> parse_challenge(
    const std::string& header) {
  std::map<std::string, std::string> params;
  std::size_t at = header.find(' ');
  std::string scheme = core::to_lower(core::trim(header.substr(0, at)));
  while (at != std::string::npos && at < header.size()) {
    while (at < header.size() && (header[at] == ' ' || header[at] == ',')) ++at;
    std::size_t equals = header.find('=', at);
    if (equals == std::string::npos) break;
    std::string key = core::to_lower(core::trim(header.substr(at, equals - at)));
    std::string value;
    at = equals + 1;
    if (at < header.size() && header[at] == '"') {
      for (++at; at < header.size() && header[at] != '"'; ++at) {
        if (header[at] == '\\' && at + 1 < header.size()) ++at;
        value += header[at];
      }
      ++at;
    } else {
      std::size_t comma = header.find(',', at);
      value = core::trim(
          header.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      at = comma;
    }
    params[key] = value;
  }
  return {scheme, params};
}

std::string status_text(long status) {
  switch (status) {
    case 401:
      return "401 Unauthorized";
    case 403:
      return "403 Forbidden";
    case 404:
      return "404 Not Found";
    case 429:
      return "429 Too Many Requests";
    default:
      return "HTTP " + std::to_string(status);
  }
}

core::Result<std::string> registry_authorization(http::Client& client, const AuthContext& context,
                                                 const std::string& challenge) {
  const ImageReference& reference = context.reference;
  auto [scheme, params] = parse_challenge(challenge);
  const auto& credentials = context.credentials;
  if (scheme == "basic") {
    if (!credentials) {
      return core::Error{EACCES,
                         "pulling " + reference.canonical() +
                             ": the registry wants a user name and password; give them with "
                             "--creds USER:PASS or in ~/.docker/config.json"};
    }
    return "Basic " + core::base64_encode(credentials->user + ":" + credentials->password);
  }
  if (scheme != "bearer" || params["realm"].empty()) {
    return core::Error{EPROTO,
                       "pulling " + reference.canonical() +
                           ": the registry asks for an authentication paddock does not know ('" +
                           challenge + "')"};
  }
  std::string realm = params["realm"];
  if (!realm.starts_with("https://") && !(realm.starts_with("http://") && context.plain_allowed)) {
    return core::Error{EPROTO, "pulling " + reference.canonical() +
                                   ": the registry's token service " + realm +
                                   " is not HTTPS (allow it with --insecure)"};
  }
  std::string scope =
      params.count("scope") != 0 ? params["scope"] : "repository:" + reference.repository + ":pull";
  http::Request request;
  request.url = realm + (realm.find('?') == std::string::npos ? "?" : "&");
  if (params.count("service") != 0) {
    request.url += "service=" + client.escape(params["service"]) + "&";
  }
  request.url += "scope=" + client.escape(scope);
  request.follow_redirects = true;
  request.connect_timeout_seconds = 30;
  request.abort_when_stalled = true;
  request.max_body_bytes = 1u << 20;
  request.tls.verify = !context.insecure;
  if (credentials) request.basic_auth = std::make_pair(credentials->user, credentials->password);
  request.keep_going = context.keep_going;
  auto answered = http::perform_with_retries(client, request, kAttempts);
  if (!answered) return answered.error();
  if (answered->interrupted) return core::Error{ECANCELED, "transfer abandoned"};
  if (answered->transport != CURLE_OK) {
    return core::Error{EIO, "pulling " + reference.canonical() +
                                ": cannot reach the token service " + realm + ": " +
                                answered->transport_message};
  }
  long status = answered->status;
  if (status == 401 || status == 403) {
    return core::Error{EACCES,
                       "pulling " + reference.canonical() + ": the registry's token service " +
                           "refused " +
                           (credentials ? "the credentials for " + credentials->user
                                        : std::string("anonymous access")) +
                           " (" + status_text(status) + ")" +
                           (credentials ? "" : "; give credentials with --creds USER:PASS")};
  }
  json answer = json::parse(answered->body, nullptr, false);
  std::string token;
  if (answer.is_object()) token = answer.value("token", answer.value("access_token", ""));
  if (status != 200 || token.empty()) {
    return core::Error{EPROTO, "pulling " + reference.canonical() +
                                   ": the registry's token service " + realm + " gave no token (" +
                                   status_text(status) + ")"};
  }
  return "Bearer " + token;
}

}  // namespace paddock::rootfs
