# SPDX-License-Identifier: GPL-2.0-or-later
# The Debian packages: `cpack -G DEB` from a build directory configured with
#
#   cmake -S . -B build-deb -DCMAKE_INSTALL_PREFIX=/usr
#   cmake --build build-deb --target package
#
# gives, as ndctl and daxctl are split:
#   pmem-tune_<version>-<release>_<arch>.deb    the probe and policy tool, its man pages
#       (pmem-tune(8), pmem-policy.json(5)), bash completion, and in
#       /usr/share/doc/pmem-tune the policy schema, fleet.md and the Ansible playbook;
#       no libsystemd
#   pmem-tuned_<version>-<release>_<arch>.deb   the daemon, both units (enabled on
#       install, see systemd/debian/postinst), the tmpfiles.d entry, the preset,
#       /etc/pmem-tuned (conffiles), pmem-tuned(8), bash completion; depends on the
#       pmem-tune of the same version (the probe unit runs it)
#   and a -dbgsym .ddeb beside each, with the detached debugging symbols in
#       /usr/lib/debug/.build-id/xx/yyyy.debug and /usr/share/doc/<package>-dbgsym
#       a symlink to the doc of the <package> it depends on (cpack-postbuild.cmake).
#
# Each package holds exactly what `cmake --install --component` installs, at the
# configured prefix: the units name the binaries by the paths configured into
# them, so the package prefix cannot differ from CMAKE_INSTALL_PREFIX.  Use /usr.

if(NOT CMAKE_INSTALL_PREFIX STREQUAL "/usr")
	message(STATUS "cpack: CMAKE_INSTALL_PREFIX is ${CMAKE_INSTALL_PREFIX}; "
		"configure with -DCMAKE_INSTALL_PREFIX=/usr for a Debian package")
endif()

set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME pmem-tuned)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_VENDOR "pmem-tuned")
set(CPACK_PACKAGE_CONTACT "pmem-tuned maintainers <pmem-tuned@example.org>" CACHE STRING
    "Maintainer field of the Debian packages")
set(CPACK_DEBIAN_PACKAGE_RELEASE 1)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_PRIORITY optional)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://pmem-tuned.example.org/" CACHE STRING
    "Homepage field of the Debian packages")
set(_pt_debver ${CPACK_PACKAGE_VERSION}-${CPACK_DEBIAN_PACKAGE_RELEASE})
# Every package, -dbgsym included, names its source (the changelog's name).
set(CPACK_DEBIAN_PACKAGE_SOURCE pmem-tuned)

# One package per component; the install() rules get theirs from the top-level
# CMakeLists.txt (CMAKE_INSTALL_DEFAULT_COMPONENT_NAME around add_subdirectory).
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_GROUPING IGNORE)
set(CPACK_COMPONENTS_ALL cli)
set(CPACK_DEBIAN_CLI_PACKAGE_NAME pmem-tune)
# CPack puts the summary (first line) above the indented extended description;
# "." stands for an empty line.
set(CPACK_DEBIAN_CLI_DESCRIPTION "measure persistent-memory copy strategies, write a copy policy
pmem-tune measures how fast each copy strategy (non-temporal stores,
cached stores plus clwb/clflushopt, rep movsb, ...) writes to this host's
persistent memory and DRAM, and writes a copy policy,
/etc/pmem-policy.json, with the thresholds each consumer should use.
It also checks, shows, compares, merges (for a fleet) and plots policies.
.
The daemon that applies the policy is in the pmem-tuned package.")
if(TARGET pmem-tuned)
	list(APPEND CPACK_COMPONENTS_ALL daemon)
	set(CPACK_DEBIAN_DAEMON_PACKAGE_NAME pmem-tuned)
	set(CPACK_DEBIAN_DAEMON_DESCRIPTION "apply the persistent-memory copy policy to kernel knobs and libraries
pmem-tuned applies the policy pmem-tune wrote: kernel module parameters
and pmem block device attributes in sysfs (through a knob map), the
environment PMDK's libpmem reads, and glibc's GLIBC_TUNABLES. It keeps
the policy applied and restores every original value when it stops.
.
pmem-tune-probe.service measures the host where no policy fits it, in the
background after boot.")
else()
	message(STATUS "cpack: the daemon is not built (no libsystemd): "
		"only the pmem-tune package")
endif()
set(CPACK_DEBIAN_DAEMON_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_CLI_PACKAGE_SECTION admin)

# Depends: what dpkg-shlibdeps finds for the binaries (libc6, libjson-c5,
# libndctl6, libdaxctl1, libcxl1; libsystemd0 for the daemon; librsvg2-2, which
# --plot FILE.png loads when asked, is suggested), else the same by hand.  The
# daemon also needs systemd (units, tmpfiles, preset), procps (/bin/kill, its
# ExecReload=) and this version's pmem-tune (the probe unit runs it).
set(_pt_daemon_depends "pmem-tune (= ${_pt_debver}), systemd, procps")
find_program(PT_DPKG_SHLIBDEPS dpkg-shlibdeps)
if(PT_DPKG_SHLIBDEPS)
	set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
	set(CPACK_DEBIAN_DAEMON_PACKAGE_DEPENDS "${_pt_daemon_depends}")
else()
	set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS OFF)
	set(CPACK_DEBIAN_CLI_PACKAGE_DEPENDS "libc6, libjson-c5, libndctl6, libdaxctl1, libcxl1")
	set(CPACK_DEBIAN_DAEMON_PACKAGE_DEPENDS
	    "libc6, libjson-c5, libsystemd0, ${_pt_daemon_depends}")
endif()
set(CPACK_DEBIAN_CLI_PACKAGE_RECOMMENDS "ndctl, daxctl")
set(CPACK_DEBIAN_CLI_PACKAGE_SUGGESTS "pmem-tuned, librsvg2-2")

# The daemon's maintainer scripts (tmpfiles, enable on first install, restart on
# upgrade, stop = restore before removal, purge) and conffiles: systemd/debian/.
set(_pt_deb ${PROJECT_SOURCE_DIR}/systemd/debian)
set(CPACK_DEBIAN_DAEMON_PACKAGE_CONTROL_EXTRA
    ${_pt_deb}/postinst ${_pt_deb}/prerm ${_pt_deb}/postrm ${_pt_deb}/conffiles)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION TRUE)

