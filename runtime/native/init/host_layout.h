#pragma once

// What the host's root (or a flattened image) looks like, where the mount plan depends on it:
// probed here, read by plan_mounts (mount_plan.h), which itself never touches the host.

#include <optional>
#include <string>
#include <vector>

#include "core/result.h"

namespace paddock::init {

// What the host's root looks like, where the plan depends on it (probed, or given by tests).
struct HostLayout {
  struct Entry {
    enum class Type { kDirectory, kSymlink, kFile };
    std::string name;  // "bin", "lib64", "ssl", "ld.so.cache", ...
    Type type = Type::kDirectory;
    // A symlink's target, or a flattened image's file's bytes. The host's files are bound, not
    // copied: a copy went through paddock's memory, the plan's memfd and init's, and cost each
    // run about 1 ms (140 KB of ld.so.cache, mime.types, services...) against 0.2 for the binds.
    std::string content;
  };
  std::vector<Entry> top_level;  // /bin, /sbin, /lib* that exist (directories or symlinks)
  std::vector<Entry> etc;        // allow-listed /etc entries that exist
  // The entries are a flattened image's (rootfs/image_flatten.h), not the host's: every
  // top-level directory (/usr among them) and every /etc entry, bound from the copy through the
  // fd init opened for it.
  bool flattened_image = false;
  // The host has a regular file at kSandboxTrustBundle, in the /etc/ssl every sandbox sees:
  // a sandbox's trust bundle is bound over it, never made in the host's folder.
  bool has_trust_bundle = false;
  // The host's /usr has python3 and no `python`: the sandbox gets `python` as a link to it
  // (kSandboxAliasDir).
  bool python3_without_python = false;
};

// Reads /bin, /sbin, /lib, /lib32, /lib64, /libx32 and the allow-listed /etc entries.
HostLayout probe_host_layout();

// An image (its layer directories, top first) whose /etc is a symlink or a file is refused:
// paddock writes the sandbox's /etc there, and reading or writing through an image's symlink
// would reach the host's files.
core::Status check_image_etc(const std::vector<std::string>& layers);

// The layout of a flattened image at `root`, minus what the sandbox makes itself (/etc's
// identity files, /dev, /proc, /tmp and the top of the work directory).
HostLayout probe_flattened_image(const std::string& root, const std::string& workdir);

// The host's /etc entries every sandbox sees, read-only, when they exist: what programs need to
// find libraries, certificates, time zones and Debian's alternatives, and nothing with secrets.
const std::vector<std::string>& host_etc_allowlist();

// One more host /etc entry (a run's SandboxShape::host_etc), when it exists and may be read.
std::optional<HostLayout::Entry> probe_host_etc(const std::string& name);

// The entries of `names` that exist and `base` does not have already, in order.
std::vector<HostLayout::Entry> probe_extra_etc(const HostLayout& base,
                                               const std::vector<std::string>& names);

}  // namespace paddock::init
