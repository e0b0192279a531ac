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
    /* DDI build 0127 (BRIEF section 2): the token, the tables' prefixes and the WDK/D3DKMT values. */
    CHECK(D3D12DDI_SUPPORTED_0127 == 0x000C0050007F0000ull);
    CHECK_EQ_INT(D3D12DDI_VERSION_OF_SUPPORTED(D3D12DDI_SUPPORTED_0127), 127u << 16);
    CHECK_EQ_INT(sizeof(D3D12DDI_COMMAND_LIST_FUNCS_3D_0127), sizeof(D3D12DDI_COMMAND_LIST_FUNCS_3D_0126) + sizeof(void *));
    CHECK_EQ_INT(offsetof(D3D12DDI_COMMAND_LIST_FUNCS_3D_0127, pfnWriteBufferImmediate),
                 sizeof(D3D12DDI_COMMAND_LIST_FUNCS_3D_0126));
    CHECK_EQ_INT(offsetof(D3D12DDI_COMMAND_LIST_FUNCS_3D_0127, pfnResourceBarrier),
                 offsetof(D3D12DDI_COMMAND_LIST_FUNCS_3D_0126, pfnResourceBarrier));
    CHECK_EQ_INT(sizeof(D3D12DDI_KERNEL_THUNK_CALLBACKS_0127), 4 * sizeof(void *));
    CHECK_EQ_INT(offsetof(D3D12DDI_KERNEL_THUNK_CALLBACKS_0127, pfnDeviceFaultCb), sizeof(D3D12DDI_KERNEL_THUNK_CALLBACKS_0110));
    CHECK_EQ_INT(offsetof(D3D12DDIARG_CREATEDEVICE_0003, pKTCallbacks_0127), offsetof(D3D12DDIARG_CREATEDEVICE_0003, pKTCallbacks));
    CHECK_EQ_INT(sizeof(D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127), 16);
    CHECK_EQ_INT(offsetof(D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127, Value), 8);
    CHECK_EQ_INT(D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_DEFAULT, 0);
    CHECK_EQ_INT(D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_IN, 1);
    CHECK_EQ_INT(D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT, 2);
    CHECK_EQ_INT(D3D12DDI_DEVICE_EXECUTION_STATE_HUNG, 3);
    CHECK_EQ_INT(D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_DMAFAULT, 6);
    CHECK_EQ_INT(D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_DMAPAGEFAULT, 7);
    CHECK_EQ_INT(D3D12DDI_PAGE_FAULT_FLAG_WRITE, 1);
    CHECK(D3D12DDI_OP_INDEX_UNKNOWN == 0xFFFFFFFFu);
    CHECK(D3DDDIERR_DEVICEREMOVED == (HRESULT)0x88760870);
    CHECK(FAILED(D3DDDIERR_DEVICEREMOVED));
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
