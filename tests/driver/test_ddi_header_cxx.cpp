// The same checks compiled as C++ (the header is included from C++ drivers).
#include <cstddef>
#include "test_ddi_header.c"
