# CPack's post-build script (cmake/packaging.cmake): writes paddock-languages_VERSION_all.deb beside
# the paddock package it has just made. A package with no files: its control file depends on
# paddock and on the languages (CPACK_PADDOCK_LANGUAGES_DEPENDS, from
# packaging/language-packages), so that `apt install ./paddock-languages_*.deb` brings them.
# CPACK_PACKAGE_FILES are still in CPack's staging folder here; they are copied to
# CPACK_PACKAGE_DIRECTORY (the build folder, or cpack -B) after this script.
set(out_dir ${CPACK_PACKAGE_DIRECTORY})
set(root ${CPACK_TOPLEVEL_DIRECTORY}/paddock-languages)
file(REMOVE_RECURSE ${root})
file(MAKE_DIRECTORY ${root}/DEBIAN)
file(WRITE ${root}/DEBIAN/control
"Package: paddock-languages
Version: ${CPACK_PACKAGE_VERSION}
Architecture: all
Maintainer: ${CPACK_PACKAGE_CONTACT}
Section: metapackages
Priority: optional
Depends: paddock (>= ${CPACK_PACKAGE_VERSION}), ${CPACK_PADDOCK_LANGUAGES_DEPENDS}
Description: languages and data libraries for paddock's built-in policies
 Installs what paddock's built-in language policies run from the host's /usr:
 Python, Node.js with npm, Java, C and C++, Go, R, Ruby and Bash, with pip; the
 data libraries a model's code usually imports (numpy, pandas, matplotlib,
 scipy, scikit-learn and more for Python; ggplot2, dplyr, tidyr and gridExtra
 for R); and the Jupyter kernels of live Python and R sessions.
")
set(languages_deb ${out_dir}/paddock-languages_${CPACK_PACKAGE_VERSION}_all.deb)
execute_process(COMMAND dpkg-deb --root-owner-group --build ${root} ${languages_deb}
                RESULT_VARIABLE status OUTPUT_QUIET)
if(NOT status EQUAL 0)
  message(FATAL_ERROR "dpkg-deb could not make ${languages_deb}")
endif()
message(STATUS "- package: ${languages_deb} generated.")
