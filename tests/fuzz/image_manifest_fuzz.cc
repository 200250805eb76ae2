// Fuzzes the reading of OCI and Docker image documents (rootfs/image_install.h, image_pull.h):
// what a registry or an image archive serves as an index, a manifest or an image config. The
// input is one JSON document, read in every role; a list of two objects is read as a manifest
// and its config together.

#include <cstddef>
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "rootfs/image_install.h"
#include "rootfs/image_pull.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace paddock::rootfs;
  using nlohmann::json;
  json document = json::parse(data, data + size, nullptr, false);
  if (document.is_discarded()) return 0;
  const std::string digest = "sha256:" + std::string(64, 'a');
  // As an index, for the default platform and for one with a variant.
  if (is_index(document)) {
    (void)select_manifest(document, kDefaultPlatform);
    (void)select_manifest(document, "linux/arm64/v8");
  }
  // As a manifest and its config: the pair, or the one document in both roles.
  bool pair = document.is_array() && document.size() == 2;
  const json& manifest = pair ? document[0] : document;
  const json& config = pair ? document[1] : document;
  if (manifest.is_object()) {
    if (manifest.contains("config")) (void)parse_descriptor(manifest["config"], "config");
    if (manifest.contains("layers") && manifest["layers"].is_array()) {
      for (const auto& layer : manifest["layers"]) (void)parse_descriptor(layer, "layer");
    }
  }
  (void)manifest_config_digest(manifest, digest);
  (void)image_record_of(manifest, digest, config);
  (void)config_diff_ids(config);
  (void)parse_image_run_config(config);
  return 0;
}
