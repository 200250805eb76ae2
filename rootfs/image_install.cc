#include "rootfs/image_install.h"

#include <sstream>

namespace paddock::rootfs {
namespace {
using json = nlohmann::json;
}  // namespace

bool is_index(const json& document) {
  return document.is_object() && document.contains("manifests") && document["manifests"].is_array();
}

namespace {

// A string member of a JSON value, or empty when it is not an object or the member no string:
// an index is the registry's (or the archive's) to write, and is read without exceptions.
std::string string_member(const json& object, const char* key) {
  if (!object.is_object()) return {};
  auto found = object.find(key);
  return found != object.end() && found->is_string() ? found->get<std::string>() : std::string{};
}

// A string field of a JSON object, or `fallback` when absent; another type is an error naming it.
core::Result<std::string> optional_string(const json& object, const char* key,
                                          const std::string& what, std::string fallback = {}) {
  auto found = object.find(key);
  if (found == object.end() || found->is_null()) return fallback;
  if (!found->is_string()) return core::Error{EBADMSG, what + ": \"" + key + "\" is not a string"};
  return found->get<std::string>();
}

}  // namespace

core::Result<std::string> select_manifest(const json& index, const std::string& platform) {
  std::istringstream parts(platform);
  std::string os, architecture, variant;
  std::getline(parts, os, '/');
  std::getline(parts, architecture, '/');
  std::getline(parts, variant, '/');
  std::vector<std::string> offered;
  if (!is_index(index)) return core::Error{EBADMSG, "not an image index (no \"manifests\" list)"};
  const json& manifests = index["manifests"];
  for (const auto& entry : manifests) {
    std::string digest = string_member(entry, "digest");
    if (digest.empty()) continue;
    const json on = entry.value("platform", json::object());
    std::string entry_os = string_member(on, "os"), entry_arch = string_member(on, "architecture");
    std::string entry_variant = string_member(on, "variant");
    if (entry_os.empty() && manifests.size() == 1) return digest;
    if (entry_os == "unknown") continue;  // attestations
    offered.push_back(entry_os + "/" + entry_arch +
                      (on.is_object() && on.contains("variant") ? "/" + entry_variant : ""));
    if (entry_os == os && entry_arch == architecture &&
        (variant.empty() || entry_variant == variant)) {
      return digest;
    }
  }
  std::string list;
  for (const auto& item : offered) list += (list.empty() ? "" : ", ") + item;
  return core::Error{ENOENT, "the image has no " + platform + " variant (it offers " +
                                 (list.empty() ? std::string("none") : list) +
                                 "); choose with --platform"};
}

core::Result<std::string> manifest_config_digest(const json& manifest,
                                                 const std::string& manifest_digest) {
  if (!manifest.is_object() || !manifest.contains("config") || !manifest["config"].is_object() ||
      !manifest.contains("layers") || !manifest["layers"].is_array()) {
    return core::Error{EBADMSG, "manifest " + manifest_digest +
                                    " is not an OCI or Docker schema 2 image manifest"};
  }
  return optional_string(manifest["config"], "digest", "manifest " + manifest_digest + " config");
}

core::Result<std::vector<std::string>> config_diff_ids(const json& config) {
  std::vector<std::string> diff_ids;
  if (!config.is_object() || !config.contains("rootfs")) return diff_ids;
  const json& rootfs = config["rootfs"];
  if (!rootfs.is_object()) return core::Error{EBADMSG, "image config: \"rootfs\" is not an object"};
  if (!rootfs.contains("diff_ids")) return diff_ids;
  const json& listed = rootfs["diff_ids"];
  if (!listed.is_array())
    return core::Error{EBADMSG, "image config: rootfs.diff_ids is not an array"};
  for (const auto& item : listed) {
    if (!item.is_string()) return core::Error{EBADMSG, "image config: a diff_id is not a string"};
    diff_ids.push_back(item.get<std::string>());
  }
  return diff_ids;
}

core::Result<ImageRecord> image_record_of(const json& manifest, const std::string& manifest_digest,
                                          const json& config) {
  auto config_digest = manifest_config_digest(manifest, manifest_digest);
  if (!config_digest) return config_digest.error();
  auto diff_ids = config_diff_ids(config);
  if (!diff_ids) return diff_ids.error().context("image config " + *config_digest);
  const json& layers = manifest["layers"];
  if (diff_ids->size() != layers.size()) {
    return core::Error{EBADMSG, "manifest " + manifest_digest + " has " +
                                    std::to_string(layers.size()) + " layers but its config " +
                                    std::to_string(diff_ids->size()) + " diff_ids"};
  }
  ImageRecord record;
  record.manifest_digest = manifest_digest;
  record.config_digest = *config_digest;
  record.diff_ids = *diff_ids;
  for (const auto& layer : layers) {
    std::string what = "manifest " + manifest_digest + " layer";
    if (!layer.is_object()) return core::Error{EBADMSG, what + " is not an object"};
    auto blob = optional_string(layer, "digest", what);
    if (!blob) return blob.error();
    auto media = optional_string(layer, "mediaType", what);
    if (!media) return media.error();
    if (media->find("nondistributable") != std::string::npos ||
        media->find("foreign") != std::string::npos) {
      return core::Error{ENOTSUP,
                         "layer " + *blob + " is a foreign layer (" + *media + "), not supported"};
    }
    auto size = layer.find("size");
    if (size != layer.end() && !size->is_number_unsigned()) {
      return core::Error{EBADMSG, what + " " + *blob + ": \"size\" is not a size in bytes"};
    }
    record.layer_blobs.push_back(*blob);
    if (size != layer.end()) record.size += size->get<std::uint64_t>();
  }
  return record;
}

core::Result<ImageRecord> install_image(ImageStore& store, const std::string& reference,
                                        const std::string& manifest_digest) {
  auto manifest = read_json_blob(store, manifest_digest, "manifest");
  if (!manifest) return manifest.error();
  auto config_digest = manifest_config_digest(*manifest, manifest_digest);
  if (!config_digest) return config_digest.error();
  auto config = read_json_blob(store, *config_digest, "image config");
  if (!config) return config.error();
  auto record = image_record_of(*manifest, manifest_digest, *config);
  if (!record) return record.error();
  record->reference = reference;
  for (std::size_t i = 0; i < record->layer_blobs.size(); ++i) {
    if (auto unpacked = store.unpack_layer(record->layer_blobs[i], record->diff_ids[i]);
        !unpacked) {
      return unpacked.error();
    }
  }
  if (auto added = store.add_image(*record); !added) return added.error();
  return *record;
}

}  // namespace paddock::rootfs
