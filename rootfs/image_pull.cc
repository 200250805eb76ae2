#include "rootfs/image_pull.h"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <set>
#include <thread>
#include <vector>

#include <nlohmann/json.hpp>

#include "rootfs/registry_client.h"
#include "rootfs/sha256.h"

namespace paddock::rootfs {
namespace {

using json = nlohmann::json;

// Draws "pulling REF: 2/5 layers, 12.3/40.1 MiB" over itself on a terminal, or hands such lines
// to a callback; silent otherwise.
class Progress {
 public:
  Progress(std::string reference, const PullOptions& options)
      : reference_(std::move(reference)),
        enabled_(options.progress && !options.on_progress && isatty(STDERR_FILENO) == 1),
        on_line_(options.on_progress) {}
  ~Progress() { clear(); }

  void draw(std::size_t done, std::size_t total, std::uint64_t bytes, std::uint64_t all_bytes) {
    if (on_line_) {
      auto now = std::chrono::steady_clock::now();
      if (done == last_done_ && now - last_line_ < std::chrono::seconds(1)) return;
      last_done_ = done;
      last_line_ = now;
      char line[512];
      std::snprintf(line, sizeof line, "pulling %s: %zu/%zu layers, %.1f/%.1f MiB",
                    reference_.c_str(), done, total, static_cast<double>(bytes) / 1048576.0,
                    static_cast<double>(all_bytes) / 1048576.0);
      on_line_(line);
      return;
    }
    if (!enabled_) return;
    constexpr int kWidth = 24;
    auto mib = [](std::uint64_t n) { return static_cast<double>(n) / 1048576.0; };
    double fraction = all_bytes == 0 ? 0 : std::min(1.0, mib(bytes) / mib(all_bytes));
    std::string bar(static_cast<std::size_t>(fraction * kWidth), '#');
    bar.resize(kWidth, '.');
    char line[512];
    std::snprintf(line, sizeof line, "\rpulling %s [%s] %zu/%zu layers, %.1f/%.1f MiB\033[K",
                  reference_.c_str(), bar.c_str(), done, total, mib(bytes), mib(all_bytes));
    write_text(line);
    drawn_ = true;
  }
  void say(const std::string& what) {
    if (on_line_) on_line_("pulling " + reference_ + ": " + what);
    if (!enabled_) return;
    write_text("\rpulling " + reference_ + ": " + what + "\033[K");
    drawn_ = true;
  }
  void clear() {
    if (drawn_) write_text("\r\033[K");
    drawn_ = false;
  }

