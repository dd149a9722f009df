# SPDX-License-Identifier: GPL-2.0-or-later
# CPACK_PRE_BUILD_SCRIPTS of cmake/cpack.cmake: runs in cpack, on the staging tree
# (CPACK_TEMPORARY_INSTALL_DIRECTORY) before the package is made.  Compresses the
# manual pages as Debian policy wants (gzip -9n: no name, no time stamp) and
# drops the programs' .comment sections.
# The staging tree has one subtree per package (component): look at any depth.
file(GLOB_RECURSE _pt_pages "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*.[1-9]")
list(FILTER _pt_pages INCLUDE REGEX "/share/man/man[1-9]/[^/]+\\.[1-9]$")
foreach(_p IN LISTS _pt_pages)
	execute_process(COMMAND gzip -9 -n -f "${_p}" RESULT_VARIABLE _rc)
	if(NOT _rc EQUAL 0)
		message(FATAL_ERROR "cpack: gzip ${_p} failed (${_rc})")
	endif()
endforeach()

# The compiler's version strings (.comment) are of no use at run time; Debian's
# dh_strip removes them too.  The build id stays, and with it the -dbgsym link.
file(GLOB _pt_programs "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*/usr/bin/*"
     "${CPACK_TEMPORARY_INSTALL_DIRECTORY}/*/usr/sbin/*")
foreach(_p IN LISTS _pt_programs)
	execute_process(COMMAND objcopy --remove-section=.comment "${_p}" RESULT_VARIABLE _rc)
	if(NOT _rc EQUAL 0)
		message(FATAL_ERROR "cpack: objcopy --remove-section=.comment ${_p} failed (${_rc})")
	endif()
endforeach()
