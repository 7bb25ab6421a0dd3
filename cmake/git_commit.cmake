# WARPSPEC_GIT_COMMIT: the commit this tree is at when CMake configures (12 hex digits,
# "-dirty" when tracked files differ from it), or "unknown" outside a git checkout.
# The program reports it with every --json record. HEAD and the branch's ref are
# configure dependencies, so a new commit reconfigures and the figure stays true.
find_package(Git QUIET)
set(WARPSPEC_GIT_COMMIT unknown)
if(GIT_FOUND)
  execute_process(COMMAND ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} rev-parse --short=12 HEAD
                  OUTPUT_VARIABLE _ws_commit OUTPUT_STRIP_TRAILING_WHITESPACE
                  RESULT_VARIABLE _ws_rc ERROR_QUIET)
  if(_ws_rc EQUAL 0 AND NOT _ws_commit STREQUAL "")
    set(WARPSPEC_GIT_COMMIT ${_ws_commit})
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} diff --quiet HEAD --
                    RESULT_VARIABLE _ws_dirty ERROR_QUIET)
    if(NOT _ws_dirty EQUAL 0)
      string(APPEND WARPSPEC_GIT_COMMIT "-dirty")
    endif()
    # Reconfigure when HEAD or the branch it names moves (paths work in worktrees too).
    execute_process(COMMAND ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} rev-parse --symbolic-full-name HEAD
                    OUTPUT_VARIABLE _ws_branch OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
    foreach(_ws_name HEAD ${_ws_branch} packed-refs)
      execute_process(COMMAND ${GIT_EXECUTABLE} -C ${PROJECT_SOURCE_DIR} rev-parse --path-format=absolute --git-path ${_ws_name}
                      OUTPUT_VARIABLE _ws_path OUTPUT_STRIP_TRAILING_WHITESPACE ERROR_QUIET)
      if(EXISTS "${_ws_path}")
        set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS "${_ws_path}")
      endif()
    endforeach()
  endif()
endif()
