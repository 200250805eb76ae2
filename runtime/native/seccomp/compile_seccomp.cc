// Build-time tool: compiles a seccomp profile (Docker's JSON format) for this machine's
// architecture and writes it as C++ source defining paddock::seccomp::FUNCTION() and
// FUNCTION_quiet_refusals(), declared in HEADER.
//
//   compile_seccomp PROFILE.json OUTPUT.cc HEADER FUNCTION

#include <cstdio>
#include <fstream>
#include <iostream>

#include "runtime/native/seccomp/seccomp_filter.h"
#include "runtime/native/seccomp/seccomp_profile.h"

int main(int argc, char** argv) {
  if (argc != 5) {
    std::cerr << "usage: compile_seccomp PROFILE.json OUTPUT.cc HEADER FUNCTION\n";
    return 2;
  }
  auto profile = paddock::seccomp::load_profile_file(argv[1]);
  if (!profile) {
    std::cerr << "compile_seccomp: " << profile.error().message << "\n";
    return 1;
  }
  auto program = paddock::seccomp::compile(*profile);
  if (!program) {
    std::cerr << "compile_seccomp: " << program.error().message << "\n";
    return 1;
  }
  std::ofstream out(argv[2]);
  out << "// Generated at build time from " << argv[1] << "; do not edit.\n"
      << "#include \"" << argv[3] << "\"\n\n"
      << "namespace paddock::seccomp {\nnamespace {\n\n"
      << "const sock_filter kProgram[] = {\n";
  for (const sock_filter& insn : program->instructions) {
    out << "    {" << insn.code << ", " << static_cast<unsigned>(insn.jt) << ", "
        << static_cast<unsigned>(insn.jf) << ", " << insn.k << "u},\n";
  }
  // The profile's quiet refusals beside it, so that a run need not read the profile's text.
  out << "};\n\nconst char* const kQuiet[] = {";
  for (const auto& name : program->quiet_refusals) out << "\"" << name << "\", ";
  out << "nullptr};\n\n}  // namespace\n\n"
      << "std::span<const sock_filter> " << argv[4] << "() { return kProgram; }\n\n"
      << "std::span<const char* const> " << argv[4] << "_quiet_refusals() {\n"
      << "  return {kQuiet, " << program->quiet_refusals.size() << "};\n}\n\n"
      << "}  // namespace paddock::seccomp\n";
  return out ? 0 : 1;
}
