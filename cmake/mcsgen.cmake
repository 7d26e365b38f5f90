# mcsgen.cmake - generate a mechanism's solver at build time and link it with the mcsgen runtime.
#
#   include(<prefix>/lib/cmake/mcsgen/mcsgen.cmake)   # after `make install PREFIX=<prefix>`
#   # or include(<checkout>/cmake/mcsgen.cmake)
#   mcsgen_add_model(slider slider_crank.yaml FLOAT PORTABLE FIRMWARE)
#   target_link_libraries(my_firmware PRIVATE slider)
#
# mcsgen_add_model(<target> <model.yaml> [FLOAT] [PORTABLE] [FIRMWARE] [KERNELS <set> ...])
#   <target>   a static library: the generated <name>.c (<name> = the file's `name:`, which is
#              its file name), its header directory and the runtime (PUBLIC), so linking it is all
#   FLOAT      single precision (MCS_REAL_FLOAT) for the runtime and the model
#   PORTABLE   the self-contained linear algebra (MCS_LINALG_PORTABLE; no LAPACK), for firmware
#   FIRMWARE   the file's `firmware:` settings as the descriptor's defaults and only the kernels
#              they need (mcsgen generate --firmware)
#   KERNELS    the kernel sets to emit besides motion: predictor, stiffness, transitions,
#              reactions, linearization
# The C is generated into ${CMAKE_CURRENT_BINARY_DIR}/mcsgen/<target>/ when the model file or the
# generator changes, never at configure time. The runtime is the installed static library of
# the chosen precision and backend, or, from a checkout, built from runtime/src.

cmake_minimum_required(VERSION 3.16)
include_guard(GLOBAL)

get_filename_component(_mcsgen_here "${CMAKE_CURRENT_LIST_DIR}" ABSOLUTE)
if(EXISTS "${_mcsgen_here}/../../../bin/mcsgen")
  # installed: <prefix>/lib/cmake/mcsgen
  get_filename_component(MCSGEN_PREFIX "${_mcsgen_here}/../../.." ABSOLUTE)
  set(MCSGEN_EXECUTABLE "${MCSGEN_PREFIX}/bin/mcsgen" CACHE FILEPATH "the mcsgen command")
  set(_mcsgen_share "${MCSGEN_PREFIX}/share/mcsgen")
  set(_mcsgen_installed TRUE)
else()
  # a checkout: <root>/cmake
  get_filename_component(MCSGEN_PREFIX "${_mcsgen_here}/.." ABSOLUTE)
  set(MCSGEN_EXECUTABLE "${MCSGEN_PREFIX}/mcsgen" CACHE FILEPATH "the mcsgen command")
  set(_mcsgen_share "${MCSGEN_PREFIX}")
  set(_mcsgen_installed FALSE)
endif()

# What generation depends on: the generator package and its templates.
file(GLOB_RECURSE _mcsgen_generator_files CONFIGURE_DEPENDS
     "${_mcsgen_share}/generator/mcsgen/*.py" "${_mcsgen_share}/templates/*.j2")

# The runtime of one precision and backend, once per project: mcsgen_runtime_<variant>.
function(_mcsgen_runtime variant float portable)
  set(target "mcsgen_runtime_${variant}")
  if(TARGET ${target})
    return()
  endif()
  if(_mcsgen_installed)
    add_library(${target} STATIC IMPORTED GLOBAL)
    set_target_properties(${target} PROPERTIES
      IMPORTED_LOCATION "${MCSGEN_PREFIX}/lib/lib${variant}.a"
      INTERFACE_INCLUDE_DIRECTORIES "${MCSGEN_PREFIX}/include")
  else()
    file(GLOB_RECURSE sources CONFIGURE_DEPENDS "${MCSGEN_PREFIX}/runtime/src/*.c")
    if(portable)
      list(FILTER sources EXCLUDE REGEX "mcs_linalg_lapack\\.c$")
    else()
      list(FILTER sources EXCLUDE REGEX "mcs_linalg_portable\\.c$")
    endif()
    add_library(${target} STATIC ${sources})
    set_target_properties(${target} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
    target_include_directories(${target} PUBLIC "${MCSGEN_PREFIX}/runtime/include"
                               PRIVATE "${MCSGEN_PREFIX}/runtime/src")
  endif()
  set(defs "")
  if(float)
    list(APPEND defs MCS_REAL_FLOAT)
  endif()
  if(portable)
    list(APPEND defs MCS_LINALG_PORTABLE)
    set(libs m)
  else()
    set(libs lapacke lapack blas m)
  endif()
  if(_mcsgen_installed)
    set_property(TARGET ${target} PROPERTY INTERFACE_COMPILE_DEFINITIONS "${defs}")
    set_property(TARGET ${target} PROPERTY INTERFACE_LINK_LIBRARIES "${libs}")
  else()
    target_compile_definitions(${target} PUBLIC ${defs})
    target_link_libraries(${target} PUBLIC ${libs})
  endif()
endfunction()

function(mcsgen_add_model target model_file)
  cmake_parse_arguments(PARSE_ARGV 2 arg "FLOAT;PORTABLE;FIRMWARE" "" "KERNELS")
  if(arg_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "mcsgen_add_model(${target}): unknown arguments ${arg_UNPARSED_ARGUMENTS}")
  endif()
  get_filename_component(model "${model_file}" ABSOLUTE BASE_DIR "${CMAKE_CURRENT_SOURCE_DIR}")
  if(NOT EXISTS "${model}")
    message(FATAL_ERROR "mcsgen_add_model(${target}): no model file ${model}")
  endif()
  get_filename_component(name "${model}" NAME_WE)
  set(out_root "${CMAKE_CURRENT_BINARY_DIR}/mcsgen/${target}")
  set(out "${out_root}/${name}")
  set(options --force --no-misra --out "${out_root}")
  if(arg_FIRMWARE)
    list(APPEND options --firmware)
  endif()
  if(arg_KERNELS)
    string(REPLACE ";" "," sets "${arg_KERNELS}")
    list(APPEND options --kernels "${sets}")
  endif()
  add_custom_command(
    OUTPUT "${out}/${name}.c" "${out}/${name}.h"
    COMMAND "${MCSGEN_EXECUTABLE}" generate ${options} "${model}"
    DEPENDS "${model}" ${_mcsgen_generator_files}
    COMMENT "mcsgen: generating ${name} (${target})"
    VERBATIM)

  set(variant "mcs")
  if(arg_FLOAT)
    string(APPEND variant "_float")
  endif()
  if(arg_PORTABLE)
    string(APPEND variant "_portable")
  endif()
  _mcsgen_runtime(${variant} "${arg_FLOAT}" "${arg_PORTABLE}")

  add_library(${target} STATIC "${out}/${name}.c")
  set_target_properties(${target} PROPERTIES C_STANDARD 99 C_STANDARD_REQUIRED ON C_EXTENSIONS OFF)
  target_include_directories(${target} PUBLIC "${out}")
  target_link_libraries(${target} PUBLIC mcsgen_runtime_${variant})
endfunction()
