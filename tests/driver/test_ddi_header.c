/* d3d12ddi.h compiles as C and as C++ (test_ddi_header_cxx.cpp includes this file) with -Wall -Wextra
 * -Werror, and its generated values are the WDK formulas' (ddi-shape.md section 1.1) and the spec's. */
#include <stddef.h>

#include "d12rt/d3d12ddi.h"
#include "harness.h"

/* The entry point's declaration has its PFN type (unevaluated: nothing links OpenAdapter12 here). */
#ifdef __cplusplus
#include <type_traits>
static_assert(std::is_same<decltype(&OpenAdapter12), PFND3D12DDI_OPENADAPTER>::value, "OpenAdapter12's type");
#define ENTRY_HAS_PFN_TYPE 1
#else
#define ENTRY_HAS_PFN_TYPE _Generic(&OpenAdapter12, PFND3D12DDI_OPENADAPTER: 1, default: 0)
#endif

int main(void)
{
    CHECK(ENTRY_HAS_PFN_TYPE);
    /* Interface = (12 << 16) | 80; SUPPORTED_xxxx = Interface << 32 | build << 16. */
    CHECK_EQ_INT(D3D12DDI_INTERFACE_VERSION_R8, 0x000C0050);
    CHECK(D3D12DDI_SUPPORTED_0110 == 0x000C0050006E0000ull);
    CHECK(D3D12DDI_SUPPORTED_0126 == 0x000C0050007E0000ull);
    CHECK_EQ_INT(D3D12DDI_INTERFACE_OF_SUPPORTED(D3D12DDI_SUPPORTED_0126), D3D12DDI_INTERFACE_VERSION_R8);
    CHECK_EQ_INT(D3D12DDI_VERSION_OF_SUPPORTED(D3D12DDI_SUPPORTED_0126), 126u << 16);
    const UINT64 versions[] = D12RT_DDI_SUPPORTED_VERSIONS;
    CHECK_EQ_INT(sizeof versions / sizeof versions[0], D12RT_DDI_SUPPORTED_VERSION_COUNT);
    CHECK(versions[0] < versions[D12RT_DDI_SUPPORTED_VERSION_COUNT - 1]);
    /* Handles are one pointer; the adapter table has the WDK's eight slots, the extended-features one three. */
    CHECK_EQ_INT(sizeof(D3D12DDI_HDEVICE), sizeof(void *));
    CHECK_EQ_INT(sizeof(D3D12DDI_HRTDEVICE), sizeof(void *));
    CHECK_EQ_INT(sizeof(D3D12DDI_ADAPTERFUNCS), 8 * sizeof(void *));
    CHECK_EQ_INT(sizeof(D3D12DDI_EXTENDED_FEATURES_FUNCS_0020), 3 * sizeof(void *));
    /* WDK values. */
    CHECK_EQ_INT(D3D12DDI_TABLE_TYPE_0020_EXTENDED_FEATURES, 8);
    CHECK_EQ_INT(D3D12DDI_FEATURE_0076_PIN_RESOURCES, 12);
    CHECK_EQ_INT(D3D12DDI_CREATE_DEVICE_FLAG_DEBUGGABLE, 2);
    CHECK_EQ_INT(D3D12DDICAPS_TYPE_D12RT_FEATURE_DATA, 0x0D120001);
    /* The callbacks table starts with pfnSetErrorCb, as the spec's _0126 table does. */
    CHECK_EQ_INT(offsetof(D3D12DDI_CORELAYER_DEVICECALLBACKS_0003, pfnSetErrorCb), 0);
    return d12test_finish();
}
