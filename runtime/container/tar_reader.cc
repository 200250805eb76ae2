#include "runtime/container/tar_reader.h"

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <memory>

#include "core/mime_types.h"
#include "runtime/session.h"

namespace paddock::engine {
namespace {

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

}  // namespace

std::optional<std::string> artifact_name(const std::string& entry_name,
                                         const OutputCollection& collection) {
  std::string name = std::filesystem::path(entry_name).lexically_normal().generic_string();
  if (name.ends_with('/')) return std::nullopt;             // a directory, however it is typed
  if (!check_session_path(name).ok()) return std::nullopt;  // absolute, "..", NUL
  for (const auto& directory : collection.directories) {
    std::string inside = std::filesystem::path(directory).lexically_normal().generic_string();
    if (!inside.ends_with('/')) inside += '/';
    if (name.starts_with(inside)) return name;
  }
  return std::nullopt;
}

std::vector<Artifact> artifacts_from_tar(std::string_view tar, const OutputCollection& collection,
                                         bool* truncated) {
  std::vector<Artifact> artifacts;
  *truncated = false;
  std::unique_ptr<archive, ArchiveDeleter> in(archive_read_new());
  archive_read_support_format_tar(in.get());
  if (archive_read_open_memory(in.get(), tar.data(), tar.size()) != ARCHIVE_OK) return artifacts;
  std::uint64_t bytes = 0;
  archive_entry* entry = nullptr;
  while (archive_read_next_header(in.get(), &entry) == ARCHIVE_OK) {
    if (archive_entry_filetype(entry) != AE_IFREG) continue;  // directories, links: not outputs
    const char* entry_name = archive_entry_pathname(entry);
    auto name = artifact_name(entry_name ? entry_name : "", collection);
    if (!name) continue;
    const std::string& path = *name;
    auto size = static_cast<std::uint64_t>(archive_entry_size(entry));
    if (artifacts.size() >= collection.max_files || bytes + size > collection.max_bytes) {
      *truncated = true;
      continue;
    }
    Artifact artifact{path, "", size, std::string(size, '\0'), {}};
    la_ssize_t got = archive_read_data(in.get(), artifact.data.data(), artifact.data.size());
    if (got < 0 || static_cast<std::uint64_t>(got) != size) {
      *truncated = true;
      break;  // a tar cut short by the output cap
    }
    // Labelled after reading: a file with no known extension is text/plain if it reads as text.
    artifact.mime_type = mime_type_for(path, artifact.data);
    bytes += size;
    artifacts.push_back(std::move(artifact));
  }
  return artifacts;
}

}  // namespace paddock::engine
