# Writes OUT, a header defining BRINK_COMMIT (the source tree's git commit,
# "+" when it has changes not committed), only when it changed, so that a
# build after a commit names the new one and a build without one recompiles
# nothing. Outside a git checkout (a source package) BRINK_COMMIT is the
# COMMIT given to cmake, or "unknown".
# Usage: cmake -DSRC=dir -DOUT=file [-DCOMMIT=text] -P Commit.cmake
set(commit "${COMMIT}")
if(commit STREQUAL "")
    execute_process(COMMAND git -C "${SRC}" rev-parse --short=12 HEAD
        OUTPUT_VARIABLE commit OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET RESULT_VARIABLE rc)
    if(NOT rc EQUAL 0 OR commit STREQUAL "")
        set(commit "unknown")
    else()
        execute_process(COMMAND git -C "${SRC}" diff --quiet HEAD
            RESULT_VARIABLE dirty ERROR_QUIET)
        if(NOT dirty EQUAL 0)
            string(APPEND commit "+")
        endif()
    endif()
endif()
set(text "#define BRINK_COMMIT \"${commit}\"\n")
if(EXISTS "${OUT}")
    file(READ "${OUT}" old)
endif()
if(NOT old STREQUAL text)
    file(WRITE "${OUT}" "${text}")
endif()
