# One static library per module. The table below is the module layering:
# a module may link only the libraries listed for it, so a stray dependency
# (curses in the engine, libuv in the UI) stops the configure step.
set(BRINK_ALLOWED_core    Threads::Threads m)
set(BRINK_ALLOWED_cli     brink_core)
set(BRINK_ALLOWED_config  brink_core PkgConfig::INIH)
set(BRINK_ALLOWED_ramp    brink_core brink_config m)
set(BRINK_ALLOWED_engine  brink_core brink_config brink_ramp brink_script PkgConfig::UV CURL::libcurl HttpParser::HttpParser
                          PkgConfig::OPENSSL PkgConfig::NGHTTP2)
set(BRINK_ALLOWED_probes  brink_core brink_config PkgConfig::UV CURL::libcurl PkgConfig::JANSSON)
set(BRINK_ALLOWED_ui      brink_core PkgConfig::NCURSESW)
set(BRINK_ALLOWED_record  brink_core PkgConfig::JANSSON)
set(BRINK_ALLOWED_report  brink_core brink_record ZLIB::ZLIB)
set(BRINK_ALLOWED_metrics brink_core PkgConfig::MHD Threads::Threads m)
set(BRINK_ALLOWED_script  brink_core brink_config PkgConfig::LUA PkgConfig::JANSSON OpenSSL::Crypto)
set(BRINK_ALLOWED_target  brink_core brink_cli PkgConfig::MHD PkgConfig::UV PkgConfig::JANSSON OpenSSL::Crypto PkgConfig::GNUTLS
                          PkgConfig::NGHTTP2)
# brink agent and the coordinator of brink run --agents: the engine and the
# probes run for a coordinator, their ticks on the wire (record). Never the
# commands (the executable) nor a terminal.
set(BRINK_ALLOWED_agents  brink_core brink_cli brink_config brink_ramp brink_engine brink_probes brink_record)

# Checks that module name may link every library in deps (the table above).
function(brink_module_check name)
    if(NOT DEFINED BRINK_ALLOWED_${name})
        message(FATAL_ERROR "brink_module: unknown module \"${name}\" (add it to cmake/Modules.cmake)")
    endif()
    foreach(dep IN LISTS ARGN)
        if(NOT dep IN_LIST BRINK_ALLOWED_${name})
            message(FATAL_ERROR "brink_module: ${name} may not link ${dep} (allowed: ${BRINK_ALLOWED_${name}})")
        endif()
    endforeach()
endfunction()

# brink_module_part(NAME PART SOURCES file... DEPS lib...)
# Creates the object library brink_NAME_PART: a part of module NAME that a
# test may link without the rest of it (the engine's transports against a
# fake engine). The module's layering rule holds for it; brink_module's
# PARTS puts its objects in the module's library, compiled once.
function(brink_module_part name part)
    cmake_parse_arguments(M "" "" "SOURCES;DEPS" ${ARGN})
    brink_module_check(${name} ${M_DEPS})
    add_library(brink_${name}_${part} OBJECT ${M_SOURCES})
    target_include_directories(brink_${name}_${part} PUBLIC ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(brink_${name}_${part} PUBLIC ${M_DEPS})
endfunction()

# brink_module(NAME SOURCES file... DEPS lib... [PARTS part...])
# Creates the static library brink_NAME from src/NAME, public include root
# src/, with the objects of its PARTS (brink_module_part) in it.
function(brink_module name)
    cmake_parse_arguments(M "" "" "SOURCES;DEPS;PARTS" ${ARGN})
    brink_module_check(${name} ${M_DEPS})
    add_library(brink_${name} STATIC ${M_SOURCES})
    target_include_directories(brink_${name} PUBLIC ${PROJECT_SOURCE_DIR}/src)
    target_link_libraries(brink_${name} PUBLIC ${M_DEPS})
    foreach(part IN LISTS M_PARTS)
        target_sources(brink_${name} PRIVATE $<TARGET_OBJECTS:brink_${name}_${part}>)
    endforeach()
endfunction()