 private:
  static void write_text(const std::string& text) {
    [[maybe_unused]] ssize_t ignored = ::write(STDERR_FILENO, text.data(), text.size());
  }
  std::string reference_;
  bool enabled_;
  std::function<void(const std::string&)> on_line_;
  std::size_t last_done_ = static_cast<std::size_t>(-1);
  std::chrono::steady_clock::time_point last_line_;
  bool drawn_ = false;
};

core::Result<json> parse_document(const std::string& body, const std::string& what) {
  json document = json::parse(body, nullptr, false);
  if (!document.is_object()) return core::Error{EBADMSG, what + " is not a JSON object"};
  return document;
}

// The manifest named `digest`, fetched, verified and stored.
core::Result<json> fetch_manifest_by_digest(ImageStore& store, RegistryClient& client,
                                            const std::string& canonical,
                                            const std::string& digest) {
  auto manifest = client.get_manifest(digest);
  if (!manifest) return manifest.error();
  if (std::string got = sha256_of(manifest->body); got != digest) {
    return core::Error{EBADMSG, "pulling " + canonical + ": manifest " + digest +
                                    " from the registry does not match its digest (it hashes to " +
                                    got + ")"};
  }
  if (auto stored = store.put_blob(manifest->body, digest); !stored) return stored.error();
  return parse_document(manifest->body, "manifest " + digest);
}

// Streams one blob into the store; it is stored only if it hashes to `layer.digest`.
core::Status fetch_blob(ImageStore& store, RegistryClient& client, const std::string& canonical,
                        const Layer& layer, std::atomic<std::uint64_t>* counter) {
  std::unique_ptr<ImageStore::BlobWriter> writer;
  std::uint64_t received = 0;
  auto restart = [&]() -> core::Status {
    if (counter != nullptr) *counter -= received;
    received = 0;
    auto fresh = store.new_blob();
    if (!fresh) return fresh.error();
    writer = std::move(fresh).value();
    return {};
  };
  auto sink = [&](std::string_view chunk) -> core::Status {
    received += chunk.size();
    if (counter != nullptr) *counter += chunk.size();
    // The manifest said how big the blob is: an endless stream stops there.
    if (received > layer.size) {
      return core::Error{EBADMSG, "pulling " + canonical + ": blob " + layer.digest +
                                      " from the registry is larger than the " +
                                      std::to_string(layer.size) + " bytes its manifest says"};
    }
    return writer->write(chunk);
  };
  if (auto fetched = client.fetch_blob(layer.digest, restart, sink); !fetched) {
    return fetched.error();
  }
  auto committed = writer->commit(layer.digest);
  if (!committed) {
    return core::Error{EBADMSG, "pulling " + canonical + ": blob " + layer.digest +
                                    " from the registry does not match its digest (" +
                                    committed.error().message + ")"};
  }
  return {};
}

// Whether the stored `record` is what the registry's `remote` digest (of a manifest or of an
// index whose platform manifest it is) names, with every layer unpacked.
bool is_current(const ImageStore& store, const ImageRecord& record, const std::string& remote,
                const std::string& platform) {
  std::string manifest = remote;
  if (remote != record.manifest_digest) {
    if (!store.has_blob(remote)) return false;
    auto body = store.read_blob(remote);
    if (!body) return false;
    json index = json::parse(*body, nullptr, false);
    if (!is_index(index)) return false;
    auto selected = select_manifest(index, platform);
    if (!selected) return false;
    manifest = *selected;
  }
  if (manifest != record.manifest_digest) return false;
  return std::all_of(record.diff_ids.begin(), record.diff_ids.end(),
                     [&](const std::string& diff_id) { return store.has_layer(diff_id); });
}

}  // namespace

core::Result<Layer> parse_descriptor(const nlohmann::json& descriptor, const std::string& what) {
  auto named = descriptor.is_object() ? descriptor.find("digest") : descriptor.end();
  std::string digest =
      named != descriptor.end() && named->is_string() ? named->get<std::string>() : "";
  if (!is_sha256_digest(digest)) {
    return core::Error{ENOTSUP, what + " digest '" + digest + "' is not sha256"};
  }
  // The size is what bounds the download: without it a registry could stream forever.
  if (!descriptor.contains("size") || !descriptor["size"].is_number_integer() ||
      descriptor["size"].get<std::int64_t>() < 0) {
    return core::Error{EBADMSG,
                       what + " " + digest +
                           " has no size in its manifest (the OCI descriptor requires one); "
                           "refusing a download without a bound"};
  }
  return Layer{digest, descriptor["size"].get<std::uint64_t>()};
}

namespace {

// The image's config, fetched unless it is stored, and the diff_ids of its layers it lists.
core::Result<std::vector<std::string>> fetch_diff_ids(ImageStore& store, RegistryClient& client,
                                                      const std::string& canonical,
                                                      const json& manifest) {
  auto config_or = parse_descriptor(manifest["config"], "config");
  if (!config_or) return config_or.error().context("pulling " + canonical);
  Layer config = *config_or;
  if (!store.has_blob(config.digest)) {
    if (auto fetched = fetch_blob(store, client, canonical, config, nullptr); !fetched) {
      return fetched.error();
    }
  }
  auto config_body = store.read_blob(config.digest);
  if (!config_body) return config_body.error();
  auto config_json = parse_document(*config_body, "image config " + config.digest);
  if (!config_json) return config_json.error();
  auto diff_ids = config_diff_ids(*config_json);
  if (!diff_ids) return diff_ids.error().context("pulling " + canonical);
  return diff_ids;
}

// What to download: layers neither unpacked (by diff_id) nor stored (by blob digest), and the
// bytes they add up to in `all_bytes`.
core::Result<std::vector<Layer>> layers_to_fetch(const ImageStore& store,
                                                 const std::string& canonical, const json& layers,
                                                 const std::vector<std::string>& diff_ids,
                                                 std::uint64_t& all_bytes) {
  std::vector<Layer> wanted_layers;
  std::set<std::string> seen;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    auto layer_or = parse_descriptor(layers[i], "layer");
    if (!layer_or) return layer_or.error().context("pulling " + canonical);
    Layer layer = *layer_or;
    bool unpacked = i < diff_ids.size() && store.has_layer(diff_ids[i]);
    if (unpacked || store.has_blob(layer.digest) || !seen.insert(layer.digest).second) continue;
    wanted_layers.push_back(layer);
    all_bytes += layer.size;
  }
  return wanted_layers;
}

// Downloads `layers` on up to `parallel_layers` connections, drawing the progress meanwhile.
// The first failure stops the others, and is the one returned.
core::Status fetch_layers(ImageStore& store, RegistryClient& client, const std::string& canonical,
                          const std::vector<Layer>& layers, std::uint64_t all_bytes,
                          int parallel_layers, Progress& progress) {
  std::atomic<std::size_t> next{0}, done{0};
  std::atomic<std::uint64_t> bytes{0};
  std::atomic<bool> failed{false};
  std::mutex mutex;  // guards first_error and running
  std::condition_variable finished;
  std::optional<core::Error> first_error;
  std::size_t threads = std::min<std::size_t>(std::max(1, parallel_layers), layers.size());
  std::size_t running = threads;
  auto fail = [&](const core::Error& error) {
    std::lock_guard lock(mutex);
    // The first failure explains; the others were abandoned because of it.
    if (!first_error) first_error = error;
    failed = true;
  };
  auto worker = [&]() {
    auto connection = client.fork();
    if (!connection) {
      fail(connection.error());
    } else {
      connection->set_abort_flag(&failed);
      while (!failed) {
        std::size_t i = next++;
        if (i >= layers.size()) break;
        if (auto fetched = fetch_blob(store, *connection, canonical, layers[i], &bytes); !fetched) {
          fail(fetched.error());
          break;
        }
        ++done;
      }
    }
    std::lock_guard lock(mutex);
    --running;
    finished.notify_all();
  };
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < threads; ++t) pool.emplace_back(worker);
  {
    std::unique_lock lock(mutex);
    while (running > 0) {
      lock.unlock();
      progress.draw(done, layers.size(), bytes, all_bytes);
      lock.lock();
      finished.wait_for(lock, std::chrono::milliseconds(100), [&] { return running == 0; });
    }
  }
  for (auto& thread : pool) thread.join();
  if (first_error) return *first_error;
  progress.draw(done, layers.size(), bytes, all_bytes);
  return {};
}

}  // namespace

