# The project's warnings for every target; -Werror when WERROR is on.
add_compile_options(-Wall -Wextra -Wpedantic -Wshadow -Wstrict-prototypes
    -Wmissing-prototypes -Wformat=2 -Wformat-security)
if(WERROR)
    add_compile_options(-Werror)
endif()
if(CMAKE_BUILD_TYPE STREQUAL "Release")
    add_compile_options(-fstack-protector-strong)
    add_compile_definitions(_FORTIFY_SOURCE=3)
endif()
