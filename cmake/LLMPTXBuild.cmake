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