core::Result<ImageRecord> pull_image(ImageStore& store, const ImageReference& reference,
                                     const PullOptions& options) {
  const std::string canonical = reference.canonical();
  auto client = RegistryClient::create(
      reference, RegistryOptions{options.insecure, options.creds, options.registry_config});
  if (!client) return client.error();
  const std::string wanted = reference.digest.empty() ? reference.tag : reference.digest;

  // Already here: one HEAD (which registries do not count against pull limits) settles it.
  if (auto present = store.find_image(canonical); present) {
    std::string remote = reference.digest;
    if (remote.empty()) {
      auto head = client->head_manifest(wanted);
      if (!head) return head.error();
      remote = *head;
    }
    if (is_sha256_digest(remote) && is_current(store, *present, remote, options.platform)) {
      return *present;
    }
  }

  Progress progress(canonical, options);
  progress.say("resolving " + wanted);
  auto top = client->get_manifest(wanted);
  if (!top) return top.error();
  std::string top_digest = sha256_of(top->body);
  std::string expected = !reference.digest.empty() ? reference.digest : top->digest;
  if (expected.starts_with("sha256:") && expected != top_digest) {
    return core::Error{EBADMSG, "pulling " + canonical +
                                    ": the manifest from the registry hashes to " + top_digest +
                                    ", not " + expected};
  }
  if (auto stored = store.put_blob(top->body, top_digest); !stored) return stored.error();
  auto document = parse_document(top->body, "pulling " + canonical + ": the manifest");
  if (!document) return document.error();
  if (auto version = document->find("schemaVersion"); version != document->end() && *version == 1) {
    return core::Error{ENOTSUP,
                       "pulling " + canonical +
                           ": the registry serves a Docker schema 1 manifest, which paddock "
                           "does not support"};
  }

  std::string manifest_digest = top_digest;
  json manifest = std::move(*document);
  if (is_index(manifest)) {
    auto selected = select_manifest(manifest, options.platform);
    if (!selected) return selected.error().context("pulling " + canonical);
    if (!is_sha256_digest(*selected)) {
      return core::Error{
          ENOTSUP, "pulling " + canonical + ": manifest digest " + *selected + " is not sha256"};
    }
    manifest_digest = *selected;
    auto platform_manifest = fetch_manifest_by_digest(store, *client, canonical, manifest_digest);
    if (!platform_manifest) return platform_manifest.error();
    manifest = std::move(*platform_manifest);
  }
  if (!manifest.contains("config") || !manifest["config"].is_object() ||
      !manifest.contains("layers") || !manifest["layers"].is_array()) {
    return core::Error{EBADMSG, "pulling " + canonical + ": manifest " + manifest_digest +
                                    " is not an OCI or Docker schema 2 image manifest"};
  }

  auto diff_ids = fetch_diff_ids(store, *client, canonical, manifest);
  if (!diff_ids) return diff_ids.error();

  std::uint64_t all_bytes = 0;
  auto wanted_layers = layers_to_fetch(store, canonical, manifest["layers"], *diff_ids, all_bytes);
  if (!wanted_layers) return wanted_layers.error();

  if (!wanted_layers->empty()) {
    if (auto fetched = fetch_layers(store, *client, canonical, *wanted_layers, all_bytes,
                                    options.parallel_layers, progress);
        !fetched) {
      return fetched.error();
    }
  }

  progress.say("unpacking");
  auto installed = install_image(store, canonical, manifest_digest);
  if (!installed) return installed.error().context("pulling " + canonical);
  return installed;
}

}  // namespace paddock::rootfs
