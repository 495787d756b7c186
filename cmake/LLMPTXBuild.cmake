#===- LLMPTXBuild.cmake - Helpers shared by the llmptx build --------------===#

# llmptx_find_cuda_headers()
#   Sets LLMPTX_CUDA_INCLUDE_DIR to the folder that holds cuda.h, searching
#   CUDA_HOME, CUDA_PATH, the folder of nvcc/ptxas on PATH and /usr/local/cuda.
#   Sets LLMPTX_PTXAS to the ptxas found the same way (for lit features).
function(llmptx_find_cuda_headers)
  set(hints)
  foreach(var CUDA_HOME CUDA_PATH)
    if(DEFINED ENV{${var}})
      list(APPEND hints "$ENV{${var}}")
    endif()
  endforeach()
  find_program(LLMPTX_PTXAS ptxas HINTS ${hints} PATH_SUFFIXES bin
               PATHS /usr/local/cuda/bin)
  if(LLMPTX_PTXAS)
    get_filename_component(bin_dir "${LLMPTX_PTXAS}" DIRECTORY)
    get_filename_component(root_dir "${bin_dir}" DIRECTORY)
    list(APPEND hints "${root_dir}")
  endif()
  find_path(LLMPTX_CUDA_INCLUDE_DIR cuda.h HINTS ${hints}
            PATH_SUFFIXES include targets/x86_64-linux/include
            PATHS /usr/local/cuda)
  if(LLMPTX_CUDA_INCLUDE_DIR)
    message(STATUS "cuda.h: ${LLMPTX_CUDA_INCLUDE_DIR}")
  else()
    message(STATUS "cuda.h not found: llmptx-runner is built without it")
  endif()
  if(LLMPTX_PTXAS)
    message(STATUS "ptxas: ${LLMPTX_PTXAS}")
  endif()
endfunction()

# llmptx_enable_exceptions(target)
#   LLVM is built with -fno-exceptions; libraries that use nlohmann/json or
#   other exception-throwing code compile with exceptions on and must not let
#   one escape through their public headers.
function(llmptx_enable_exceptions target)
  target_compile_options(${target} PRIVATE -fexceptions)
endfunction()

# llmptx_add_unittest(name SOURCES... LINK libs...)
#   A GoogleTest binary under build/unittests, run by lit (test/Unit) and ctest.
function(llmptx_add_unittest name)
  cmake_parse_arguments(ARG "" "" "LINK" ${ARGN})
  if(NOT GTest_FOUND)
    message(WARNING "GoogleTest not found: skipping unit test ${name}")
    return()
  endif()
  add_executable(${name} ${ARG_UNPARSED_ARGUMENTS})
  target_link_libraries(${name} PRIVATE ${ARG_LINK} GTest::gtest GTest::gtest_main
                        Threads::Threads)
  target_compile_options(${name} PRIVATE -fexceptions)
  set_target_properties(${name} PROPERTIES
    RUNTIME_OUTPUT_DIRECTORY ${CMAKE_BINARY_DIR}/unittests)
  add_test(NAME ${name} COMMAND ${name})
  set_property(GLOBAL APPEND PROPERTY LLMPTX_UNITTESTS ${name})
endfunction()

# llmptx_check_no_mlir(target HEADERS dir...)
#   Fails the configuration when `target` links MLIR (the MLIR dylib, an
#   MLIR library, the llmgen dialect or the target adapter), directly or
#   through the libraries it links, or when one of its sources or of the
#   headers under `dir` includes an MLIR header or a dialect/target header.
#   Checked once every target exists (deferred to the end of the top-level
#   directory), so libraries may be declared in any order.
function(llmptx_check_no_mlir target)
  cmake_parse_arguments(ARG "" "" "HEADERS" ${ARGN})
  get_target_property(sources ${target} SOURCES)
  get_target_property(source_dir ${target} SOURCE_DIR)
  set(files)
  foreach(source IN LISTS sources)
    if(NOT IS_ABSOLUTE "${source}")
      set(source "${source_dir}/${source}")
    endif()
    if(EXISTS "${source}")
      list(APPEND files "${source}")
    endif()
  endforeach()
  foreach(dir IN LISTS ARG_HEADERS)
    file(GLOB headers "${dir}/*.h")
    list(APPEND files ${headers})
  endforeach()
  foreach(file IN LISTS files)
    file(STRINGS "${file}" includes
         REGEX "^#include \"(mlir/|llmptx/(Dialect|Target)/[^\"]*\\.h\")")
    if(includes)
      message(FATAL_ERROR "${target} must not depend on MLIR, but ${file} "
                          "has ${includes}")
    endif()
  endforeach()
  # A deferred call's arguments are expanded when it runs: EVAL fixes the
  # target's name now.
  cmake_language(EVAL CODE "cmake_language(DEFER DIRECTORY \"${CMAKE_SOURCE_DIR}\" CALL _llmptx_check_no_mlir_links ${target})")
endfunction()

function(_llmptx_check_no_mlir_links target)
  set(seen)
  set(queue ${target})
  while(queue)
    list(POP_FRONT queue current)
    # $<LINK_ONLY:lib> and similar wrappers name the library inside.
    string(REGEX REPLACE "^\\$<[A-Z_]+:(.*)>$" "\\1" current "${current}")
    if(current IN_LIST seen OR NOT TARGET "${current}")
      continue()
    endif()
    list(APPEND seen "${current}")
    if(current MATCHES "^(MLIR|obj\\.MLIR|LLMPTXLLMGen|LLMPTXTarget)")
      message(FATAL_ERROR "${target} must not link MLIR, but it links "
                          "${current} (libraries visited: ${seen})")
    endif()
    foreach(property LINK_LIBRARIES INTERFACE_LINK_LIBRARIES)
      get_target_property(libraries "${current}" ${property})
      if(libraries)
        list(APPEND queue ${libraries})
      endif()
    endforeach()
  endwhile()
endfunction()
