# Install rules and the Debian package (CPack): the binary stripped with its debug information in a
# separate file (component dbg, package fabcheck-dbg), the profiles beside it where the binary
# looks (share/fabcheck/profiles, found relative to the executable), the Slurm and Kubernetes
# scripts and the report renderer (share/fabcheck/scripts, their relative layout kept), the docs
# and the man page. GPU libraries are not dependencies: the binary opens them when a probe needs
# them (bench/cuda/nccl_library.hpp).
include(GNUInstallDirs)

set(FABCHECK_SHARE_DIR "${CMAKE_INSTALL_DATADIR}/fabcheck")

# The binary: objcopy --only-keep-debug into <build>/fabcheck.debug, then a copy without any
# symbols that names that file (--add-gnu-debuglink), installed as bin/fabcheck. The debug file
# goes to lib/debug/<absolute bin dir>/, where gdb looks for a debuglink's file.
set(_fabcheck_debug "${CMAKE_CURRENT_BINARY_DIR}/fabcheck.debug")
set(_fabcheck_split [=[
  set(binary "@FABCHECK_BINARY@")
  set(debug "@FABCHECK_DEBUG@")
  if(NOT EXISTS "${debug}" OR "${binary}" IS_NEWER_THAN "${debug}")
    execute_process(COMMAND "@CMAKE_OBJCOPY@" --only-keep-debug --compress-debug-sections=zlib
                            "${binary}" "${debug}" RESULT_VARIABLE failed)
    if(failed)
      message(FATAL_ERROR "objcopy --only-keep-debug ${binary} failed")
    endif()
  endif()
]=])
string(REPLACE "@CMAKE_OBJCOPY@" "${CMAKE_OBJCOPY}" _fabcheck_split "${_fabcheck_split}")
string(REPLACE "@FABCHECK_DEBUG@" "${_fabcheck_debug}" _fabcheck_split "${_fabcheck_split}")
string(REPLACE "@FABCHECK_BINARY@" "$<TARGET_FILE:fabcheck>" _fabcheck_split "${_fabcheck_split}")

