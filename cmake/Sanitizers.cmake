# -DSANITIZE=address,undefined or -DSANITIZE=thread. The fuzz build adds
# libFuzzer's coverage hooks to every library (the fuzz targets link the
# fuzzer runtime themselves, see tests/fuzz).
if(SANITIZE)
    if(SANITIZE MATCHES "thread" AND SANITIZE MATCHES "address")
        message(FATAL_ERROR "SANITIZE: thread cannot be combined with address (got \"${SANITIZE}\")")
    endif()
    add_compile_options(-fsanitize=${SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
    add_link_options(-fsanitize=${SANITIZE})
endif()
if(BRINK_FUZZ)
    if(NOT CMAKE_C_COMPILER_ID STREQUAL "Clang")
        message(FATAL_ERROR "BRINK_FUZZ needs clang (configure with CC=clang), got ${CMAKE_C_COMPILER_ID}")
    endif()
    add_compile_options(-fsanitize=fuzzer-no-link)
endif()
