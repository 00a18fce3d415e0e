# Run by `cmake --install` (an install(CODE) rule of CMakeLists.txt), which
# sets SG_PC_*: writes slicegen.pc for the prefix being installed to
# (CMAKE_INSTALL_PREFIX here is --prefix, or /usr under cpack) and installs
# it to LIBDIR/pkgconfig.
set(prefix "${CMAKE_INSTALL_PREFIX}")
foreach(dir LIBDIR INCLUDEDIR)
  if(IS_ABSOLUTE "${SG_PC_${dir}}")
    set(pc_${dir} "${SG_PC_${dir}}")
  else()
    set(pc_${dir} "\${prefix}/${SG_PC_${dir}}")
  endif()
endforeach()
configure_file("${SG_PC_TEMPLATE}" "${SG_PC_BUILD}/pkgconfig/slicegen.pc" @ONLY)
if(IS_ABSOLUTE "${SG_PC_LIBDIR}")
  set(pc_destination "${SG_PC_LIBDIR}/pkgconfig")
else()
  set(pc_destination "${CMAKE_INSTALL_PREFIX}/${SG_PC_LIBDIR}/pkgconfig")
endif()
file(INSTALL "${SG_PC_BUILD}/pkgconfig/slicegen.pc" DESTINATION "${pc_destination}")
