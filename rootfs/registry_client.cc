#include "rootfs/registry_client.h"

#include <curl/curl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/base64.h"

namespace paddock::rootfs {

const char* const kManifestAccept =
    "application/vnd.oci.image.manifest.v1+json, "
    "application/vnd.oci.image.index.v1+json, "
    "application/vnd.docker.distribution.manifest.v2+json, "
    "application/vnd.docker.distribution.manifest.list.v2+json";

namespace {

using json = nlohmann::json;

constexpr int kAttempts = 3;
constexpr std::uint64_t kMaxManifestBytes = 4u << 20;
constexpr std::uint64_t kMaxErrorBodyBytes = 64u << 10;

using http::CurlHandle;
using UniqueSlist = http::HeaderList;

std::string lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

std::string trim(std::string_view text) {
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.front())))
    text.remove_prefix(1);
  while (!text.empty() && std::isspace(static_cast<unsigned char>(text.back())))
    text.remove_suffix(1);
  return std::string(text);
}

Result<Credentials> split_creds(const std::string& text, const std::string& where) {
  auto colon = text.find(':');
  if (colon == std::string::npos || colon == 0) {
    return invalid_input(where + " must be USER:PASSWORD");
  }
  return Credentials{text.substr(0, colon), text.substr(colon + 1)};
}

// The host part of a config.json key: "https://index.docker.io/v1/" -> "index.docker.io".
std::string host_of_key(std::string key) {
  if (auto scheme = key.find("://"); scheme != std::string::npos) key = key.substr(scheme + 3);
  if (auto slash = key.find('/'); slash != std::string::npos) key = key.substr(0, slash);
  return lower(key);
}

// `WWW-Authenticate: Bearer realm="...",service="...",scope="..."` as a scheme and parameters.
std::pair<std::string, std::map<std::string, std::string>> parse_challenge(
    const std::string& header) {
  std::map<std::string, std::string> params;
  std::size_t at = header.find(' ');
  std::string scheme = lower(trim(header.substr(0, at)));
  while (at != std::string::npos && at < header.size()) {
    while (at < header.size() && (header[at] == ' ' || header[at] == ',')) ++at;
    std::size_t equals = header.find('=', at);
    if (equals == std::string::npos) break;
    std::string key = lower(trim(header.substr(at, equals - at)));
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
      value = trim(header.substr(at, comma == std::string::npos ? std::string::npos : comma - at));
      at = comma;
    }
    params[key] = value;
  }
  return {scheme, params};
}

bool retryable(CURLcode code) {
  switch (code) {
    case CURLE_COULDNT_CONNECT:
    case CURLE_COULDNT_RESOLVE_HOST:
    case CURLE_OPERATION_TIMEDOUT:
    case CURLE_RECV_ERROR:
    case CURLE_SEND_ERROR:
    case CURLE_GOT_NOTHING:
    case CURLE_PARTIAL_FILE:
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM:
      return true;
    default:
      return false;
  }
}

void backoff(int attempt) {
  std::this_thread::sleep_for(std::chrono::milliseconds(250 << attempt));
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

}  // namespace