# Detached debugging symbols in pmem-tune-dbgsym and pmem-tuned-dbgsym: CPack
# takes them from the unstripped binaries, then strips those it packages.
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(CPACK_STRIP_FILES OFF)

set(CPACK_PACKAGING_INSTALL_PREFIX ${CMAKE_INSTALL_PREFIX})
# /etc/pmem-tuned is installed by absolute path: stage everything under DESTDIR
# so that it lands in the package, not on the build host.
set(CPACK_SET_DESTDIR ON)
set(CPACK_DEBIAN_COMPRESSION_TYPE xz)
set(CPACK_SOURCE_GENERATOR "")

# Debian wants a copyright file and a changelog in /usr/share/doc/<package>, and
# overrides for the lintian tags that do not apply (each says why).
# honours SOURCE_DATE_EPOCH (reproducible builds)
string(TIMESTAMP _pt_date "%a, %d %b %Y %H:%M:%S +0000" UTC)
file(WRITE ${CMAKE_BINARY_DIR}/deb/changelog
"pmem-tuned (${_pt_debver}) unstable; urgency=medium

  * Packages built with CPack from pmem-tuned ${CPACK_PACKAGE_VERSION}.
  * pmem-tune --strategies-list --json gives the strategy object of --list:
    \"missing\" and \"needs_persistence_domain\" where it wrote \"needs\" and
    \"persistent_only_with_eadr\"; every command's JSON in ndctl's style.

 -- ${CPACK_PACKAGE_CONTACT}  ${_pt_date}
")
execute_process(COMMAND gzip -9 -n -f -k ${CMAKE_BINARY_DIR}/deb/changelog
		RESULT_VARIABLE _pt_gz)
if(NOT _pt_gz EQUAL 0)
	message(FATAL_ERROR "cpack: gzip of the Debian changelog failed (${_pt_gz})")
endif()
foreach(_pt_comp cli daemon)
	string(TOUPPER ${_pt_comp} _pt_COMP)
	set(_pt_pkg ${CPACK_DEBIAN_${_pt_COMP}_PACKAGE_NAME})
	if(NOT _pt_comp IN_LIST CPACK_COMPONENTS_ALL)
		continue()
	endif()
	set(_pt_docdir ${CMAKE_INSTALL_DATAROOTDIR}/doc/${_pt_pkg})
	install(FILES ${CMAKE_BINARY_DIR}/deb/changelog.gz DESTINATION ${_pt_docdir}
		RENAME changelog.Debian.gz COMPONENT ${_pt_comp})
	install(FILES ${_pt_deb}/copyright DESTINATION ${_pt_docdir} COMPONENT ${_pt_comp})
	install(FILES ${_pt_deb}/${_pt_pkg}.lintian-overrides
		DESTINATION ${CMAKE_INSTALL_DATAROOTDIR}/lintian/overrides RENAME ${_pt_pkg}
		COMPONENT ${_pt_comp})
endforeach()

# What a fleet tool needs beside pmem-tune: the policy's schema, the how-to and
# its playbook (examples/ stays uncompressed: it is meant to be run).
set(_pt_docdir ${CMAKE_INSTALL_DATAROOTDIR}/doc/pmem-tune)
install(FILES ${PROJECT_SOURCE_DIR}/docs/pmem-policy.schema.json
	      ${PROJECT_SOURCE_DIR}/docs/fleet.md
	DESTINATION ${_pt_docdir} COMPONENT cli)
install(FILES ${PROJECT_SOURCE_DIR}/docs/examples/pmem-policy.yml
	DESTINATION ${_pt_docdir}/examples COMPONENT cli)

# Debian policy: manual pages gzip -9n'ed.  Done in the staging tree, after the
# install rules ran and before the md5sums and the archive are made.
set(CPACK_PRE_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/cpack-prebuild.cmake)
# CPack's -dbgsym .ddeb files lack what Debian's have (md5sums by package path,
# the doc directory, non-executable debug files): remade once they are built.
set(CPACK_POST_BUILD_SCRIPTS ${CMAKE_CURRENT_LIST_DIR}/cpack-postbuild.cmake)

include(CPack)
