#pragma once

// From manifests to stored images, shared by import and pull: choosing a platform's manifest
// from an index (OCI image index or Docker manifest list), and installing an image whose
// manifest, config and layer blobs are in the store (every layer unpacked once, its diff_id
// checked against the config).

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "rootfs/image_store.h"

namespace paddock::rootfs {

inline constexpr const char* kDefaultPlatform = "linux/amd64";

bool is_index(const nlohmann::json& document);  // an image index or manifest list
// The digest of the manifest for `platform` ("os/arch" or "os/arch/variant") in an index.
core::Result<std::string> select_manifest(const nlohmann::json& index, const std::string& platform);

// The digest of the config an image manifest names; the error says the document is not an image
// manifest. `manifest_digest` names it in errors.
core::Result<std::string> manifest_config_digest(const nlohmann::json& manifest,
                                                 const std::string& manifest_digest);
// The config's diff_ids (rootfs.diff_ids): the error names what is missing or not a string.
core::Result<std::vector<std::string>> config_diff_ids(const nlohmann::json& config);
// What an image manifest and its config say of the image to store: the config digest, every
// layer's blob and diff_id, the size (everything but the reference). The error names what does
// not add up (a layer count that differs from the diff_ids', a foreign layer, a field of the
// wrong type).
core::Result<ImageRecord> image_record_of(const nlohmann::json& manifest,
                                          const std::string& manifest_digest,
                                          const nlohmann::json& config);

// Installs the image whose manifest (stored as blob `manifest_digest`) names blobs already in
// the store, and records it as `reference`.
core::Result<ImageRecord> install_image(ImageStore& store, const std::string& reference,
                                        const std::string& manifest_digest);

// What a sandbox on an image needs from the image's config.
struct ImageRunConfig {
  std::vector<std::string> env;         // "K=V"
  std::vector<std::string> entrypoint;  // may be empty
  std::vector<std::string> cmd;
  std::string working_dir;
  std::string user;
};
core::Result<ImageRunConfig> image_run_config(const ImageStore& store, const ImageRecord& record);
// The same from the config's document: "config" not an object, or WorkingDir or User not a
// string, is an error naming it; the lists keep their strings.
core::Result<ImageRunConfig> parse_image_run_config(const nlohmann::json& config);

// A stored JSON document (manifest, index, config), `what` naming it in errors.
core::Result<nlohmann::json> read_json_blob(const ImageStore& store, const std::string& digest,
                                            const std::string& what);
// The strings of a JSON array (anything else: none).
std::vector<std::string> json_strings(const nlohmann::json& value);

}  // namespace paddock::rootfs