Result<std::optional<Credentials>> find_credentials(const std::string& registry,
                                                    const std::optional<std::string>& creds) {
  if (creds) {
    auto split = split_creds(*creds, "--creds");
    if (!split) return split.error();
    return std::optional<Credentials>(*split);
  }
  std::string path;
  if (const char* dir = getenv("DOCKER_CONFIG"); dir != nullptr && *dir != '\0') {
    path = std::string(dir) + "/config.json";
  } else if (const char* home = getenv("HOME"); home != nullptr && *home == '/') {
    path = std::string(home) + "/.docker/config.json";
  } else {
    return std::optional<Credentials>();
  }
  std::ifstream file(path);
  if (!file) return std::optional<Credentials>();
  json config = json::parse(file, nullptr, false);
  if (!config.is_object() || !config.contains("auths") || !config["auths"].is_object()) {
    return std::optional<Credentials>();
  }
  // Docker Hub is written every which way: docker.io, index.docker.io/v1/, registry-1...
  auto same_registry = [&](const std::string& host) {
    if (host == lower(registry)) return true;
    return registry == "docker.io" &&
           (host == "index.docker.io" || host == "registry-1.docker.io" || host == "docker.io");
  };
  for (const auto& [key, entry] : config["auths"].items()) {
    if (!entry.is_object() || !same_registry(host_of_key(key))) continue;
    if (entry.contains("auth") && entry["auth"].is_string()) {
      auto decoded = base64_decode(trim(entry["auth"].get<std::string>()));
      if (!decoded) return invalid_input(path + ": auths." + key + ".auth is not base64");
      auto split = split_creds(*decoded, path + ": auths." + key + ".auth");
      if (!split) return split.error();
      return std::optional<Credentials>(*split);
    }
    if (entry.contains("username") && entry.contains("password")) {
      return std::optional<Credentials>(
          Credentials{entry.value("username", ""), entry.value("password", "")});
    }
  }
  return std::optional<Credentials>();
}

struct RegistryClient::Shared {
  ImageReference reference;
  RegistryOptions options;
  std::optional<Credentials> credentials;
  bool plain_allowed = false;
  std::optional<std::string> ca_file;  // the registry's own CA, from a certs.d directory

  std::mutex mutex;  // guards what follows: learned while pulling, by any thread
  std::string scheme = "https";
  std::string authorization;  // the Authorization header's value, once the registry asked
};

struct RegistryClient::Response {
  long status = 0;
  CURLcode curl_code = CURLE_OK;
  std::string curl_message;
  std::string body;                            // the body unless it went to a sink
  std::map<std::string, std::string> headers;  // names in lower case, of the last response

  [[nodiscard]] std::string header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
};

RegistryClient::RegistryClient(std::shared_ptr<Shared> shared, http::CurlHandle handle)
    : shared_(std::move(shared)), handle_(std::move(handle)) {}

std::optional<std::string> registry_ca_file(const std::string& host) {
  std::vector<std::string> directories;
  const char* config = getenv("XDG_CONFIG_HOME");
  const char* home = getenv("HOME");
  if (config != nullptr && *config == '/') {
    directories.push_back(std::string(config) + "/containers/certs.d");
  } else if (home != nullptr && *home == '/') {
    directories.push_back(std::string(home) + "/.config/containers/certs.d");
  }
  directories.insert(directories.end(), {"/etc/containers/certs.d", "/etc/docker/certs.d"});
  for (const auto& directory : directories) {
    std::string file = directory + "/" + host + "/ca.crt";
    if (access(file.c_str(), R_OK) == 0) return file;
  }
  return std::nullopt;
}

Result<RegistryClient> RegistryClient::create(const ImageReference& reference,
                                              const RegistryOptions& options) {
  auto credentials = find_credentials(reference.registry, options.creds);
  if (!credentials) return credentials.error();
  auto shared = std::make_shared<Shared>();
  shared->reference = reference;
  shared->options = options;
  shared->credentials = *credentials;
  shared->plain_allowed = options.insecure || reference.is_loopback();
  shared->ca_file = registry_ca_file(reference.api_host());
  if (reference.is_loopback()) shared->scheme = "http";
  auto handle = http::new_handle();
  if (!handle) return handle.error();
  return RegistryClient(std::move(shared), std::move(*handle));
}

Result<RegistryClient> RegistryClient::fork() const {
  auto handle = http::new_handle();
  if (!handle) return handle.error();
  return RegistryClient(shared_, std::move(*handle));
}

