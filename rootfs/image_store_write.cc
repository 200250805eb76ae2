#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rootfs/image_reference.h"
#include "rootfs/image_store.h"
#include "rootfs/layer_unpacker.h"
#include "rootfs/sha256.h"

// The store's writing half: blobs hashed on the way in, layers unpacked. Only the commands that
// bring images in (import, pull) link it, and with it libcrypto and libarchive: starting a
// sandbox on an image needs neither.

namespace paddock::rootfs {

ImageStore::BlobWriter::~BlobWriter() {
  if (!temp_.empty()) unlink(temp_.c_str());
}

core::Status ImageStore::BlobWriter::write(std::string_view bytes) {
  hasher_.update(bytes);
  for (std::size_t done = 0; done < bytes.size();) {
    ssize_t wrote = ::write(fd_.get(), bytes.data() + done, bytes.size() - done);
    if (wrote < 0 && errno == EINTR) continue;
    if (wrote < 0) return core::system_error("writing " + temp_);
    done += static_cast<std::size_t>(wrote);
  }
  return {};
}

core::Result<std::string> ImageStore::BlobWriter::commit(
    const std::optional<std::string>& expected) {
  std::string digest = hasher_.digest();
  if (expected && digest != *expected) {
    return core::Error{EBADMSG, "blob digest mismatch: expected " + *expected + ", got " + digest};
  }
  if (fsync(fd_.get()) != 0 || rename(temp_.c_str(), store_.blob_path(digest).c_str()) != 0) {
    return core::system_error("storing blob " + digest);
  }
  temp_.clear();
  return digest;
}

core::Result<std::unique_ptr<ImageStore::BlobWriter>> ImageStore::new_blob() const {
  std::string temp = root_ + "/tmp/blob-" + unique_name();
  core::UniqueFd fd(::open(temp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600));
  if (!fd.valid()) return core::system_error("creating " + temp);
  return std::unique_ptr<BlobWriter>(new BlobWriter(*this, std::move(temp), std::move(fd)));
}

core::Result<std::string> ImageStore::put_blob_from_fd(int fd,
                                                       const std::optional<std::string>& expected) {
  if (expected && !is_sha256_digest(*expected)) {
    return core::invalid_input("'" + *expected + "' is not a sha256 digest");
  }
  auto writer = new_blob();
  if (!writer) return writer.error();
  char buffer[1 << 16];
  for (;;) {
    ssize_t got = read(fd, buffer, sizeof buffer);
    if (got < 0 && errno == EINTR) continue;
    if (got < 0) return core::system_error("reading a blob");
    if (got == 0) break;
    if (auto wrote = (*writer)->write(std::string_view(buffer, static_cast<std::size_t>(got)));
        !wrote) {
      return wrote.error();
    }
  }
  return (*writer)->commit(expected);
}

core::Result<std::string> ImageStore::put_blob(std::string_view data,
                                               const std::optional<std::string>& expected) {
  // A document already stored (an index pulled again) is not written again.
  if (std::string digest = sha256_of(data);
      has_blob(digest) && (!expected || digest == *expected)) {
    return digest;
  }
  auto writer = new_blob();
  if (!writer) return writer.error();
  if (auto wrote = (*writer)->write(data); !wrote) return wrote.error();
  return (*writer)->commit(expected);
}

core::Status ImageStore::unpack_layer(const std::string& blob_digest, const std::string& diff_id) {
  if (!is_sha256_digest(diff_id)) return core::invalid_input("'" + diff_id + "' is not a diff_id");
  if (has_layer(diff_id)) return {};
  core::UniqueFd blob(::open(blob_path(blob_digest).c_str(), O_RDONLY | O_CLOEXEC));
  if (!blob.valid()) return core::system_error("opening layer blob " + blob_digest);
  auto temp = make_temp_dir();
  if (!temp) return temp.error();
  // The layer's root is what the sandbox's overlay sees as "/": traversable by the sandbox user.
  chmod(temp->c_str(), 0755);
  core::UniqueFd target(::open(temp->c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC));
  auto unpacked = rootfs::unpack_layer(blob.get(), target.get());
  if (unpacked && unpacked->diff_id != diff_id) {
    unpacked = core::Error{EBADMSG, "layer " + blob_digest + " unpacks to " + unpacked->diff_id +
                                        ", but the image config says " + diff_id};
  }
  if (!unpacked) {
    (void)remove_tree(*temp);
    return unpacked.error().context("unpacking layer " + blob_digest);
  }
  if (rename(temp->c_str(), layer_path(diff_id).c_str()) != 0) {
    int error = errno;
    (void)remove_tree(*temp);
    // Another paddock unpacked the same layer meanwhile: theirs is as good as ours.
    if (error == EEXIST || error == ENOTEMPTY) return {};
    return core::system_error("storing layer " + diff_id, error);
  }
  return {};
}

}  // namespace paddock::rootfs
