#include "rootfs/image_install.h"

#include <sstream>

namespace paddock::rootfs {
using json = nlohmann::json;

bool is_index(const json& document) {
  return document.is_object() && document.contains("manifests") && document["manifests"].is_array();
}

Result<std::string> select_manifest(const json& index, const std::string& platform) {
  std::istringstream parts(platform);
  std::string os, architecture, variant;
  std::getline(parts, os, '/');
  std::getline(parts, architecture, '/');
  std::getline(parts, variant, '/');
  std::vector<std::string> offered;
  for (const auto& entry : index["manifests"]) {
    if (!entry.is_object() || !entry.contains("digest")) continue;
    const json on = entry.value("platform", json::object());
    std::string entry_os = on.value("os", ""), entry_arch = on.value("architecture", "");
    if (entry_os.empty() && index["manifests"].size() == 1)
      return entry["digest"].get<std::string>();
    if (entry_os == "unknown") continue;  // attestations
    offered.push_back(entry_os + "/" + entry_arch +
                      (on.contains("variant") ? "/" + on.value("variant", "") : ""));
    if (entry_os == os && entry_arch == architecture &&
        (variant.empty() || on.value("variant", "") == variant)) {
      return entry["digest"].get<std::string>();
    }
  }
  std::string list;
  for (const auto& item : offered) list += (list.empty() ? "" : ", ") + item;
  return Error{ENOENT, "the image has no " + platform + " variant (it offers " +
                           (list.empty() ? std::string("none") : list) +
                           "); choose with --platform"};
}

Result<ImageRecord> install_image(ImageStore& store, const std::string& reference,
                                  const std::string& manifest_digest) {
  auto manifest = read_json_blob(store, manifest_digest, "manifest");
  if (!manifest) return manifest.error();
  if (!manifest->contains("config") || !manifest->contains("layers") ||
      !(*manifest)["layers"].is_array()) {
    return Error{EBADMSG, "manifest " + manifest_digest +
                              " is not an OCI or Docker schema 2 image manifest"};
  }
  std::string config_digest = (*manifest)["config"].value("digest", "");
  auto config = read_json_blob(store, config_digest, "image config");
  if (!config) return config.error();
  std::vector<std::string> diff_ids =
      json_strings(config->value("rootfs", json::object()).value("diff_ids", json::array()));
  const json& layers = (*manifest)["layers"];
  if (diff_ids.size() != layers.size()) {
    return Error{EBADMSG, "manifest " + manifest_digest + " has " + std::to_string(layers.size()) +
                              " layers but its config " + std::to_string(diff_ids.size()) +
                              " diff_ids"};
  }
  ImageRecord record;
  record.reference = reference;
  record.manifest_digest = manifest_digest;
  record.config_digest = config_digest;
  record.diff_ids = diff_ids;
  for (std::size_t i = 0; i < layers.size(); ++i) {
    std::string blob = layers[i].value("digest", "");
    std::string media = layers[i].value("mediaType", "");
    if (media.find("nondistributable") != std::string::npos ||
        media.find("foreign") != std::string::npos) {
      return Error{ENOTSUP, "layer " + blob + " is a foreign layer (" + media + "), not supported"};
    }
    record.layer_blobs.push_back(blob);
    record.size += layers[i].value("size", std::uint64_t{0});
    if (auto unpacked = store.unpack_layer(blob, diff_ids[i]); !unpacked) return unpacked.error();
  }
  if (auto added = store.add_image(record); !added) return added.error();
  return record;
}

}  // namespace paddock::rootfs