namespace {

struct TransferState {
  CURL* handle = nullptr;
  const RegistryClient::Sink* sink = nullptr;
  std::uint64_t max_bytes = 0;
  std::string* body = nullptr;
  std::map<std::string, std::string>* headers = nullptr;
  Status sink_status;
  bool too_big = false;
  const std::atomic<bool>* abort = nullptr;
};

size_t on_header(char* data, size_t size, size_t count, void* user) {
  auto* state = static_cast<TransferState*>(user);
  std::string_view line(data, size * count);
  // Each response of a redirect chain starts with its status line; keep the last one's.
  if (line.starts_with("HTTP/")) {
    state->headers->clear();
  } else if (auto colon = line.find(':'); colon != std::string_view::npos) {
    (*state->headers)[lower(std::string(line.substr(0, colon)))] = trim(line.substr(colon + 1));
  }
  return size * count;
}

size_t on_body(char* data, size_t size, size_t count, void* user) {
  auto* state = static_cast<TransferState*>(user);
  std::string_view chunk(data, size * count);
  long status = 0;
  curl_easy_getinfo(state->handle, CURLINFO_RESPONSE_CODE, &status);
  // Only a successful answer goes to the sink; an error's body is kept to explain it.
  if (state->sink != nullptr && status / 100 == 2) {
    state->sink_status = (*state->sink)(chunk);
    return state->sink_status ? chunk.size() : 0;
  }
  std::uint64_t limit = status / 100 == 2 ? state->max_bytes : kMaxErrorBodyBytes;
  if (state->body->size() + chunk.size() > limit) {
    state->too_big = true;
    return 0;
  }
  state->body->append(chunk);
  return chunk.size();
}

int on_progress(void* user, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
  auto* state = static_cast<TransferState*>(user);
  return state->abort != nullptr && state->abort->load() ? 1 : 0;
}

// The settings every request shares: protocols, timeouts, TLS (`ca_file`: trust that CA
// instead of the system's).
void common_options(CURL* handle, bool https, bool insecure,
                    const std::optional<std::string>& ca_file, TransferState& state,
                    char* error_buffer) {
  curl_easy_setopt(handle, CURLOPT_PROTOCOLS_STR, "http,https");
  // A blob may be redirected to a CDN; never from HTTPS down to plain HTTP.
  curl_easy_setopt(handle, CURLOPT_REDIR_PROTOCOLS_STR, https ? "https" : "http,https");
  curl_easy_setopt(handle, CURLOPT_FOLLOWLOCATION, 1L);
  curl_easy_setopt(handle, CURLOPT_MAXREDIRS, 10L);
  curl_easy_setopt(handle, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(handle, CURLOPT_USERAGENT, "paddock");
  curl_easy_setopt(handle, CURLOPT_CONNECTTIMEOUT, 30L);
  // A stalled transfer (under 1 byte/s for a minute) fails and is retried.
  curl_easy_setopt(handle, CURLOPT_LOW_SPEED_LIMIT, 1L);
  curl_easy_setopt(handle, CURLOPT_LOW_SPEED_TIME, 60L);
  if (ca_file) curl_easy_setopt(handle, CURLOPT_CAINFO, ca_file->c_str());
  if (insecure) {
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYPEER, 0L);
    curl_easy_setopt(handle, CURLOPT_SSL_VERIFYHOST, 0L);
  }
  curl_easy_setopt(handle, CURLOPT_ERRORBUFFER, error_buffer);
  curl_easy_setopt(handle, CURLOPT_HEADERFUNCTION, on_header);
  curl_easy_setopt(handle, CURLOPT_HEADERDATA, &state);
  curl_easy_setopt(handle, CURLOPT_WRITEFUNCTION, on_body);
  curl_easy_setopt(handle, CURLOPT_WRITEDATA, &state);
  curl_easy_setopt(handle, CURLOPT_XFERINFOFUNCTION, on_progress);
  curl_easy_setopt(handle, CURLOPT_XFERINFODATA, &state);
  curl_easy_setopt(handle, CURLOPT_NOPROGRESS, 0L);
}

}  // namespace

