# compiler stage, build part: the in-process C compiler (Clang 16 + ORC JIT,
# LLVM 16) added to ssmc_compiler. Included by the top-level CMakeLists after
# ssmc_compiler is defined. Links the two shared libraries Debian provides,
# libclang-cpp.so.16 and libLLVM-16.so, never the per-component static ones.
find_package(LLVM 16 REQUIRED CONFIG
  PATHS /usr/lib/llvm-16/lib/cmake/llvm NO_DEFAULT_PATH)
find_package(Clang REQUIRED CONFIG
  PATHS /usr/lib/llvm-16/lib/cmake/clang NO_DEFAULT_PATH)
if(NOT LLVM_VERSION_MAJOR EQUAL 16)
  message(FATAL_ERROR "ssmc JIT needs LLVM 16, found ${LLVM_PACKAGE_VERSION}")
endif()
message(STATUS "ssmc JIT: LLVM ${LLVM_PACKAGE_VERSION} from ${LLVM_DIR}, Clang from ${Clang_DIR}")

target_sources(ssmc_compiler PRIVATE ${CMAKE_SOURCE_DIR}/compiler/jit.cpp)
# LLVM/Clang headers only for the shim; SYSTEM keeps their warnings out.
target_include_directories(ssmc_compiler SYSTEM PRIVATE
  ${LLVM_INCLUDE_DIRS} ${CLANG_INCLUDE_DIRS})
separate_arguments(SSMC_LLVM_DEFS NATIVE_COMMAND "${LLVM_DEFINITIONS}")
set_source_files_properties(${CMAKE_SOURCE_DIR}/compiler/jit.cpp PROPERTIES
  COMPILE_OPTIONS "-fno-rtti;${SSMC_LLVM_DEFS}")
target_link_libraries(ssmc_compiler PUBLIC clang-cpp LLVM)
target_compile_definitions(ssmc_compiler PUBLIC SSMC_HAVE_JIT=1)

# cc1 gets no header search paths by itself: point it at Clang's resource dir
# (its own <stdint.h>, <stddef.h>, ... used under -ffreestanding).
set(SSMC_CLANG_RESOURCE_DIR "${LLVM_LIBRARY_DIR}/clang/${LLVM_VERSION_MAJOR}")
if(NOT EXISTS "${SSMC_CLANG_RESOURCE_DIR}/include/stdint.h")
  message(FATAL_ERROR "ssmc JIT: no Clang resource headers in ${SSMC_CLANG_RESOURCE_DIR}")
endif()
set_property(SOURCE ${CMAKE_SOURCE_DIR}/compiler/jit.cpp APPEND PROPERTY
  COMPILE_DEFINITIONS SSMC_CLANG_RESOURCE_DIR="${SSMC_CLANG_RESOURCE_DIR}")
