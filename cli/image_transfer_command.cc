#include <unistd.h>

#include <cstdlib>

#include "cli/host_paths.h"
#include "cli/image_command.h"
#include "cli/output.h"
#include "core/files.h"
#include "rootfs/image_import.h"
#include "rootfs/image_pull.h"
#include "rootfs/image_reference.h"
#include "rootfs/image_store.h"

namespace paddock::cli {

int image_transfer_command(const ImageRequest& request) {
  auto store = rootfs::ImageStore::open(
      request.root.value_or(default_store_root(config::process_environment())));
  if (!store) return fail(store.error().message);
  if (request.action == "import") {
    rootfs::ImportOptions options{request.tag, request.platform};
    auto imported = rootfs::import_images(*store, request.arguments.at(0), options);
    if (!imported) return fail(imported.error().message);
    for (const auto& record : *imported) {
      core::write_all(STDOUT_FILENO, record.reference + " " + record.manifest_digest + "\n");
    }
    return 0;
  }
  {
    auto reference = rootfs::parse_image_reference(request.arguments.at(0));
    if (!reference) return fail(reference.error().message);
    rootfs::PullOptions options;
    options.registry_config = registry_config(config::process_environment());
    options.platform = request.platform;
    options.insecure = request.insecure;
    options.creds = request.creds;
    if (const char* from_env = std::getenv("PADDOCK_REGISTRY_CREDS");
        from_env != nullptr && !request.creds && !request.creds_file) {
      options.creds = from_env;
    }
    if (request.creds_file) {
      auto text = core::read_text_file(*request.creds_file, "the --creds-file");
      if (!text) return fail(text.error().message);
      while (!text->empty() && (text->back() == '\n' || text->back() == '\r')) text->pop_back();
      options.creds = std::move(*text);
    }
    auto pulled = rootfs::pull_image(*store, *reference, options);
    if (!pulled) return fail(pulled.error().message);
    core::write_all(STDOUT_FILENO, pulled->reference + " " + pulled->manifest_digest + "\n");
    return 0;
  }
}

}  // namespace paddock::cli
