# What `cmake --install` (and `make install`, `make deb`) puts where, in the
# usual places under CMAKE_INSTALL_PREFIX: the binary, the man pages and
# completions written by brink-gendoc, the example experiments. And the
# Debian package (CPack DEB), whose dependencies dpkg-shlibdeps reads off
# the binary, so that `apt install ./brink_*.deb` pulls them.
include(GNUInstallDirs)

# zsh looks in site-functions under /usr/local; Debian's zsh looks in
# vendor-completions under /usr (a package's place). Decided when
# installing, by the prefix installed into, so that one build tree serves
# make install PREFIX=... and make deb (CPack installs the release build
# into a staging folder's usr/).
set(BRINK_ZSH_DIR "" CACHE STRING "where the zsh completion goes (empty: by the prefix)")

install(TARGETS brink RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(FILES ${BRINK_DOC_DIR}/brink.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
install(FILES ${BRINK_DOC_DIR}/brink-config.5 DESTINATION ${CMAKE_INSTALL_MANDIR}/man5)
install(FILES ${BRINK_DOC_DIR}/brink.bash DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions
        RENAME brink)
if(BRINK_ZSH_DIR)
    install(FILES ${BRINK_DOC_DIR}/_brink DESTINATION ${BRINK_ZSH_DIR})
else()
    install(CODE "
        set(brink_zsh_dir site-functions)
        if(CMAKE_INSTALL_PREFIX MATCHES \"(^|/)usr/?$\")
            set(brink_zsh_dir vendor-completions)
        endif()
        file(INSTALL DESTINATION \"\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_DATADIR}/zsh/\${brink_zsh_dir}\"
             TYPE FILE FILES \"${BRINK_DOC_DIR}/_brink\")")
endif()
install(DIRECTORY config/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples FILES_MATCHING PATTERN "*.ini")
install(FILES README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME brink)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "${PROJECT_DESCRIPTION}")
set(CPACK_PACKAGE_CONTACT "brink maintainers <brink@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION net)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION
    "brink loads an HTTP server, shows throughput, latency, errors and the\nserver's own counters live in the terminal, and records every session\nfor replay, reports and comparisons.")
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_DIRECTORY ${CMAKE_BINARY_DIR}/package)
include(CPack)