Result<RegistryClient::Response> RegistryClient::perform_once(const std::string& method,
                                                              const std::string& url,
                                                              const std::string& accept,
                                                              const Sink* sink,
                                                              std::uint64_t max_bytes) {
  CURL* handle = handle_.get();
  curl_easy_reset(handle);  // keeps the connection for the next request
  Response response;
  TransferState state;
  state.handle = handle;
  state.sink = sink;
  state.max_bytes = max_bytes;
  state.body = &response.body;
  state.headers = &response.headers;
  state.abort = abort_;
  char error_buffer[CURL_ERROR_SIZE] = {};
  std::string authorization;
  {
    std::lock_guard lock(shared_->mutex);
    authorization = shared_->authorization;
  }
  common_options(handle, url.starts_with("https:"), shared_->options.insecure, shared_->ca_file,
                 state, error_buffer);
  curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
  if (method == "HEAD") curl_easy_setopt(handle, CURLOPT_NOBODY, 1L);
  UniqueSlist headers;
  auto add_header = [&](const std::string& line) {
    curl_slist* grown = curl_slist_append(headers.get(), line.c_str());
    if (grown != nullptr) {
      (void)headers.release();
      headers.reset(grown);
    }
  };
  if (!accept.empty()) add_header("Accept: " + accept);
  // curl drops a custom Authorization header when a redirect leaves the host (a CDN's signed
  // URL must not get the registry's token).
  if (!authorization.empty()) add_header("Authorization: " + authorization);
  if (headers) curl_easy_setopt(handle, CURLOPT_HTTPHEADER, headers.get());

  response.curl_code = curl_easy_perform(handle);
  curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &response.status);
  if (response.curl_code == CURLE_WRITE_ERROR && !state.sink_status)
    return state.sink_status.error();
  if (state.too_big) {
    return Error{EFBIG, "the registry's answer for " + url + " is larger than " +
                            std::to_string(max_bytes) + " bytes"};
  }
  if (response.curl_code == CURLE_ABORTED_BY_CALLBACK) {
    return Error{ECANCELED, "transfer abandoned"};
  }
  if (response.curl_code != CURLE_OK) {
    response.curl_message =
        error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(response.curl_code);
  }
  return response;
}

Result<RegistryClient::Response> RegistryClient::request(
    const std::string& method, const std::string& path, const std::string& accept, const Sink* sink,
    const std::function<Status()>* restart, std::uint64_t max_bytes) {
  const ImageReference& reference = shared_->reference;
  bool authenticated = false;
  bool fell_back = false;
  for (int attempt = 0; attempt < kAttempts;) {
    if (restart != nullptr) {
      if (auto restarted = (*restart)(); !restarted) return restarted.error();
    }
    std::string scheme;
    {
      std::lock_guard lock(shared_->mutex);
      scheme = shared_->scheme;
    }
    std::string url =
        scheme + "://" + reference.api_host() + "/v2/" + reference.repository + "/" + path;
    auto response = perform_once(method, url, accept, sink, max_bytes);
    if (!response) return response.error();
    CURLcode code = response->curl_code;
    // A registry allowed plain HTTP may or may not speak TLS. With --insecure, as Docker does:
    // HTTPS first, then HTTP for the rest of the pull. On loopback the other way round, because
    // TLS there protects nothing and loading the CA bundle would double a no-op pull's time; a
    // TLS server answers plain HTTP with 400 (Go's) or by hanging up.
    if (!fell_back && shared_->plain_allowed) {
      bool to_http = scheme == "https" && (code == CURLE_SSL_CONNECT_ERROR ||
                                           code == CURLE_GOT_NOTHING || code == CURLE_RECV_ERROR);
      bool to_https = scheme == "http" && (code == CURLE_GOT_NOTHING || code == CURLE_RECV_ERROR ||
                                           (code == CURLE_OK && response->status == 400));
      if (to_http || to_https) {
        std::lock_guard lock(shared_->mutex);
        shared_->scheme = to_http ? "http" : "https";
        fell_back = true;
        continue;
      }
    }
    if (code != CURLE_OK) {
      if (retryable(code) && attempt + 1 < kAttempts) {
        backoff(attempt++);
        continue;
      }
      std::string hint;
      if (code == CURLE_PEER_FAILED_VERIFICATION) {
        hint = " (a registry with its own CA: put it in ~/.config/containers/certs.d/" +
               reference.api_host() + "/ca.crt or /etc/docker/certs.d/" + reference.api_host() +
               "/ca.crt)";
      } else if (code == CURLE_SSL_CONNECT_ERROR) {
        hint = " (a registry without TLS needs --insecure)";
      }
      return Error{EIO, "pulling " + reference.canonical() + ": cannot reach " +
                            reference.api_host() + ": " + response->curl_message + hint};
    }
    if (response->status == 401 && !authenticated) {
      authenticated = true;
      std::string challenge = response->header("www-authenticate");
      if (challenge.empty()) return refusal(*response, "");
      if (auto done = authenticate(challenge); !done) return done.error();
      continue;
    }
    if ((response->status >= 500 || response->status == 429) && attempt + 1 < kAttempts) {
      backoff(attempt++);
      continue;
    }
    return std::move(response).value();
  }
  return Error{EIO, "pulling " + reference.canonical() + ": the registry kept failing"};
}

