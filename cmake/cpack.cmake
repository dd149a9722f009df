# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian package: `cpack -G DEB` from a build directory configured with
#
#   cmake -S . -B build-deb -DCMAKE_INSTALL_PREFIX=/usr -DCMAKE_BUILD_TYPE=RelWithDebInfo
#   cmake --build build-deb && (cd build-deb && cpack -G DEB)
#
# gives pmem-tuned_<version>-<release>_<arch>.deb with pmem-tune, pmem-tuned, their
# units (enabled on install through the preset, see systemd/debian/postinst), the
# tmpfiles.d entry, the preset, /etc/pmem-tuned (conffiles) and the man pages.
#
# The package holds exactly what `cmake --install` installs, at the configured
# prefix: the units name the binaries by the paths configured into them, so the
# package prefix cannot differ from CMAKE_INSTALL_PREFIX.  Use /usr for a package.

if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
	message(STATUS "cpack: CMAKE_INSTALL_PREFIX is ${CMAKE_INSTALL_PREFIX}; "
		"configure with -DCMAKE_INSTALL_PREFIX=/usr for a Debian package")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pmem-tuned)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "pmem-tuned")
set(CPACK_PACKAGE_CONTACT "pmem-tuned maintainers <pmem-tuned@example.org>" CACHE STRING
    "Maintainer field of the Debian package")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "persistent-memory copy policy: probe and tuning daemon")
# Debian's extended description (CPack puts the summary first and indents the
# lines); "." stands for an empty line.
set(CPACK_DEBIAN_PACKAGE_DESCRIPTION "pmem-tune measures how fast each copy strategy (non-temporal stores,
cached stores plus clwb/clflushopt, rep movsb, ...) writes to this host's
persistent memory and DRAM, and writes a copy policy,
/etc/pmem-policy.json, with the thresholds each consumer should use.
.
pmem-tuned applies that policy: kernel module parameters and pmem block
device attributes in sysfs (through a knob map), the environment PMDK's
libpmem reads, and glibc's GLIBC_TUNABLES. It keeps the policy applied
and restores every original value when it stops.")
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://pmem-tuned.example.org/" CACHE STRING
    "Homepage field of the Debian package")

# Depends: what dpkg-shlibdeps finds for the binaries (libc6, libjson-c5,
# libndctl6, libdaxctl1, libsystemd0, with their minimum versions), else the
# same list by hand; plus systemd for the units, tmpfiles and preset, and procps
# for /bin/kill (pmem-tuned.service's ExecReload=; not in a minimal system).
find_program(PT_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(PT_DPKG_SHLIBDEPS)
	set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
	set(CPACK_DEBIAN_PACKAGE_DEPENDS "systemd, procps")
else()
	set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
	set(CPACK_DEBIAN_PACKAGE_DEPENDS
	    "libc6, libjson-c5, libndctl6, libdaxctl1, libsystemd0, systemd, procps")
endif()
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "ndctl, daxctl")

# postinst (tmpfiles, daemon-reload, preset = enable, restart on upgrade),
# prerm (stop = restore), postrm, conffiles: systemd/debian/, listed by daemon/.
if(PT_DEB_CONTROL_EXTRA)
	set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${PT_DEB_CONTROL_EXTRA})
	set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)
else()
	message(STATUS "cpack: the daemon is not built (no libsystemd): "
		"the package would hold pmem-tune only")
endif()

set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
# /etc/pmem-tuned is installed by absolute path: stage everything under DESTDIR
# so that it lands in the package, not on the build host.
set(CPACK_SET_DESTDIR ON)
set(CPACK_STRIP_FILES ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_SOURCE_GENERATOR "")

# Debian wants a copyright file and a changelog in /usr/share/doc/<package>.
set(_pt_docdir ${CMAKE_INSTALL_DATAROOTDIR}/doc/${CPACK_PACKAGE_NAME})
# honours SOURCE_DATE_EPOCH (reproducible builds)
string(TIMESTAMP _pt_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
string(TIMESTAMP _pt_year "%Y" UTC)
file(WRITE ${CMAKE_BINARY_DIR}/deb/copyright
"Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: pmem-tuned
Source: ${CPACK_DEBIAN_PACKAGE_HOMEPAGE}

Files: *
Copyright: ${_pt_year} pmem-tuned authors
License: GPL-2.0-or-later
 On Debian systems, the full text of the GNU General Public License
 version 2 can be found in the file /usr/share/common-licenses/GPL-2.
")
file(WRITE ${CMAKE_BINARY_DIR}/deb/changelog
"pmem-tuned (${CPACK_PACKAGE_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE}) unstable; urgency=medium

  * Package built with CPack from pmem-tuned ${CPACK_PACKAGE_VERSION}.

 -- ${CPACK_PACKAGE_CONTACT}  ${_pt_date}
")
find_program(PT_GZIP gzip)
if(PT_GZIP)
	execute_process(COMMAND ${PT_GZIP} -9 -n -f -k ${CMAKE_BINARY_DIR}/deb/changelog
			RESULT_VARIABLE _pt_gz)
	if(_pt_gz EQUAL 0)
		install(FILES ${CMAKE_BINARY_DIR}/deb/changelog.gz DESTINATION ${_pt_docdir}
			RENAME changelog.Debian.gz)
	endif()
endif()
install(FILES ${CMAKE_BINARY_DIR}/deb/copyright DESTINATION ${_pt_docdir})
# Not an upload to the Debian archive: no bug to close.
file(WRITE ${CMAKE_BINARY_DIR}/deb/lintian-overrides
     "pmem-tuned: initial-upload-closes-no-bugs\n")
install(FILES ${CMAKE_BINARY_DIR}/deb/lintian-overrides
	DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides RENAME ${CPACK_PACKAGE_NAME})

# Debian policy: manual pages gzip -9n'ed.  Done in the staging tree, after the
# install rules ran and before the md5sums and the archive are made.
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/cpack-prebuild.cmake)

include(CPack)
