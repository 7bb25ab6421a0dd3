#----------------------------------------------------------------
# Generated CMake target import file for configuration "Release".
#----------------------------------------------------------------

# Commands may need to know the format version.
set(CMAKE_IMPORT_FILE_VERSION 1)

# Import target "warpspec::warpspec" for configuration "Release"
set_property(TARGET warpspec::warpspec APPEND PROPERTY IMPORTED_CONFIGURATIONS RELEASE)
set_target_properties(warpspec::warpspec PROPERTIES
  IMPORTED_LOCATION_RELEASE "${_IMPORT_PREFIX}/lib/libwarpspec.so.0.1.0"
  IMPORTED_SONAME_RELEASE "libwarpspec.so.0"
  )

list(APPEND _cmake_import_check_targets warpspec::warpspec )
list(APPEND _cmake_import_check_files_for_warpspec::warpspec "${_IMPORT_PREFIX}/lib/libwarpspec.so.0.1.0" )

# Commands beyond this point should not need to know the version.
set(CMAKE_IMPORT_FILE_VERSION)