Status RegistryClient::authenticate(const std::string& challenge) {
  const ImageReference& reference = shared_->reference;
  auto [scheme, params] = parse_challenge(challenge);
  const auto& credentials = shared_->credentials;
  if (scheme == "basic") {
    if (!credentials) {
      return Error{EACCES, "pulling " + reference.canonical() +
                               ": the registry wants a user name and password; give them with "
                               "--creds USER:PASS or in ~/.docker/config.json"};
    }
    std::lock_guard lock(shared_->mutex);
    shared_->authorization =
        "Basic " + base64_encode(credentials->user + ":" + credentials->password);
    return {};
  }
  if (scheme != "bearer" || params["realm"].empty()) {
    return Error{EPROTO, "pulling " + reference.canonical() +
                             ": the registry asks for an authentication paddock does not know ('" +
                             challenge + "')"};
  }
  std::string realm = params["realm"];
  if (!realm.starts_with("https://") && !(realm.starts_with("http://") && shared_->plain_allowed)) {
    return Error{EPROTO, "pulling " + reference.canonical() + ": the registry's token service " +
                             realm + " is not HTTPS (allow it with --insecure)"};
  }
  CURL* handle = handle_.get();
  std::string scope =
      params.count("scope") != 0 ? params["scope"] : "repository:" + reference.repository + ":pull";
  std::string url = realm + (realm.find('?') == std::string::npos ? "?" : "&");
  auto escaped = [&](const std::string& text) {
    char* escaped_text = curl_easy_escape(handle, text.c_str(), static_cast<int>(text.size()));
    std::string out = escaped_text != nullptr ? escaped_text : "";
    curl_free(escaped_text);
    return out;
  };
  if (params.count("service") != 0) url += "service=" + escaped(params["service"]) + "&";
  url += "scope=" + escaped(scope);

  for (int attempt = 0;; ++attempt) {
    curl_easy_reset(handle);
    std::string body;
    std::map<std::string, std::string> headers;
    TransferState state;
    state.handle = handle;
    state.body = &body;
    state.headers = &headers;
    state.max_bytes = 1u << 20;
    state.abort = abort_;
    char error_buffer[CURL_ERROR_SIZE] = {};
    common_options(handle, realm.starts_with("https:"), shared_->options.insecure, std::nullopt,
                   state, error_buffer);
    curl_easy_setopt(handle, CURLOPT_URL, url.c_str());
    if (credentials) {
      curl_easy_setopt(handle, CURLOPT_HTTPAUTH, CURLAUTH_BASIC);
      curl_easy_setopt(handle, CURLOPT_USERNAME, credentials->user.c_str());
      curl_easy_setopt(handle, CURLOPT_PASSWORD, credentials->password.c_str());
    }
    CURLcode code = curl_easy_perform(handle);
    long status = 0;
    curl_easy_getinfo(handle, CURLINFO_RESPONSE_CODE, &status);
    if (code == CURLE_ABORTED_BY_CALLBACK) return Error{ECANCELED, "transfer abandoned"};
    bool again = (code != CURLE_OK && retryable(code)) || status >= 500 || status == 429;
    if (again && attempt + 1 < kAttempts) {
      backoff(attempt);
      continue;
    }
    if (code != CURLE_OK) {
      return Error{EIO, "pulling " + reference.canonical() + ": cannot reach the token service " +
                            realm + ": " +
                            (error_buffer[0] != '\0' ? error_buffer : curl_easy_strerror(code))};
    }
    if (status == 401 || status == 403) {
      return Error{EACCES, "pulling " + reference.canonical() + ": the registry's token service " +
                               "refused " +
                               (credentials ? "the credentials for " + credentials->user
                                            : std::string("anonymous access")) +
                               " (" + status_text(status) + ")" +
                               (credentials ? "" : "; give credentials with --creds USER:PASS")};
    }
    json answer = json::parse(body, nullptr, false);
    std::string token;
    if (answer.is_object()) token = answer.value("token", answer.value("access_token", ""));
    if (status != 200 || token.empty()) {
      return Error{EPROTO, "pulling " + reference.canonical() + ": the registry's token service " +
                               realm + " gave no token (" + status_text(status) + ")"};
    }
    std::lock_guard lock(shared_->mutex);
    shared_->authorization = "Bearer " + token;
    return {};
  }
}

