# SPDX-License-Identifier: GPL-2.0-or-later
# CPACK_POST_BUILD_SCRIPTS of cmake/cpack.cmake: runs in cpack once the packages
# are made (CPACK_PACKAGE_FILES).  Remakes each -dbgsym .ddeb the way Debian's
# dh_strip lays one out, which CPack (3.25) does not:
#   - md5sums names the files by their path in the package; CPack writes the
#     absolute path of its staging tree (lintian: md5sums-lists-nonexistent-file,
#     file-missing-in-md5sums);
#   - /usr/share/doc/PACKAGE-dbgsym is a symlink to /usr/share/doc/PACKAGE, whose
#     copyright and changelog cover it: the -dbgsym depends on that PACKAGE of
#     the same version (lintian: no-copyright-file, no-changelog);
#   - the detached debug files are data, mode 0644 (objcopy kept the program's
#     0755; lintian: executable-in-usr-lib);
#   - Source: names the source package, as in the .deb files: that makes the
#     doc symlink one within the source's packages, which lintian checks when
#     given them together (else cannot-check-whether-usr-share-doc-symlink-...).
# The control file and the debug files themselves are kept as CPack made them.

if(NOT CPACK_DEBIAN_PACKAGE_SOURCE)
	message(FATAL_ERROR "cpack: CPACK_DEBIAN_PACKAGE_SOURCE is not set")
endif()
find_program(_pt_dpkg_deb dpkg-deb)
if(NOT _pt_dpkg_deb)
	message(FATAL_ERROR "cpack: dpkg-deb is needed to remake the -dbgsym packages")
endif()

set(_pt_ddebs ${CPACK_PACKAGE_FILES})
list(FILTER _pt_ddebs INCLUDE REGEX "-dbgsym_[^/]*\\.ddeb$")
foreach(_pt_ddeb IN LISTS _pt_ddebs)
	get_filename_component(_pt_name "${_pt_ddeb}" NAME)
	set(_pt_root "${CPACK_TOPLEVEL_DIRECTORY}/ddeb/${_pt_name}")
	file(REMOVE_RECURSE "${_pt_root}")
	file(MAKE_DIRECTORY "${CPACK_TOPLEVEL_DIRECTORY}/ddeb")
	execute_process(COMMAND ${_pt_dpkg_deb} --raw-extract "${_pt_ddeb}" "${_pt_root}"
			RESULT_VARIABLE _rc)
	if(NOT _rc EQUAL 0)
		message(FATAL_ERROR "cpack: dpkg-deb --raw-extract ${_pt_ddeb} failed (${_rc})")
	endif()

	file(STRINGS "${_pt_root}/DEBIAN/control" _pt_pkg REGEX "^Package: ")
	string(REGEX REPLACE "^Package: *" "" _pt_pkg "${_pt_pkg}")
	string(REGEX REPLACE "-dbgsym$" "" _pt_main "${_pt_pkg}")
	if(_pt_main STREQUAL _pt_pkg OR _pt_main STREQUAL "")
		message(FATAL_ERROR "cpack: ${_pt_ddeb}: Package '${_pt_pkg}' is no -dbgsym")
	endif()

	file(READ "${_pt_root}/DEBIAN/control" _pt_control)
	if(NOT _pt_control MATCHES "\nSource: ")
		string(REGEX REPLACE "(^|\n)(Package: [^\n]*\n)"
		       "\\1\\2Source: ${CPACK_DEBIAN_PACKAGE_SOURCE}\n" _pt_control "${_pt_control}")
		file(WRITE "${_pt_root}/DEBIAN/control" "${_pt_control}")
	endif()

	file(MAKE_DIRECTORY "${_pt_root}/usr/share/doc")
	file(CREATE_LINK ${_pt_main} "${_pt_root}/usr/share/doc/${_pt_pkg}" SYMBOLIC)

	file(GLOB_RECURSE _pt_debug LIST_DIRECTORIES false "${_pt_root}/usr/lib/debug/*.debug")
	if(NOT _pt_debug)
		message(FATAL_ERROR "cpack: ${_pt_ddeb} holds no /usr/lib/debug/**.debug")
	endif()
	file(CHMOD ${_pt_debug} FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

	# md5sums: every regular file but the control area, by its path in the
	# package, sorted (links are not listed).
	file(GLOB_RECURSE _pt_files LIST_DIRECTORIES false RELATIVE "${_pt_root}" "${_pt_root}/*")
	list(FILTER _pt_files EXCLUDE REGEX "^DEBIAN/")
	list(SORT _pt_files)
	set(_pt_sums "")
	foreach(_f IN LISTS _pt_files)
		if(IS_SYMLINK "${_pt_root}/${_f}")
			continue()
		endif()
		file(MD5 "${_pt_root}/${_f}" _sum)
		string(APPEND _pt_sums "${_sum}  ${_f}\n")
	endforeach()
	file(WRITE "${_pt_root}/DEBIAN/md5sums" "${_pt_sums}")
	file(CHMOD "${_pt_root}/DEBIAN/md5sums"
	     FILE_PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)

	execute_process(COMMAND ${_pt_dpkg_deb} --root-owner-group -Z${CPACK_DEBIAN_COMPRESSION_TYPE}
				--build "${_pt_root}" "${_pt_ddeb}"
			RESULT_VARIABLE _rc OUTPUT_QUIET)
	if(NOT _rc EQUAL 0)
		message(FATAL_ERROR "cpack: dpkg-deb --build ${_pt_ddeb} failed (${_rc})")
	endif()
	file(REMOVE_RECURSE "${_pt_root}")
endforeach()
