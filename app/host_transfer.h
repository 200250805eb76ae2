#pragma once

// upload_file and download_file's work: files between a share (shares.h) and a session's /work,
// copied directly, so their contents never enter the conversation. Only regular files and
// folders are copied: a symlink or a device inside an uploaded folder is skipped and counted,
// never followed. Sizes and file counts are capped before anything is copied. A download is
// written to a new file beside its target and renamed over it, so the target is never a
// partial file, never a symlink followed, and never replaced unless asked.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "app/shares.h"
#include "core/result.h"
#include "runtime/session.h"

namespace paddock::app {

struct TransferCaps {
  std::uint64_t max_bytes = 1ull << 30;
  std::uint32_t max_files = 10'000;
};

struct TransferReport {
  std::string host_path;     // "NAME/relative", as results show it
  std::string host_dir;      // the real path on the host, for the audit log only
  std::string session_path;  // relative to /work
  bool folder = false;
  std::uint64_t bytes = 0;
  std::uint32_t files = 0;
  // A file's "sha256:<hex>"; for a folder, the digest of its manifest: one line
  // "<hex of the file>  <path inside the folder>\n" per file, sorted by path (sha256sum's form).
  std::string sha256;
  // What a folder held that was not copied: symlinks and special files, never followed; and,
  // on backends that cannot make one, empty folders.
  std::uint32_t skipped = 0;
};

// Copies a share's file, or with `recursive` its folder, into the session at `session_path`
// (empty: the host file's own name, in /work).
core::Result<TransferReport> upload_to_session(runtime::Session& session, const Shares& shares,
                                               const std::string& host_path,
                                               std::string session_path, bool recursive,
                                               const TransferCaps& caps);

// Copies the session's regular file `session_path` to `host_path` in a read-write share,
// making missing folders there. An existing file is replaced only with `overwrite`; an existing
// symlink, folder or special file never is.
core::Result<TransferReport> download_from_session(runtime::Session& session, const Shares& shares,
                                                   const std::string& session_path,
                                                   const std::string& host_path, bool overwrite,
                                                   const TransferCaps& caps);

// Writes what `write` writes into a new file `host_path` of a read-write share, as
// download_from_session writes a session's file (a temporary beside it, renamed into place,
// hashed as it is written): write gets the file and reports its progress, and returns the bytes
// it wrote. An export of a session as an archive.
using ShareWriter =
    std::function<core::Result<std::uint64_t>(int file, const runtime::CopyProgress& progress)>;
core::Result<TransferReport> write_into_share(const Shares& shares, const std::string& host_path,
                                              bool overwrite, const ShareWriter& write);

}  // namespace paddock::app
