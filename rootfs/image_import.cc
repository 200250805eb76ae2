#include "rootfs/image_import.h"

#include <archive.h>
#include <archive_entry.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <map>
#include <memory>
#include <sstream>

#include "rootfs/image_install.h"
#include "rootfs/image_reference.h"

namespace paddock::rootfs {
namespace {

using json = nlohmann::json;

constexpr std::size_t kMaxJson = 4u << 20;

// The files of an image layout or a docker save, by their path inside it: small JSON documents
// kept in memory, everything else already copied into the store as a blob (by its digest).
struct Bundle {
  std::map<std::string, std::string> documents;
  std::map<std::string, std::string> blobs;  // path -> digest of its content
};

std::string normalise(std::string name) {
  while (name.starts_with("./")) name.erase(0, 2);
  return name;
}

bool is_document(const std::string& name) {
  return name == "index.json" || name == "manifest.json" || name == "oci-layout" ||
         name == "repositories";
}

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

core::Result<Bundle> read_archive(ImageStore& store, const std::string& path) {
  std::unique_ptr<archive, ArchiveDeleter> reader(archive_read_new());
  // The compressions people put on `docker save`, each decoded by a library inside libarchive.
  // archive_read_support_filter_all would also hand lzop, lrzip and grzip data to those programs,
  // running them on hostile input (ImageTest.AnArchiveRunsNoDecompressorProgram).
  archive_read_support_filter_gzip(reader.get());
  archive_read_support_filter_zstd(reader.get());
  archive_read_support_filter_xz(reader.get());
  archive_read_support_filter_bzip2(reader.get());
  archive_read_support_format_tar(reader.get());
  if (archive_read_open_filename(reader.get(), path.c_str(), 1 << 16) != ARCHIVE_OK) {
    return core::Error{EINVAL, path + " is neither an image layout directory nor a tar archive: " +
                                   archive_error_string(reader.get())};
  }
  Bundle bundle;
  archive_entry* entry = nullptr;
  int status;
  while ((status = archive_read_next_header(reader.get(), &entry)) == ARCHIVE_OK) {
    if (archive_entry_filetype(entry) != AE_IFREG) continue;
    std::string name = normalise(archive_entry_pathname(entry));
    if (is_document(name)) {
      if (archive_entry_size(entry) > static_cast<la_int64_t>(kMaxJson)) {
        return core::Error{EFBIG, path + ": " + name + " is too large"};
      }
      std::string text(static_cast<std::size_t>(archive_entry_size(entry)), '\0');
      if (archive_read_data(reader.get(), text.data(), text.size()) !=
          static_cast<la_ssize_t>(text.size())) {
        return core::Error{EIO, path + ": cannot read " + name};
      }
      bundle.documents[name] = std::move(text);
      continue;
    }
    auto writer = store.new_blob();
    if (!writer) return writer.error();
    const void* block;
    size_t size;
    la_int64_t offset;
    int read;
    while ((read = archive_read_data_block(reader.get(), &block, &size, &offset)) == ARCHIVE_OK) {
      if (auto wrote = (*writer)->write(std::string_view(static_cast<const char*>(block), size));
          !wrote) {
        return wrote.error();
      }
    }
    if (read != ARCHIVE_EOF) {
      return core::Error{EIO, path + ": " + name + ": " + archive_error_string(reader.get())};
    }
    auto digest = (*writer)->commit();
    if (!digest) return digest.error();
    bundle.blobs[name] = *digest;
  }
  if (status != ARCHIVE_EOF) {
    return core::Error{EIO, path + ": " + archive_error_string(reader.get())};
  }
  return bundle;
}

// An OCI layout directory: its documents, and its blobs on demand (copied and verified).
core::Result<Bundle> read_layout_documents(const std::string& path) {
  Bundle bundle;
  for (const char* name : {"index.json", "oci-layout"}) {
    std::ifstream in(path + "/" + name);
    if (!in) continue;
    std::ostringstream text;
    text << in.rdbuf();
    bundle.documents[name] = text.str();
  }
  if (bundle.documents.count("index.json") == 0) {
    return core::Error{EINVAL, path + " has no index.json: not an OCI image layout"};
  }
  return bundle;
}

// Makes sure the blob `digest` is in the store: from the archive (where its content's hash
// must be the name it had), or from the layout directory.
core::Status ensure_blob(ImageStore& store, const Bundle& bundle, const std::string& layout,
                         const std::string& digest) {
  if (!is_sha256_digest(digest))
    return core::Error{EBADMSG, "'" + digest + "' is not a sha256 digest"};
  std::string name = "blobs/sha256/" + digest.substr(7);
  if (auto found = bundle.blobs.find(name); found != bundle.blobs.end()) {
    if (found->second != digest) {
      return core::Error{EBADMSG,
                         name + " does not match its digest (it hashes to " + found->second + ")"};
    }
    return {};
  }
  if (!layout.empty()) {
    int fd = open((layout + "/" + name).c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return core::system_error(layout + "/" + name);
    auto stored = store.put_blob_from_fd(fd, digest);
    close(fd);
    if (!stored) return stored.error().context(name);
    return {};
  }
  if (store.has_blob(digest)) return {};
  return core::Error{ENOENT, name + " is missing from the archive"};
}

core::Result<std::string> manifest_for(ImageStore& store, const Bundle& bundle,
                                       const std::string& layout, std::string digest,
                                       const std::string& platform) {
  for (int depth = 0; depth < 4; ++depth) {
    if (auto ensured = ensure_blob(store, bundle, layout, digest); !ensured) return ensured.error();
    auto text = store.read_blob(digest);
    if (!text) return text.error();
    json document = json::parse(*text, nullptr, false);
    if (!is_index(document)) {
      if (!document.is_object() || !document.contains("config")) {
        return core::Error{EBADMSG, digest + " is neither a manifest nor an index"};
      }
      if (auto ensured = ensure_blob(store, bundle, layout, document["config"].value("digest", ""));
          !ensured) {
        return ensured.error();
      }
      for (const auto& layer : document.value("layers", json::array())) {
        if (auto ensured = ensure_blob(store, bundle, layout, layer.value("digest", ""));
            !ensured) {
          return ensured.error();
        }
      }
      return digest;
    }
    auto chosen = select_manifest(document, platform);
    if (!chosen) return chosen.error();
    digest = *chosen;
  }
  return core::Error{EBADMSG, "image indexes nested too deep"};
}

std::string reference_for(const std::optional<std::string>& tag, const std::string& name,
                          const std::string& fallback) {
  std::string text = tag.value_or(name);
  if (text.empty()) text = fallback;
  auto parsed = parse_image_reference(text);
  return parsed ? parsed->canonical() : text;
}

core::Result<std::vector<ImageRecord>> import_oci(ImageStore& store, const Bundle& bundle,
                                                  const std::string& layout,
                                                  const ImportOptions& options) {
  json index = json::parse(bundle.documents.at("index.json"), nullptr, false);
  if (!is_index(index)) return core::Error{EBADMSG, "index.json is not an image index"};
  std::vector<ImageRecord> records;
  for (const auto& entry : index["manifests"]) {
    const json annotations = entry.value("annotations", json::object());
    std::string name = annotations.value(
        "io.containerd.image.name", annotations.value("org.opencontainers.image.ref.name", ""));
    // A bare tag ("3.12") as ref.name names a tag, not a repository.
    if (!name.empty() && name.find(':') == std::string::npos &&
        name.find('/') == std::string::npos &&
        annotations.contains("org.opencontainers.image.ref.name") &&
        !annotations.contains("io.containerd.image.name")) {
      name = "imported:" + name;
    }
    auto manifest =
        manifest_for(store, bundle, layout, entry.value("digest", ""), options.platform);
    if (!manifest) return manifest.error();
    std::string reference = reference_for(options.tag, name, "imported:" + manifest->substr(7, 12));
    auto installed = install_image(store, reference, *manifest);
    if (!installed) return installed.error();
    records.push_back(*installed);
    if (options.tag) break;  // one name names one image
  }
  return records;
}

// `docker save` (before Docker 25, and alongside the OCI layout after): manifest.json lists each
// image's config and its layers as uncompressed tars, whose digests are their diff_ids.
core::Result<std::vector<ImageRecord>> import_docker_save(ImageStore& store, const Bundle& bundle,
                                                          const ImportOptions& options) {
  json list = json::parse(bundle.documents.at("manifest.json"), nullptr, false);
  if (!list.is_array()) return core::Error{EBADMSG, "manifest.json is not a docker save manifest"};
  std::vector<ImageRecord> records;
  for (const auto& image : list) {
    auto config = bundle.blobs.find(image.value("Config", ""));
    if (config == bundle.blobs.end()) return core::Error{ENOENT, "the image config is missing"};
    json manifest{
        {"schemaVersion", 2},
        {"mediaType", "application/vnd.oci.image.manifest.v1+json"},
        {"config",
         {{"mediaType", "application/vnd.oci.image.config.v1+json"}, {"digest", config->second}}},
        {"layers", json::array()}};
    for (const auto& layer : image.value("Layers", json::array())) {
      auto blob = bundle.blobs.find(layer.get<std::string>());
      if (blob == bundle.blobs.end()) {
        return core::Error{ENOENT, "layer " + layer.get<std::string>() + " is missing"};
      }
      manifest["layers"].push_back(
          {{"mediaType", "application/vnd.oci.image.layer.v1.tar"}, {"digest", blob->second}});
    }
    auto manifest_digest = store.put_blob(manifest.dump());
    if (!manifest_digest) return manifest_digest.error();
    std::vector<std::string> tags;
    for (const auto& tag : image.value("RepoTags", json::array())) tags.push_back(tag);
    if (options.tag) tags = {*options.tag};
    if (tags.empty()) tags = {"imported:" + manifest_digest->substr(7, 12)};
    for (const auto& tag : tags) {
      auto installed =
          install_image(store, reference_for(std::nullopt, tag, tag), *manifest_digest);
      if (!installed) return installed.error();
      records.push_back(*installed);
    }
    if (options.tag) break;
  }
  return records;
}

// The documents are the archive's: where one has an entry of a shape nlohmann's accessors refuse
// (a number where a name goes, an entry that is not an object), the import stops there with that
// document named, rather than ending the process with an uncaught exception.
template <typename Import>
core::Result<std::vector<ImageRecord>> reading(const std::string& document, Import&& import) {
  try {
    return import();
  } catch (const json::exception& error) {
    std::string what = error.what();
    if (auto end = what.find("] "); what.rfind("[json.exception", 0) == 0 && end != what.npos) {
      what.erase(0, end + 2);
    }
    return core::Error{EBADMSG, document + " (or a document it names) is malformed: " + what};
  }
}

}  // namespace

core::Result<std::vector<ImageRecord>> import_images(ImageStore& store, const std::string& path,
                                                     const ImportOptions& options) {
  if (options.tag) {
    if (auto valid = parse_image_reference(*options.tag); !valid) return valid.error();
  }
  struct stat info {};
  if (stat(path.c_str(), &info) != 0) return core::system_error("cannot import " + path);
  std::vector<ImageRecord> records;
  core::Result<std::vector<ImageRecord>> imported = std::vector<ImageRecord>{};
  if (S_ISDIR(info.st_mode)) {
    auto bundle = read_layout_documents(path);
    if (!bundle) return bundle.error();
    imported = reading("index.json", [&] { return import_oci(store, *bundle, path, options); });
  } else {
    auto bundle = read_archive(store, path);
    if (!bundle) return bundle.error();
    if (bundle->documents.count("index.json") != 0 &&
        (bundle->documents.count("manifest.json") == 0 || options.platform.empty())) {
      imported = reading("index.json", [&] { return import_oci(store, *bundle, "", options); });
    } else if (bundle->documents.count("manifest.json") != 0) {
      imported =
          reading("manifest.json", [&] { return import_docker_save(store, *bundle, options); });
    } else {
      return core::Error{EINVAL,
                         path + " has neither index.json (OCI) nor manifest.json (docker save)"};
    }
  }
  if (!imported) return imported.error().context("importing " + path);
  if (imported->empty()) return core::Error{ENOENT, path + " holds no image"};
  return imported;
}

}  // namespace paddock::rootfs
