#pragma once

// Where images live: $PADDOCK_ROOT (or --root), else $XDG_DATA_HOME/paddock, else
// /var/lib/paddock for root and ~/.local/share/paddock for everyone else; mode 0700.
//
//   blobs/sha256/<hex>    content-addressed blobs (manifests, configs, compressed layers)
//   layers/sha256/<hex>/  each layer unpacked once, by diff_id, shared by every image using it
//   flat/<manifest hex>/  an image's layers merged, for kernels without overlayfs in a user
//                         namespace (image_flatten.h); hard links into layers/
//   images.json           references -> manifest, config and layers
//   tmp/                  work in progress: nothing is visible until renamed into place
//
// Safe against two paddock processes at once: blobs and layers appear by atomic rename (the
// same content under the same name, whoever wins), and images.json changes under a flock.

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/result.h"
#include "core/unique_fd.h"
#include "rootfs/sha256.h"

namespace paddock::rootfs {

struct ImageRecord {
  std::string reference;        // canonical, e.g. docker.io/library/python:3.12-slim
  std::string manifest_digest;  // the image's id
  std::string config_digest;
  std::vector<std::string> layer_blobs;  // compressed layer digests, bottom first
  std::vector<std::string> diff_ids;     // unpacked layers, bottom first
  std::uint64_t size = 0;                // compressed bytes of the layers
  std::string created;                   // when it was stored (UTC)
};

class ImageStore {
 public:
  // Opens (creating it, 0700) the store at `root`, an absolute path (the command line finds the
  // default place: cli/host_paths.h).
  static core::Result<ImageStore> open(const std::string& root);

  [[nodiscard]] const std::string& root() const { return root_; }

  [[nodiscard]] std::string blob_path(const std::string& digest) const;
  [[nodiscard]] bool has_blob(const std::string& digest) const;
  // Copies what `fd` holds (from its offset) into the store and returns its digest; with
  // `expected`, a different digest is an error and nothing is stored.
  core::Result<std::string> put_blob_from_fd(int fd,
                                             const std::optional<std::string>& expected = {});
  // A blob written piece by piece (from an archive, a download), hashed on the way and stored
  // by commit() only if it has the digest expected; dropped when destroyed uncommitted.
  class BlobWriter {
   public:
    ~BlobWriter();
    core::Status write(std::string_view bytes);
    core::Result<std::string> commit(const std::optional<std::string>& expected = {});

   private:
    friend class ImageStore;
    BlobWriter(const ImageStore& store, std::string temp, core::UniqueFd fd)
        : store_(store), temp_(std::move(temp)), fd_(std::move(fd)) {}
    const ImageStore& store_;
    std::string temp_;
    core::UniqueFd fd_;
    Sha256 hasher_;
  };
  core::Result<std::unique_ptr<BlobWriter>> new_blob() const;
  core::Result<std::string> put_blob(std::string_view data,
                                     const std::optional<std::string>& expected = {});
  core::Result<std::string> read_blob(const std::string& digest,
                                      std::size_t max_bytes = 4u << 20) const;

  [[nodiscard]] std::string layer_path(const std::string& diff_id) const;
  [[nodiscard]] bool has_layer(const std::string& diff_id) const;
  // Where the image's flattened copy is kept, once a run needed it.
  [[nodiscard]] std::string flattened_path(const ImageRecord& record) const;
  // Unpacks the blob into layers/ unless that diff_id is there already; the unpacked stream
  // must hash to `diff_id`.
  core::Status unpack_layer(const std::string& blob_digest, const std::string& diff_id);

  core::Status add_image(const ImageRecord& record);  // replaces a record of the same reference
  [[nodiscard]] std::vector<ImageRecord> images() const;
  // By reference (as given or normalised) or by a prefix of the manifest digest's hex.
  [[nodiscard]] core::Result<ImageRecord> find_image(const std::string& name) const;
  core::Status remove_image(const std::string& name);

  struct GcResult {
    std::size_t blobs = 0;
    std::size_t layers = 0;
    std::size_t flattened = 0;  // flattened copies of images no longer present
    std::uint64_t bytes = 0;
  };
  // Removes blobs, layers and flattened copies no image refers to, and leftovers of
  // interrupted work in tmp/.
  core::Result<GcResult> gc();

  // A fresh random name for a file or directory under tmp/.
  static std::string unique_name();

  // A new empty directory under tmp/, removed by the caller.
  core::Result<std::string> make_temp_dir() const;

 private:
  explicit ImageStore(std::string root) : root_(std::move(root)) {}
  core::Result<core::UniqueFd> lock() const;
  core::Status write_images(const std::vector<ImageRecord>& records) const;
  std::string root_;
};

// Removes a directory tree without following symlinks, making read-only directories writable
// first (a layer may have them). Missing is not an error.
core::Status remove_tree(const std::string& path);
// The same for `name` in the directory `parent`.
core::Status remove_tree_at(int parent, const char* name);

nlohmann::json to_json(const ImageRecord& record);

}  // namespace paddock::rootfs
