# Helpers for toolchat's CMakeLists.txt. Nothing here sets a directory- or global-wide flag: every
# option reaches a target through one of the interface targets below, so a parent project that
# pulls toolchat in with add_subdirectory() keeps its own flags.

include(GNUInstallDirs)

# Warnings for toolchat's own targets, never -Werror (a newer compiler must not break a user's
# build). Linked PRIVATE: a consumer's code is not compiled with them.
add_library(toolchat_warnings INTERFACE)
target_compile_options(toolchat_warnings INTERFACE -Wall -Wextra)

# Sanitizer / fuzzer instrumentation. Every object of a sanitized program must be instrumented and
# the program linked with the runtime, so the layers pass these on (build tree only; an installed
# toolchat carries none of them).
add_library(toolchat_instrument INTERFACE)
if(TOOLCHAT_SANITIZE)
  set(_san -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_compile_options(toolchat_instrument INTERFACE ${_san})
  target_link_options(toolchat_instrument INTERFACE ${_san})
endif()
if(TOOLCHAT_TSAN)
  # ThreadSanitizer (make test-tsan): the whole program instrumented, as for ASan.
  set(_tsan -fsanitize=thread -fno-omit-frame-pointer)
  target_compile_options(toolchat_instrument INTERFACE ${_tsan})
  target_link_options(toolchat_instrument INTERFACE ${_tsan})
endif()
if(TOOLCHAT_FUZZ)
  if(NOT CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "TOOLCHAT_FUZZ needs clang (libFuzzer): configure with -DCMAKE_CXX_COMPILER=clang++")
  endif()
  # Instrument everything for coverage; only the fuzz_* executables link libFuzzer's main.
  target_compile_options(toolchat_instrument INTERFACE
    -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer)
  target_link_options(toolchat_instrument INTERFACE -fsanitize=address,undefined)
endif()

# What toolchat's own executables and tests get from ${TOOLCHAT_LIBS}: the internal headers (src/),
# the warnings, C++20 without extensions. Never installed or exported.
add_library(toolchat_internal INTERFACE)
target_include_directories(toolchat_internal INTERFACE ${PROJECT_SOURCE_DIR}/src)
target_link_libraries(toolchat_internal INTERFACE toolchat_warnings)

set(TOOLCHAT_LIBS toolchat_internal)   # in-tree executables link ${TOOLCHAT_LIBS}
set(TOOLCHAT_LAYERS)                   # the installed layers, in dependency order

# toolchat_glob(OUT [RECURSE] pattern...): files matching the patterns (relative to the project's
# source dir; with RECURSE, in subfolders too), re-checked at build time so that a file added
# later triggers a reconfigure.
function(toolchat_glob out)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "RECURSE" "" "")
  set(_patterns)
  foreach(_p IN LISTS ARG_UNPARSED_ARGUMENTS)
    list(APPEND _patterns "${PROJECT_SOURCE_DIR}/${_p}")
  endforeach()
  if(ARG_RECURSE)
    file(GLOB_RECURSE _files CONFIGURE_DEPENDS ${_patterns})
  else()
    file(GLOB _files CONFIGURE_DEPENDS ${_patterns})
  endif()
  list(SORT _files)
  set(${out} ${_files} PARENT_SCOPE)
endfunction()

# toolchat_target(TARGET): C++20 without extensions, the warnings and the instrumentation, for a
# target of toolchat's own.
function(toolchat_target tgt)
  target_compile_features(${tgt} PUBLIC cxx_std_20)
  set_target_properties(${tgt} PROPERTIES CXX_EXTENSIONS OFF)
  target_link_libraries(${tgt} PRIVATE $<BUILD_INTERFACE:toolchat_warnings>)
endfunction()