Error RegistryClient::refusal(const Response& response, const std::string& what) const {
  const ImageReference& reference = shared_->reference;
  // The distribution API explains itself as {"errors":[{"code":..,"message":..}]}.
  std::string detail;
  json body = json::parse(response.body, nullptr, false);
  if (body.is_object() && body.contains("errors") && body["errors"].is_array() &&
      !body["errors"].empty() && body["errors"][0].is_object()) {
    detail = body["errors"][0].value("message", body["errors"][0].value("code", ""));
  }
  std::string because = status_text(response.status) + (detail.empty() ? "" : ", " + detail);
  std::string prefix = "pulling " + reference.canonical() + ": ";
  switch (response.status) {
    case 401:
      return Error{EACCES,
                   prefix + "access denied (" + because + ")" +
                       (shared_->credentials ? ""
                                             : "; give credentials with --creds USER:PASS or in "
                                               "~/.docker/config.json")};
    case 403:
      return Error{EACCES, prefix + "access denied (" + because + ")"};
    case 404:
      return Error{ENOENT, prefix + (what.empty() ? "not found" : what + " not found") +
                               " in the registry (" + because + ")"};
    default:
      return Error{
          EIO, prefix + "the registry answered " + because + (what.empty() ? "" : " for " + what)};
  }
}

Result<RegistryClient::Manifest> RegistryClient::get_manifest(const std::string& tag_or_digest) {
  auto response = request("GET", "manifests/" + tag_or_digest, kManifestAccept, nullptr, nullptr,
                          kMaxManifestBytes);
  if (!response) return response.error();
  if (response->status != 200) {
    return refusal(*response, tag_or_digest.starts_with("sha256:") ? "manifest " + tag_or_digest
                                                                   : "tag '" + tag_or_digest + "'");
  }
  Manifest manifest;
  manifest.body = std::move(response->body);
  manifest.media_type = response->header("content-type");
  if (auto semicolon = manifest.media_type.find(';'); semicolon != std::string::npos) {
    manifest.media_type = trim(manifest.media_type.substr(0, semicolon));
  }
  manifest.digest = response->header("docker-content-digest");
  return manifest;
}

Result<std::string> RegistryClient::head_manifest(const std::string& tag_or_digest) {
  auto response = request("HEAD", "manifests/" + tag_or_digest, kManifestAccept, nullptr, nullptr,
                          kMaxManifestBytes);
  if (!response) return response.error();
  if (response->status != 200) {
    return refusal(*response, tag_or_digest.starts_with("sha256:") ? "manifest " + tag_or_digest
                                                                   : "tag '" + tag_or_digest + "'");
  }
  return response->header("docker-content-digest");
}

Status RegistryClient::fetch_blob(const std::string& digest, const std::function<Status()>& restart,
                                  const Sink& write) {
  auto response = request("GET", "blobs/" + digest, "", &write, &restart, 0);
  if (!response) return response.error();
  if (response->status != 200) return refusal(*response, "blob " + digest);
  return {};
}

}  // namespace paddock::rootfs
