// `paddock-images`: `paddock import` and `paddock pull`, which `paddock` hands over to it.

#include "cli/command_line.h"
#include "cli/image_command.h"
#include "cli/output.h"

int main(int argc, char** argv) {
  using namespace paddock::cli;
  auto request = parse_command_line(argc, argv);
  if (!request) return fail(request.error().message);
  auto* image = std::get_if<ImageRequest>(&*request);
  if (image == nullptr || (image->action != "import" && image->action != "pull")) {
    return fail("paddock-images only imports and pulls images; use paddock for everything else");
  }
  return image_transfer_command(*image);
}
