#include "runtime/container/tar_reader.h"

#include <archive.h>
#include <archive_entry.h>

#include <filesystem>
#include <map>
#include <memory>

#include "core/mime_types.h"
#include "runtime/artifact_choice.h"
#include "runtime/session.h"

namespace paddock::container {
namespace {

struct ArchiveDeleter {
  void operator()(archive* a) const { archive_read_free(a); }
};

std::optional<std::size_t> directory_of(const std::string& name,
                                        const runtime::OutputCollection& collection) {
  for (std::size_t i = 0; i < collection.directories.size(); ++i) {
    std::string inside =
        std::filesystem::path(collection.directories[i]).lexically_normal().generic_string();
    if (!inside.ends_with('/')) inside += '/';
    if (name.starts_with(inside)) return i;
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> artifact_name(const std::string& entry_name,
                                         const runtime::OutputCollection& collection) {
  std::string name = std::filesystem::path(entry_name).lexically_normal().generic_string();
  if (name.ends_with('/')) return std::nullopt;  // a directory, however it is typed
  if (!runtime::check_session_path(name).ok()) return std::nullopt;  // absolute, "..", NUL
  if (!directory_of(name, collection)) return std::nullopt;
  return name;
}

namespace {

using Archive = std::unique_ptr<archive, ArchiveDeleter>;

Archive open_tar(std::string_view tar) {
  Archive in(archive_read_new());
  archive_read_support_format_tar(in.get());
  if (archive_read_open_memory(in.get(), tar.data(), tar.size()) != ARCHIVE_OK) in.reset();
  return in;
}

}  // namespace

TarArtifacts artifacts_from_tar(std::string_view tar, const runtime::OutputCollection& collection) {
  // Two passes: the headers say which files there are and when each was made; the files are
  // read, in that order, only once the caps have chosen.
  TarArtifacts found;
  std::vector<runtime::ArtifactCandidate> candidates;
  Archive in = open_tar(tar);
  archive_entry* entry = nullptr;
  while (in && archive_read_next_header(in.get(), &entry) == ARCHIVE_OK) {
    if (archive_entry_filetype(entry) != AE_IFREG) continue;  // directories, links: not outputs
    const char* entry_name = archive_entry_pathname(entry);
    auto name = artifact_name(entry_name ? entry_name : "", collection);
    if (!name) continue;
    candidates.push_back({*name, *directory_of(*name, collection),
                          static_cast<std::int64_t>(archive_entry_mtime(entry)) * 1000000000 +
                              archive_entry_mtime_nsec(entry),
                          static_cast<std::uint64_t>(archive_entry_size(entry))});
  }
  runtime::ArtifactChoice choice = runtime::choose_artifacts(std::move(candidates), collection);
  found.omitted = std::move(choice.omitted);
  std::map<std::string, std::size_t> wanted;  // path -> its place in the order
  for (std::size_t i = 0; i < choice.taken.size(); ++i) wanted[choice.taken[i].path] = i;
  std::vector<std::optional<runtime::Artifact>> read(choice.taken.size());
  in = open_tar(tar);
  while (in && archive_read_next_header(in.get(), &entry) == ARCHIVE_OK) {
    if (archive_entry_filetype(entry) != AE_IFREG) continue;
    const char* entry_name = archive_entry_pathname(entry);
    auto name = artifact_name(entry_name ? entry_name : "", collection);
    auto place = name ? wanted.find(*name) : wanted.end();
    if (place == wanted.end() || read[place->second]) continue;
    auto size = static_cast<std::uint64_t>(archive_entry_size(entry));
    runtime::Artifact artifact{*name, "", size, std::string(size, '\0'), {}};
    la_ssize_t got = archive_read_data(in.get(), artifact.data.data(), artifact.data.size());
    if (got < 0 || static_cast<std::uint64_t>(got) != size) {
      found.omitted.push_back({*name, size, "cut short in transfer"});
      break;  // a tar cut short by the output cap
    }
    // Labelled after reading: a file with no known extension is text/plain if it reads as text.
    artifact.mime_type = core::mime_type_for(*name, artifact.data);
    read[place->second] = std::move(artifact);
  }
  for (auto& artifact : read) {
    if (artifact) found.artifacts.push_back(std::move(*artifact));
  }
  return found;
}

}  // namespace paddock::container
