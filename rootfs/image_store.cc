#include "rootfs/image_store.h"

#include <dirent.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>

#include "core/files.h"
#include "core/utc_time.h"
#include "rootfs/image_reference.h"

namespace paddock::rootfs {
namespace {

using json = nlohmann::json;

}  // namespace

std::string ImageStore::unique_name() {
  unsigned char bytes[8];
  std::size_t got = 0;
  while (got < sizeof bytes) {
    ssize_t n = getrandom(bytes + got, sizeof bytes - got, 0);
    if (n > 0) got += static_cast<std::size_t>(n);
  }
  char text[17];
  for (int i = 0; i < 8; ++i) std::snprintf(text + 2 * i, 3, "%02x", bytes[i]);
  return text;
}

namespace {

core::Status make_dir(const std::string& path, mode_t mode) {
  if (mkdir(path.c_str(), mode) != 0 && errno != EEXIST)
    return core::system_error("creating " + path);
  return {};
}

ImageRecord record_from_json(const json& item) {
  ImageRecord record;
  record.reference = item.value("reference", "");
  record.manifest_digest = item.value("manifest", "");
  record.config_digest = item.value("config", "");
  record.layer_blobs = item.value("layer_blobs", std::vector<std::string>{});
  record.diff_ids = item.value("layers", std::vector<std::string>{});
  record.size = item.value("size", std::uint64_t{0});
  record.created = item.value("created", "");
  return record;
}

std::uint64_t tree_bytes(const std::string& path) {
  struct stat info {};
  if (lstat(path.c_str(), &info) != 0) return 0;
  if (!S_ISDIR(info.st_mode)) return static_cast<std::uint64_t>(info.st_size);
  std::uint64_t total = 0;
  if (DIR* dir = opendir(path.c_str())) {
    while (dirent* entry = readdir(dir)) {
      std::string child = entry->d_name;
      if (child != "." && child != "..") total += tree_bytes(path + "/" + child);
    }
    closedir(dir);
  }
  return total;
}

}  // namespace

core::Status remove_tree_at(int parent, const char* name) {
  int fd = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
  if (fd < 0) {
    if (errno == ENOENT) return {};
    if (errno == ENOTDIR || errno == ELOOP) {
      if (unlinkat(parent, name, 0) != 0 && errno != ENOENT) {
        return core::system_error(std::string("removing ") + name);
      }
      return {};
    }
    return core::system_error(std::string("opening ") + name);
  }
  fchmod(fd, 0700);  // a read-only directory of a layer keeps its entries otherwise
  DIR* dir = fdopendir(fd);
  if (dir == nullptr) {
    close(fd);
    return core::system_error(std::string("listing ") + name);
  }
  std::vector<std::string> entries;
  while (dirent* entry = readdir(dir)) {
    std::string child = entry->d_name;
    if (child != "." && child != "..") entries.push_back(child);
  }
  for (const auto& child : entries) {
    if (auto removed = remove_tree_at(dirfd(dir), child.c_str()); !removed) {
      closedir(dir);
      return removed;
    }
  }
  closedir(dir);
  if (unlinkat(parent, name, AT_REMOVEDIR) != 0 && errno != ENOENT) {
    return core::system_error(std::string("removing ") + name);
  }
  return {};
}

core::Status remove_tree(const std::string& path) {
  auto slash = path.rfind('/');
  std::string parent = slash == 0 ? "/" : path.substr(0, slash);
  core::UniqueFd parent_fd(open(parent.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  if (!parent_fd.valid())
    return errno == ENOENT ? core::Status{} : core::system_error("opening " + parent);
  return remove_tree_at(parent_fd.get(), path.substr(slash + 1).c_str());
}

json to_json(const ImageRecord& record) {
  return {{"reference", record.reference},  {"manifest", record.manifest_digest},
          {"config", record.config_digest}, {"layer_blobs", record.layer_blobs},
          {"layers", record.diff_ids},      {"size", record.size},
          {"created", record.created}};
}

core::Result<ImageStore> ImageStore::open(const std::string& root) {
  const std::string& path = root;
  if (path.empty() || path[0] != '/') {
    return core::invalid_input("the image store '" + path + "' must be an absolute path");
  }
  // Parents as the user's umask says; the store itself private.
  for (std::size_t at = path.find('/', 1); at != std::string::npos; at = path.find('/', at + 1)) {
    if (auto made = make_dir(path.substr(0, at), 0755); !made) return made.error();
  }
  if (auto made = make_dir(path, 0700); !made) return made.error();
  chmod(path.c_str(), 0700);
  for (const char* sub :
       {"/blobs", "/blobs/sha256", "/layers", "/layers/sha256", "/flat", "/tmp"}) {
    if (auto made = make_dir(path + sub, 0700); !made) return made.error();
  }
  return ImageStore(path);
}

std::string ImageStore::blob_path(const std::string& digest) const {
  return root_ + "/blobs/sha256/" + digest_hex(digest);
}

bool ImageStore::has_blob(const std::string& digest) const {
  return is_sha256_digest(digest) && access(blob_path(digest).c_str(), F_OK) == 0;
}

core::Result<std::string> ImageStore::read_blob(const std::string& digest,
                                                std::size_t max_bytes) const {
  if (!is_sha256_digest(digest))
    return core::invalid_input("'" + digest + "' is not a sha256 digest");
  core::UniqueFd fd(::open(blob_path(digest).c_str(), O_RDONLY | O_CLOEXEC));
  struct stat info {};
  if (!fd.valid() || fstat(fd.get(), &info) != 0) {
    return core::Error{ENOENT, "blob " + digest + " is not in the store"};
  }
  if (static_cast<std::uint64_t>(info.st_size) > max_bytes) {
    return core::Error{EFBIG, "blob " + digest + " is too large to read"};
  }
  // Sized by the file, not by the cap: a config is a few hundred bytes, and a 4 MiB buffer
  // would cost a sandbox start more than everything else the store does.
  std::string data(static_cast<std::size_t>(info.st_size), '\0');
  std::size_t got = 0;
  while (got < data.size()) {
    ssize_t n = read(fd.get(), data.data() + got, data.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    got += static_cast<std::size_t>(n);
  }
  data.resize(got);
  return data;
}

std::string ImageStore::layer_path(const std::string& diff_id) const {
  return root_ + "/layers/sha256/" + digest_hex(diff_id);
}

std::string ImageStore::flattened_path(const ImageRecord& record) const {
  return root_ + "/flat/" + digest_hex(record.manifest_digest);
}

bool ImageStore::has_layer(const std::string& diff_id) const {
  return is_sha256_digest(diff_id) && access(layer_path(diff_id).c_str(), F_OK) == 0;
}

core::Result<std::string> ImageStore::make_temp_dir() const {
  std::string path = root_ + "/tmp/" + unique_name();
  if (mkdir(path.c_str(), 0700) != 0) return core::system_error("creating " + path);
  return path;
}

core::Result<core::UniqueFd> ImageStore::lock() const {
  core::UniqueFd fd(::open((root_ + "/.lock").c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600));
  if (!fd.valid()) return core::system_error("opening the store's lock");
  while (flock(fd.get(), LOCK_EX) != 0) {
    if (errno != EINTR) return core::system_error("locking the image store");
  }
  return fd;
}

std::vector<ImageRecord> ImageStore::images() const {
  std::ifstream in(root_ + "/images.json");
  if (!in) return {};
  json document = json::parse(in, nullptr, false);
  std::vector<ImageRecord> records;
  if (!document.is_object() || !document.contains("images")) return records;
  for (const auto& item : document["images"]) {
    if (item.is_object()) records.push_back(record_from_json(item));
  }
  return records;
}

core::Status ImageStore::write_images(const std::vector<ImageRecord>& records) const {
  json list = json::array();
  for (const auto& record : records) list.push_back(to_json(record));
  std::string temp = root_ + "/tmp/images-" + unique_name() + ".json";
  {
    std::ofstream out(temp);
    out << json{{"images", list}}.dump(2) << "\n";
    if (!out) return core::system_error("writing " + temp);
  }
  if (rename(temp.c_str(), (root_ + "/images.json").c_str()) != 0) {
    unlink(temp.c_str());
    return core::system_error("updating images.json");
  }
  return {};
}

core::Status ImageStore::add_image(const ImageRecord& input) {
  auto held = lock();
  if (!held) return held.error();
  ImageRecord record = input;
  if (record.created.empty()) record.created = core::utc_now();
  std::vector<ImageRecord> records = images();
  std::erase_if(records, [&](const ImageRecord& r) { return r.reference == record.reference; });
  records.push_back(record);
  return write_images(records);
}

core::Result<ImageRecord> ImageStore::find_image(const std::string& name) const {
  std::vector<ImageRecord> records = images();
  std::string normalised = name;
  if (auto parsed = parse_image_reference(name)) normalised = parsed->canonical();
  for (const auto& record : records) {
    if (record.reference == name || record.reference == normalised) return record;
  }
  // A digest, or a prefix of one (at least 12 hex digits), names the image too.
  std::string hex = name.starts_with("sha256:") ? name.substr(7) : name;
  if (hex.size() >= 12 && hex.find_first_not_of("0123456789abcdef") == std::string::npos) {
    for (const auto& record : records) {
      if (digest_hex(record.manifest_digest).starts_with(hex)) return record;
    }
  }
  return core::Error{ENOENT,
                     "image '" + name + "' is not in the store (" + root_ +
                         "); 'paddock images' lists what is, 'paddock pull' or 'paddock import' "
                         "adds one"};
}

core::Status ImageStore::remove_image(const std::string& name) {
  auto found = find_image(name);
  if (!found) return found.error();
  auto held = lock();
  if (!held) return held.error();
  std::vector<ImageRecord> records = images();
  std::erase_if(records, [&](const ImageRecord& r) { return r.reference == found->reference; });
  return write_images(records);
}

core::Result<ImageStore::GcResult> ImageStore::gc() {
  auto held = lock();
  if (!held) return held.error();
  std::set<std::string> blobs, layers, flattened;
  for (const auto& record : images()) {
    flattened.insert(digest_hex(record.manifest_digest));
    for (const auto& digest : {record.manifest_digest, record.config_digest}) {
      blobs.insert(digest_hex(digest));
    }
    for (const auto& digest : record.layer_blobs) blobs.insert(digest_hex(digest));
    for (const auto& diff_id : record.diff_ids) layers.insert(digest_hex(diff_id));
  }
  GcResult result;
  for (const auto& name : core::directory_names(root_ + "/blobs/sha256")) {
    if (blobs.count(name) != 0) continue;
    std::string path = root_ + "/blobs/sha256/" + name;
    result.bytes += tree_bytes(path);
    if (unlink(path.c_str()) == 0) ++result.blobs;
  }
  for (const auto& name : core::directory_names(root_ + "/layers/sha256")) {
    if (layers.count(name) != 0) continue;
    std::string path = root_ + "/layers/sha256/" + name;
    result.bytes += tree_bytes(path);
    if (remove_tree(path)) ++result.layers;
  }
  // Flattened copies are hard links into the layers: they cost inodes, not bytes.
  for (const auto& name : core::directory_names(root_ + "/flat")) {
    if (flattened.count(name) == 0 && remove_tree(root_ + "/flat/" + name)) ++result.flattened;
  }
  // Work of a paddock that was killed: nothing there is referenced. (A pull running right now
  // would lose its temporary files; it fails cleanly and can be repeated.)
  for (const auto& name : core::directory_names(root_ + "/tmp"))
    (void)remove_tree(root_ + "/tmp/" + name);
  return result;
}

}  // namespace paddock::rootfs
