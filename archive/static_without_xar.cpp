// On pdx's and pdx-static's link lines (cmake/StaticLibarchive.cmake): libarchive's xar writer,
// which pdx never asks for, taken out of the link of libarchive.a. Its archive_write_set_format.o
// refers to every writer it can set by code, so the xar one would be linked, and with it libxml2
// and ICU's 30 MB of data; defined here, the linker takes this one and leaves
// archive_write_set_format_xar.o (and libxml2) out. A libarchive that comes to need more of xar
// fails the link loudly (a symbol defined twice), not at run time.
#include <archive.h>

#include <cerrno>

extern "C" int archive_write_set_format_xar(struct archive* a) {
  archive_set_error(a, EINVAL, "xar format not supported by pdx");
  return ARCHIVE_FATAL;
}
