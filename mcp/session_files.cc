#include "session_files.h"

#include "content.h"
#include "native/artifacts.h"

namespace paddock::mcp {
namespace {

constexpr std::string_view kPrefix = "sandbox://sessions/";
constexpr std::string_view kFiles = "/files/";

}  // namespace

std::string session_file_uri(const std::string& session_id, const std::string& path) {
  return std::string(kPrefix) + session_id + std::string(kFiles) + path;
}

std::optional<SessionFileRef> parse_session_file_uri(const std::string& uri) {
  if (!uri.starts_with(kPrefix)) return std::nullopt;
  std::string rest = uri.substr(kPrefix.size());
  auto files = rest.find(kFiles);
  if (files == std::string::npos || files == 0) return std::nullopt;
  return SessionFileRef{rest.substr(0, files), rest.substr(files + kFiles.size())};
}

json file_content_block(const std::string& session_id, const std::string& path,
                        const FileContent& file, std::string* delivery) {
  std::string mime = mime_type_for(path);
  std::string uri = session_file_uri(session_id, path);
  if (file.size > file.data.size()) {
    *delivery = "resource_link";
    return resource_link_block(uri, path.substr(path.rfind('/') + 1), mime, file.size);
  }
  if (is_displayable_image(mime)) {
    *delivery = "image";
    return image_block(file.data, mime);
  }
  if (looks_like_text(file.data)) {
    *delivery = "text";
    return text_block(file.data);
  }
  *delivery = "resource";
  return blob_resource_block(uri, file.data, mime);
}

}  // namespace paddock::mcp
