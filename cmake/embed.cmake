# Build step: turns text files into one C file of byte arrays, so the binary
# carries its templates and never reads them from an absolute path.
# Each file becomes an entry {basename, bytes, length} in ssmc_embedded_files[].
function(ssmc_embed target out)
  set(files ${ARGN})
  string(REPLACE ";" "|" joined "${files}")
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} "-DFILES=${joined}"
            -P ${CMAKE_SOURCE_DIR}/cmake/embed_run.cmake
    DEPENDS ${files} ${CMAKE_SOURCE_DIR}/cmake/embed_run.cmake
    COMMENT "Embedding templates" VERBATIM)
  add_custom_target(${target} DEPENDS ${out})
endfunction()

# Each file becomes `const char <prefix><basename without extension>[]` (the
# CUDA modules of the built-in kernels, referenced by generated/ssmc_builtin.c).
function(ssmc_embed_symbols out prefix)
  set(files ${ARGN})
  string(REPLACE ";" "|" joined "${files}")
  add_custom_command(OUTPUT ${out}
    COMMAND ${CMAKE_COMMAND} -DOUT=${out} -DPREFIX=${prefix} "-DFILES=${joined}"
            -P ${CMAKE_SOURCE_DIR}/cmake/embed_symbols_run.cmake
    DEPENDS ${files} ${CMAKE_SOURCE_DIR}/cmake/embed_symbols_run.cmake
    COMMENT "Embedding CUDA modules" VERBATIM)
endfunction()