# toolchat_layer(NAME [DEPENDS dep...] [LINK lib...]): static library toolchat_NAME from
# src/NAME/**.cpp, alias toolchat::NAME, exported and installed as toolchat::NAME. Public
# headers: include/toolchat/; src/ is the layer's private include directory. LINK: further
# (external) libraries it uses. Skipped while src/NAME has no sources. Appends to TOOLCHAT_LIBS
# and TOOLCHAT_LAYERS in the caller's scope.
function(toolchat_layer name)
  cmake_parse_arguments(PARSE_ARGV 1 ARG "" "" "DEPENDS;LINK")
  toolchat_glob(_sources RECURSE src/${name}/*.cpp)
  if(NOT _sources)
    message(STATUS "toolchat: no sources in src/${name} yet, toolchat_${name} is skipped")
    return()
  endif()
  set(_tgt toolchat_${name})
  add_library(${_tgt} STATIC ${_sources})
  add_library(toolchat::${name} ALIAS ${_tgt})
  set_target_properties(${_tgt} PROPERTIES EXPORT_NAME ${name})
  toolchat_target(${_tgt})
  target_include_directories(${_tgt}
    PUBLIC $<BUILD_INTERFACE:${PROJECT_SOURCE_DIR}/include>
           $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(${_tgt} PUBLIC $<BUILD_INTERFACE:toolchat_instrument>)
  foreach(_dep IN LISTS ARG_DEPENDS)
    if(TARGET toolchat_${_dep})
      target_link_libraries(${_tgt} PUBLIC toolchat_${_dep})
    else()
      message(WARNING "toolchat: toolchat_${name} depends on toolchat_${_dep}, which has no sources yet")
    endif()
  endforeach()
  if(ARG_LINK)
    target_link_libraries(${_tgt} PRIVATE ${ARG_LINK})
  endif()
  set(TOOLCHAT_LIBS ${TOOLCHAT_LIBS} ${_tgt} PARENT_SCOPE)
  set(TOOLCHAT_LAYERS ${TOOLCHAT_LAYERS} ${name} PARENT_SCOPE)
endfunction()

# toolchat_package(): toolchat::toolchat (every layer), installation of the headers, the layers,
# their CMake package (toolchatConfig.cmake + version) and toolchat.pc. After every layer.
function(toolchat_package)
  add_library(toolchat_all INTERFACE)
  set_target_properties(toolchat_all PROPERTIES EXPORT_NAME toolchat)
  foreach(_layer IN LISTS TOOLCHAT_LAYERS)
    target_link_libraries(toolchat_all INTERFACE toolchat_${_layer})
  endforeach()
  add_library(toolchat::toolchat ALIAS toolchat_all)

  if(NOT TOOLCHAT_INSTALL)
    return()
  endif()
  set(_cmakedir ${CMAKE_INSTALL_LIBDIR}/cmake/toolchat)
  list(TRANSFORM TOOLCHAT_LAYERS PREPEND toolchat_ OUTPUT_VARIABLE _targets)
  install(TARGETS ${_targets} toolchat_all EXPORT toolchatTargets
          ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
          INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/toolchat DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
  install(EXPORT toolchatTargets NAMESPACE toolchat:: DESTINATION ${_cmakedir})

  include(CMakePackageConfigHelpers)
  configure_package_config_file(${PROJECT_SOURCE_DIR}/cmake/toolchatConfig.cmake.in
    ${PROJECT_BINARY_DIR}/toolchatConfig.cmake INSTALL_DESTINATION ${_cmakedir})
  write_basic_package_version_file(${PROJECT_BINARY_DIR}/toolchatConfigVersion.cmake
    COMPATIBILITY SameMinorVersion)
  install(FILES ${PROJECT_BINARY_DIR}/toolchatConfig.cmake ${PROJECT_BINARY_DIR}/toolchatConfigVersion.cmake
          DESTINATION ${_cmakedir})

  # pkg-config: static libraries, so the dependents come first on the link line.
  set(TOOLCHAT_PC_LIBS)
  foreach(_layer IN LISTS TOOLCHAT_LAYERS)
    set(TOOLCHAT_PC_LIBS "-ltoolchat_${_layer} ${TOOLCHAT_PC_LIBS}")
  endforeach()
  string(STRIP "${TOOLCHAT_PC_LIBS}" TOOLCHAT_PC_LIBS)
  # Relocatable: the prefix is found from the .pc file's own place (cmake --install --prefix).
  file(RELATIVE_PATH TOOLCHAT_PC_UP "/${CMAKE_INSTALL_LIBDIR}/pkgconfig" "/")
  string(REGEX REPLACE "/$" "" TOOLCHAT_PC_UP "${TOOLCHAT_PC_UP}")
  configure_file(${PROJECT_SOURCE_DIR}/cmake/toolchat.pc.in ${PROJECT_BINARY_DIR}/toolchat.pc @ONLY)
  install(FILES ${PROJECT_BINARY_DIR}/toolchat.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
endfunction()
