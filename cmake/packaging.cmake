# What `cmake --install` lays out and the Debian package holds (cmake --build build --target
# package; docs/packaging.md):
#   PREFIX/bin/paddock                         the command
#   PREFIX/lib/paddock/paddock-full, -init     found from paddock (core/companion_program.h)
#   PREFIX/share/paddock/policies/             the built-in language policies, as reference (they
#                                              are compiled in; copies under
#                                              ~/.config/paddock/policies override them)
#   PREFIX/share/paddock/apparmor/paddock      the userns profile (packaging/debian/postinst)
#   PREFIX/share/doc/paddock/                  README and docs/
#   PREFIX/share/man/man1/paddock.1.gz         made from `paddock --help` by help2man
include(GNUInstallDirs)

install(TARGETS paddock RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(TARGETS paddock-full paddock-init RUNTIME DESTINATION ${PADDOCK_PRIVATE_DIR})
install(DIRECTORY ${PADDOCK_POLICY_DIR}/ DESTINATION ${CMAKE_INSTALL_DATADIR}/paddock/policies
        FILES_MATCHING PATTERN "*.json" PATTERN "*.py" PATTERN "*.R")
install(FILES ${PROJECT_SOURCE_DIR}/packaging/apparmor/paddock
        DESTINATION ${CMAKE_INSTALL_DATADIR}/paddock/apparmor)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The man page, from the built paddock's --help and --version. help2man reads CLI11's
# "Options:" and "Subcommands:" sections as it does GNU --help output.
find_program(PADDOCK_HELP2MAN help2man)
if(PADDOCK_HELP2MAN)
  set(man_page ${CMAKE_BINARY_DIR}/paddock.1.gz)
  add_custom_command(
    OUTPUT ${man_page}
    COMMAND ${PADDOCK_HELP2MAN} --no-info --no-discard-stderr
            --name "a rootless, daemonless sandbox for running untrusted code"
            --include ${PROJECT_SOURCE_DIR}/packaging/paddock.h2m
            --output ${CMAKE_BINARY_DIR}/paddock.1 $<TARGET_FILE:paddock>
    COMMAND gzip -9nf ${CMAKE_BINARY_DIR}/paddock.1
    DEPENDS paddock ${PROJECT_SOURCE_DIR}/packaging/paddock.h2m
    COMMENT "Writing the man page from paddock --help" VERBATIM)
  add_custom_target(paddock_man_page ALL DEPENDS ${man_page})
  install(FILES ${man_page} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man page (the Debian package needs one: apt-get "
                 "install help2man)")
endif()

# The Debian package.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME paddock)
set(CPACK_PACKAGE_VENDOR "Paddock")
set(CPACK_PACKAGE_CONTACT "Paddock maintainers <paddock@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "rootless, daemonless sandbox for running untrusted code")
# The long description. CPack puts CPACK_PACKAGE_DESCRIPTION_SUMMARY before it as the synopsis
# line, so it starts after that and says what the synopsis does not; each line gets its leading
# space from CPack, and an empty line becomes the " ." between paragraphs.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "Each run gets its own user, mount, PID, network, IPC and UTS namespaces, a
cgroup with memory, CPU and process limits, a seccomp filter and no
capabilities, over a read-only view of the host's /usr. It is meant for code
written by language models: policies for Python, JavaScript, Java, C, C++, Go,
R, Ruby and Bash install libraries through a filtering proxy, capture plots and
screen the code, and `paddock mcp` serves it all to AI assistants over MCP,
with sessions and files. It also runs OCI images, drives Docker, Podman or
Kubernetes, and sandboxes other MCP servers (`paddock wrap`).

The languages and their data libraries come from Debian: the paddock-languages
package, built beside this one, brings them all.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # paddock_VERSION_ARCH.deb
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
# Stripped in the package, with the debug info kept apart: CPackDeb copies each binary's debug
# info into paddock-dbgsym_VERSION_ARCH.ddeb beside the .deb (under /usr/lib/debug/.build-id/,
# where gdb finds it) and then strips the binary itself (objcopy --strip-unneeded, plus a
# debuglink). CPACK_STRIP_FILES stays off: it would strip before CPackDeb could copy anything.
# The build folder's binaries are untouched and keep their line tables (-g1) for backtraces.
set(CPACK_STRIP_FILES OFF)
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
# What the linked libraries need, as dpkg-shlibdeps finds it from the binaries (libarchive,
# libssl, libc for paddock-full; paddock and paddock-init are static), and libcurl, which
# paddock loads with dlopen on first use (http/curl_library.h), so no tool can see it.
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DEPENDS "libcurl4")
# What some features use, each optional, and small (docs/packaging.md has the sizes):
# newuidmap/newgidmap (an unprivileged user's full uid range), pasta (rootless networking), and
# python, the default language. Everything else is paddock-languages' (below): the other
# languages, the data libraries, and the Jupyter kernels of live sessions, without which a session
# says `live: false` and runs one process per call. As Recommends they brought in 1,172 packages
# (3.5 GB) with a plain `apt install`; python3-ipykernel alone brings about 1 GB through its own
# Recommends.
string(JOIN ", " CPACK_DEBIAN_PACKAGE_RECOMMENDS uidmap passt python3)
string(JOIN ", " CPACK_DEBIAN_PACKAGE_SUGGESTS
       paddock-languages python3-ipykernel python3-jupyter-client)

# paddock-languages: a package with no files that depends on the languages of the built-in
# policies, their data libraries and the Jupyter kernels (packaging/language-packages, the list
# scripts/setup installs, plus npm, which scripts/setup leaves to NodeSource's nodejs where that
# is installed; NodeSource's package provides npm). Made by dpkg-deb after cpack's own package
# (packaging/language-package.cmake), into the same folder.
file(STRINGS ${PROJECT_SOURCE_DIR}/packaging/language-packages language_lines)
set(language_packages "")
foreach(line IN LISTS language_lines)
  string(REGEX REPLACE "#.*" "" line "${line}")
  string(REGEX MATCHALL "[^ \t]+" words "${line}")
  list(APPEND language_packages ${words})
endforeach()
list(APPEND language_packages npm)
list(JOIN language_packages ", " CPACK_PADDOCK_LANGUAGES_DEPENDS)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS
             ${PROJECT_SOURCE_DIR}/packaging/language-packages)
set(CPACK_POST_BUILD_SCRIPTS ${PROJECT_SOURCE_DIR}/packaging/language-package.cmake)
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PROJECT_SOURCE_DIR}/packaging/debian/postinst
                                       ${PROJECT_SOURCE_DIR}/packaging/debian/postrm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
include(CPack)
