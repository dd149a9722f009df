# SPDX-License-Identifier: GPL-2.0-or-later
# CPACK_PRE_BUILD_SCRIPTS of cmake/cpack.cmake: runs in cpack, on the staging tree
# (CPACK_TEMPORARY_INSTALL_DIRECTORY) before the package is made.  Compresses the
# manual pages as Debian policy wants (gzip -9n: no name, no time stamp).
file(GLOB_RECURSE _pt_pages
     "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*/share/man/man[1-9]/*.[1-9]")
foreach(_p IN LISTS _pt_pages)
	execute_process(COMMAND gzip -9 -n -f "${_p}" RESULT_VARIABLE _rc)
	if(NOT _rc EQUAL 0)
		message(FATAL_ERROR "cpack: gzip ${_p} failed (${_rc})")
	endif()
endforeach()