install(CODE "${_fabcheck_split}
  set(to \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  file(MAKE_DIRECTORY \"\${to}\")
  message(STATUS \"Installing: \${to}/fabcheck (stripped; debug information in fabcheck.debug)\")
  execute_process(COMMAND \"${CMAKE_OBJCOPY}\" --strip-all --add-gnu-debuglink=\${debug}
                          \"\${binary}\" \"\${to}/fabcheck\" RESULT_VARIABLE failed)
  if(failed)
    message(FATAL_ERROR \"objcopy --strip-all \${binary} failed\")
  endif()
  file(CHMOD \"\${to}/fabcheck\" PERMISSIONS OWNER_READ OWNER_WRITE OWNER_EXECUTE GROUP_READ
       GROUP_EXECUTE WORLD_READ WORLD_EXECUTE)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${to}/fabcheck\")"
  COMPONENT runtime)
install(CODE "${_fabcheck_split}
  set(to \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/lib/debug\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  file(MAKE_DIRECTORY \"\${to}\")
  message(STATUS \"Installing: \${to}/fabcheck.debug\")
  file(COPY_FILE \"\${debug}\" \"\${to}/fabcheck.debug\")
  file(CHMOD \"\${to}/fabcheck.debug\" PERMISSIONS OWNER_READ OWNER_WRITE GROUP_READ WORLD_READ)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${to}/fabcheck.debug\")"
  COMPONENT dbg)

# Data and scripts beside it.
install(DIRECTORY results/profiles/ DESTINATION "${FABCHECK_SHARE_DIR}/profiles"
        COMPONENT runtime FILES_MATCHING PATTERN "*.toml")
install(PROGRAMS scripts/slurm/fabcheck-slurm.sh scripts/slurm/prolog.sh scripts/slurm/epilog.sh
                 scripts/slurm/fabcheck-resume.sh scripts/slurm/healthcheck.sh
        DESTINATION "${FABCHECK_SHARE_DIR}/scripts/slurm" COMPONENT runtime)
install(FILES scripts/slurm/fabcheck-sweep.sbatch
        DESTINATION "${FABCHECK_SHARE_DIR}/scripts/slurm" COMPONENT runtime)
install(PROGRAMS scripts/k8s/fabcheck-node-action.sh
        DESTINATION "${FABCHECK_SHARE_DIR}/scripts/k8s" COMPONENT runtime)
install(FILES scripts/k8s/fabcheck-sweep-mpijob.yaml
        DESTINATION "${FABCHECK_SHARE_DIR}/scripts/k8s" COMPONENT runtime)
# Every helper the scheduler scripts source (a prolog that cannot source one fails, and Slurm
# drains the node with a bare "Prolog error").
file(GLOB FABCHECK_SCRIPT_LIBS CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/scripts/lib/*.sh")
install(FILES ${FABCHECK_SCRIPT_LIBS} DESTINATION "${FABCHECK_SHARE_DIR}/scripts/lib"
        COMPONENT runtime)
install(PROGRAMS scripts/mpirun.sh scripts/acceptance.sh scripts/fabcheck-report
        DESTINATION "${FABCHECK_SHARE_DIR}/scripts" COMPONENT runtime)
# The report renderer and the modules it imports (the reader, the plot checks): every
# scripts/fabcheck_*.py, so a module added later is never left out of the package.
file(GLOB FABCHECK_PYTHON_MODULES CONFIGURE_DEPENDS "${PROJECT_SOURCE_DIR}/scripts/fabcheck_*.py")
install(FILES ${FABCHECK_PYTHON_MODULES} DESTINATION "${FABCHECK_SHARE_DIR}/scripts"
        COMPONENT runtime)
install(FILES scripts/grafana/fabcheck-dashboard.json
        DESTINATION "${FABCHECK_SHARE_DIR}/grafana" COMPONENT runtime)
# fabcheck-report on the PATH: a relative link to the renderer (which finds its modules through
# its own resolved path).
install(CODE "
  set(bin \"\$ENV{DESTDIR}\${CMAKE_INSTALL_PREFIX}/${CMAKE_INSTALL_BINDIR}\")
  file(MAKE_DIRECTORY \"\${bin}\")
  file(CREATE_LINK \"../${FABCHECK_SHARE_DIR}/scripts/fabcheck-report\" \"\${bin}/fabcheck-report\"
       SYMBOLIC)
  list(APPEND CMAKE_INSTALL_MANIFEST_FILES \"\${bin}/fabcheck-report\")"
  COMPONENT runtime)
install(FILES README.md docs/architecture.md docs/cli.md docs/operations.md docs/profiles.md
              docs/testing.md
        DESTINATION "${CMAKE_INSTALL_DOCDIR}" COMPONENT runtime)
install(FILES docs/fabcheck.1 DESTINATION "${CMAKE_INSTALL_MANDIR}/man1" COMPONENT runtime)

# The Debian package: fabcheck (everything but the debug file) and fabcheck-dbg. Dependencies from
# dpkg-shlibdeps on the binary (MPI, HDF5, hwloc, liburing, fmt, libstdc++); mpirun and the report's
# Python recommended; NCCL and the CUDA libraries only suggested (opened when present).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fabcheck)
set(CPACK_PACKAGE_VENDOR "fabcheck")
set(CPACK_PACKAGE_CONTACT "fabcheck maintainers <fabcheck@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "GPU-cluster fabric validation: NVLink, PCIe, RDMA, NCCL collectives, storage; node gate")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_STRIP_FILES OFF)  # stripped above, with the debug file kept
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL runtime dbg)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_NAME fabcheck)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_RUNTIME_PACKAGE_RECOMMENDS "openmpi-bin, python3, python3-matplotlib")
set(CPACK_DEBIAN_RUNTIME_PACKAGE_SUGGESTS "libnccl2, python3-h5py, slurm-client")
set(CPACK_DEBIAN_DBG_PACKAGE_NAME fabcheck-dbg)
set(CPACK_DEBIAN_DBG_PACKAGE_DEPENDS "fabcheck (= ${PROJECT_VERSION})")
set(CPACK_DEBIAN_DBG_PACKAGE_SECTION debug)
set(CPACK_COMPONENT_RUNTIME_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}")
set(CPACK_COMPONENT_DBG_DESCRIPTION "fabcheck's debug information (for gdb; fabcheck.debug)")
include(CPack)
