// read_file: a file from a session's work directory, as the content type that suits it, and
// never more than a tool result's text cap of it: a long text comes in byte ranges, each saying
// where the next starts; a large binary file is pointed to, in words, not inlined.

#include "core/mime_types.h"
#include "core/text.h"
#include "mcp/content.h"
#include "mcp/result_text.h"
#include "mcp/session_files.h"
#include "mcp/tools/tool_schema.h"
#include "mcp/tools/tools.h"

namespace paddock::mcp {
namespace {

// Text per call: under the result's 64 KiB with room for the line that says what is left.
constexpr std::uint64_t kReadLength = 60u << 10;
// A binary file inline as base64 (4/3 of it) stays within 64 KiB too.
constexpr std::uint64_t kEmbeddedBinaryBytes = 48u << 10;
// How far a range may move back to show a passed-through value whole (masked), not in part.
constexpr int kMaskSteps = 4;

bool continues_character(char byte) {
  return (static_cast<unsigned char>(byte) & 0xC0) == 0x80;
}

std::string bytes_text(std::uint64_t bytes) {
  return core::counted(bytes, "byte", "bytes");
}

// A binary file too large to inline: said in words (many clients show no link), and linked.
ToolResult binary_pointer(const std::string& id, const std::string& path, std::uint64_t size,
                          const std::string& mime, std::uint64_t offset) {
  ToolResult result;
  std::string where = offset > 0 ? " at byte " + std::to_string(offset) : "";
  result.content.push_back(text_block(
      path + " is not text" + where + " (" + mime + ", " + bytes_text(size) +
      "), and only binary files up to " + bytes_text(kEmbeddedBinaryBytes) +
      " are shown inline: download_file copies it to the host, and code run by execute_code "
      "can read it in the session"));
  result.content.push_back(resource_link_block(session_file_uri(id, path),
                                               path.substr(path.rfind('/') + 1), mime, size));
  result.structured = {
      {"path", path}, {"size", size}, {"mime_type", mime}, {"delivery", "resource_link"}};
  return result;
}

// Bytes [offset, offset + length) of a text file, moved to whole characters, masked, and a line
// saying what else the file holds and how to read it.
ToolResult read_text(ToolContext& context, runtime::Session& session, const std::string& id,
                     const std::string& path, std::uint64_t offset, std::uint64_t length) {
  const app::SecretMask& secrets = context.services.secrets;
  std::uint64_t start = offset;
  for (int step = 0; step < kMaskSteps; ++step) {
    std::uint64_t before =
        std::min<std::uint64_t>(start, secrets.empty() ? 0 : secrets.longest() - 1);
    // Three bytes more than asked: the range's last character is then seen whole or cut off.
    auto file = session.read_file(path, before + length + 3, start - before);
    if (!file) return tool_error(file.error());
    if (offset > 0 && offset >= file->size) {
      return tool_error("offset " + std::to_string(offset) + " is past the end of " + path +
                        ", which has " + bytes_text(file->size) + "; offset 0 reads its start");
    }
    std::string_view data = file->data;
    // A range that starts inside a character starts at the next one.
    std::size_t skip = 0;
    while (skip < 3 && before + skip < data.size() && continues_character(data[before + skip])) {
      ++skip;
    }
    std::string_view ahead = data.substr(0, before + skip);
    std::string_view window = data.substr(before + skip);
    std::uint64_t first = start + skip;
    window = window.substr(0, utf8_prefix(window, length));
    std::uint64_t end = first + window.size();
    bool more = end < file->size;
    std::string mime = core::mime_type_for(path, window, more);
    if (!core::looks_like_text(window, more))
      return binary_pointer(id, path, file->size, mime, first);
    auto shown = app::client_text_window(secrets, ahead, std::string(window), more);
    if (!shown) {
      start -= before;  // a value runs across the start: begin where it does
      continue;
    }
    ToolResult result;
    result.structured = {
        {"path", path}, {"size", file->size}, {"mime_type", mime}, {"delivery", "text"}};
    if (first > 0 || more) {
      // Always on a line of its own after a line break of its own, so the part is the text
      // before that break, byte for byte.
      std::string& text = *shown;
      text += "\n[" + path + ": bytes " + std::to_string(first) + " to " + std::to_string(end) +
              " of " + std::to_string(file->size) + " shown";
      if (more) {
        text += "; " + bytes_text(file->size - end) + " more: read_file with offset " +
                std::to_string(end) + " reads on";
      }
      text += "; download_file copies the whole file to the host]";
      result.structured["offset"] = first;
      if (more) result.structured["next_offset"] = end;
    }
    result.content.push_back(text_block(std::move(*shown)));
    // The whole file for clients that follow links (paddock's python client does).
    if (first > 0 || more) {
      result.content.push_back(resource_link_block(
          session_file_uri(id, path), path.substr(path.rfind('/') + 1), mime, file->size));
    }
    return result;
  }
  return tool_error("bytes before offset " + std::to_string(offset) + " of " + path +
                    " hold passed-through values back to back; read from offset 0 instead");
}

class ReadFile final : public Tool {
 public:
  std::string name() const override { return "read_file"; }
  json definition() const override {
    return {{"name", name()},
            {"title", "Read a file from a session"},
            {"description",
             "Reads a file of a session's /work: text up to 61440 bytes a call (offset reads on), "
             "images up to 1 MiB, other files as a link."},
            {"inputSchema",
             {{"type", "object"},
              {"properties",
               {{"session_id", session_id_property()},
                {"path", path_property("Relative to /work.")},
                {"offset", {{"type", "integer"}, {"minimum", 0}, {"description", "Start byte."}}},
                {"length", {{"type", "integer"}, {"minimum", 1}, {"maximum", kReadLength}}}}},
              {"required", {"session_id", "path"}},
              {"additionalProperties", false}}},
            {"outputSchema",
             {{"type", "object"},
              {"properties",
               {{"path", {{"type", "string"}}},
                {"size", {{"type", "integer"}}},
                {"mime_type", {{"type", "string"}}},
                {"delivery",
                 {{"type", "string"}, {"enum", {"text", "image", "resource", "resource_link"}}}},
                {"offset", {{"type", "integer"}}},
                {"next_offset", {{"type", "integer"}}}}},
              {"required", {"path", "size", "mime_type", "delivery"}}}},
            {"annotations", annotations("Read a file", true, true)}};
  }
  ToolResult call(const json& arguments, ToolContext& context) override {
    std::string id = arguments["session_id"].get<std::string>();
    auto lease = context.services.registry.acquire(id);
    if (!lease) return tool_error(lease.error());
    std::string path = arguments["path"].get<std::string>();
    auto offset = arguments.value("offset", std::uint64_t{0});
    auto length = std::min(arguments.value("length", kReadLength), kReadLength);
    runtime::Session& session = (*lease)->session();
    if (offset > 0) return read_text(context, session, id, path, offset, length);
    auto file = session.read_file(path, kInlineFileBytes);
    if (!file) return tool_error(file.error());
    bool cut = file->data.size() < file->size;
    std::string mime = core::mime_type_for(path, file->data, cut);
    bool image = is_displayable_image(mime);
    if (!image && core::looks_like_text(file->data, cut)) {
      return read_text(context, session, id, path, 0, length);
    }
    if (cut || (!image && file->size > kEmbeddedBinaryBytes)) {
      return binary_pointer(id, path, file->size, mime, 0);
    }
    // A program may have written a passed-through secret to a file: it is masked here too.
    auto shown = app::client_view(context.services.secrets, std::move(file->data), cut);
    if (!shown) return tool_error(path + " " + std::string(app::kWithheld));
    file->data = std::move(*shown);
    std::string delivery;
    ToolResult result;
    result.content.push_back(file_content_block(id, path, *file, cut, &delivery));
    result.structured = {
        {"path", path}, {"size", file->size}, {"mime_type", mime}, {"delivery", delivery}};
    return result;
  }
};

}  // namespace

std::unique_ptr<Tool> make_read_file() {
  return std::make_unique<ReadFile>();
}

}  // namespace paddock::mcp
