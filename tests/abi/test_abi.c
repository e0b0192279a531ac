/* The ABI, pinned at compile time (issue 8 item 10; docs/abi.md).
 *
 * This file is written by hand and on purpose NOT generated from spec/: every number below is copied from the
 * specs' text (driver-reported-messages.txt, checkfeaturesupport1.txt, BRIEF's DDI 0127 contract) or is the slot
 * an application compiled today calls, so an edit of spec/ that moves one of them breaks the build here instead
 * of silently shipping. Moving one on purpose means editing this file too, in the same commit, with the reason.
 *
 * Generated companions (compiled into the same test): generated/tests/abi_ddi_layout.c (every DDI struct's size
 * and field offsets, computed by generator/part_abi.py from spec/ddi.yaml and spec/types.yaml's LP64 sizes) and
 * generated/tests/abi_values.c (every capability value the installed DirectX-Headers also declare). The test
 * program only reports how many assertions the build checked: compiling is the test. */
#define COBJMACROS
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>
#include <directx/d3d12sdklayers.h>
#include <d12rt/d3d12_ext.h>
#include <d12rt/d3d12ddi.h>

#include "harness.h"

static unsigned pinned; /* bumped once per PIN/SLOT below, at run time, to report the count */

#define PIN(expression, value)                                                                                 \
    do {                                                                                                       \
        _Static_assert((uint64_t)(expression) == (uint64_t)(value), #expression " == " #value);               \
        pinned++;                                                                                              \
    } while (0)

/* A method's vtable slot: its offset in the C vtable struct, in pointers. */
#define SLOT(interface, method, slot)                                                                          \
    do {                                                                                                       \
        _Static_assert(offsetof(interface##Vtbl, method) == (slot) * sizeof(void *), #interface "::" #method); \
        pinned++;                                                                                              \
    } while (0)

/* driver-reported-messages.txt */
static void pin_driver_reported_messages(void)
{
    /* "D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES = 32, // new" */
    PIN(D3D12DDI_FEATURE_0126_DRIVER_REPORTED_MESSAGES, 32);
    /* "D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES = 47, // new" */
    PIN(D3D12DDI_TABLE_TYPE_0126_DRIVER_REPORTED_MESSAGES, 47);
    /* "#define D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_NONE 0u" / "..._0 1u" */
    PIN(D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_NONE, 0u);
    PIN(D3D12DDI_FEATURE_VERSION_DRIVER_REPORTED_MESSAGES_0, 1u);
    /* "D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE = 1506," */
    PIN(D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE, 1506);
    /* The severities and categories, as the spec lists them. */
    PIN(D3D12DDI_MESSAGE_SEVERITY_0126_CORRUPTION, 0);
    PIN(D3D12DDI_MESSAGE_SEVERITY_0126_ERROR, 1);
    PIN(D3D12DDI_MESSAGE_SEVERITY_0126_WARNING, 2);
    PIN(D3D12DDI_MESSAGE_SEVERITY_0126_INFO, 3);
    PIN(D3D12DDI_MESSAGE_SEVERITY_0126_MESSAGE, 4);
    PIN(D3D12DDI_MESSAGE_CATEGORY_0126_APPLICATION_DEFINED, 0);
    PIN(D3D12DDI_MESSAGE_CATEGORY_0126_MISCELLANEOUS, 1);
    PIN(D3D12DDI_MESSAGE_CATEGORY_0126_INITIALIZATION, 2);
    PIN(D3D12DDI_MESSAGE_CATEGORY_0126_CLEANUP, 3);
    PIN(D3D12DDI_MESSAGE_CATEGORY_0126_COMPILATION, 4);
    PIN(D3D12DDI_MESSAGE_CATEGORY_0126_STATE_CREATION, 5);
    PIN(D3D12DDI_MESSAGE_CATEGORY_0126_STATE_SETTING, 6);
    PIN(D3D12DDI_MESSAGE_CATEGORY_0126_STATE_GETTING, 7);
    PIN(D3D12DDI_MESSAGE_CATEGORY_0126_RESOURCE_MANIPULATION, 8);
    PIN(D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, 9);
    PIN(D3D12DDI_MESSAGE_CATEGORY_0126_SHADER, 10);
    PIN(D3D12DDI_MESSAGE_CATEGORY_0126_STATE_OBJECT_DATABASE, 11);
    /* The API categories they surface as ("reuse the existing D3D12_MESSAGE_CATEGORY enum"): same numbers. */
    PIN(D3D12_MESSAGE_CATEGORY_EXECUTION, 9);
    PIN(D3D12_MESSAGE_CATEGORY_STATE_OBJECT_DATABASE, 11);
    PIN(D3D12_MESSAGE_SEVERITY_MESSAGE, 4);
    /* The mandatory initialization message: "CommandListStateIndex 0xFFFFFFFF — no command list is in scope". */
    PIN(D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126, 0xFFFFFFFFu);
}

/* The DDI versions: Interface = (major << 16) | minor, D3D12DDI_SUPPORTED_<build> = Interface << 32 | build << 16,
 * release R8 = 12.80; builds 0110, 0126 and 0127 (BRIEF section 2). */
static void pin_versions(void)
{
    PIN(D3D12DDI_MAJOR_VERSION, 12);
    PIN(D3D12DDI_MINOR_VERSION_R8, 80);
    PIN(D3D12DDI_INTERFACE_VERSION_R8, 0x000C0050u);
    PIN(D3D12DDI_BUILD_VERSION_0110, 110);
    PIN(D3D12DDI_BUILD_VERSION_0126, 126);
    PIN(D3D12DDI_BUILD_VERSION_0127, 127);
    PIN(D3D12DDI_SUPPORTED_0110, 0x000C0050006E0000ull);
    PIN(D3D12DDI_SUPPORTED_0126, 0x000C0050007E0000ull);
    PIN(D3D12DDI_SUPPORTED_0127, 0x000C0050007F0000ull);
    /* checkfeaturesupport1.txt's example runtime: "D3D12_SDK_VERSION is 620 and ... D3D12_PREVIEW_SDK_VERSION is 721" */
    PIN(D12RT_SDK_VERSION, 620);
    PIN(D12RT_PREVIEW_SDK_VERSION, 721);
}

/* BRIEF section 2: the DDI 0127 values ("the WDK's shape and values", "the D3DKMT numbers"). */
static void pin_ddi_0127(void)
{
    PIN(D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_DEFAULT, 0);
    PIN(D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_IN, 1);
    PIN(D3D12DDI_WRITEBUFFERIMMEDIATE_MODE_MARKER_OUT, 2);
    PIN(D3D12DDI_DEVICE_EXECUTION_STATE_HUNG, 3);
    PIN(D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_DMAFAULT, 6);
    PIN(D3D12DDI_DEVICE_EXECUTION_STATE_ERROR_DMAPAGEFAULT, 7);
    PIN(D3D12DDI_PAGE_FAULT_FLAG_WRITE, 0x1);
    PIN(D3D12DDI_OP_INDEX_UNKNOWN, 0xFFFFFFFFu);
    /* { UINT64 Dest; UINT32 Value; }: 16 bytes on LP64, Value at 8. */
    PIN(sizeof(D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127), 16);
    PIN(offsetof(D3D12DDI_WRITEBUFFERIMMEDIATE_PARAMETER_0127, Value), 8);
}

/* The vtable slot of every method of ID3D12Debug7 and ID3D12Device17. Slots 0..79 of ID3D12Device17 are
 * ID3D12Device11's (DirectX-Headers 1.606, the Windows ABI); CheckFeatureSupport1 is d12rt's frozen slot 80
 * (spec/com.yaml: ID3D12Device17 derives from ID3D12Device11). ID3D12Debug7's slots 0..9 are ID3D12Debug6's. */
static void pin_vtables(void)
{
    SLOT(ID3D12Debug7, QueryInterface, 0);
    SLOT(ID3D12Debug7, AddRef, 1);
    SLOT(ID3D12Debug7, Release, 2);
    SLOT(ID3D12Debug7, EnableDebugLayer, 3);
    SLOT(ID3D12Debug7, SetEnableGPUBasedValidation, 4);
    SLOT(ID3D12Debug7, SetEnableSynchronizedCommandQueueValidation, 5);
    SLOT(ID3D12Debug7, SetGPUBasedValidationFlags, 6);
    SLOT(ID3D12Debug7, DisableDebugLayer, 7);
    SLOT(ID3D12Debug7, SetEnableAutoName, 8);
    SLOT(ID3D12Debug7, SetForceLegacyBarrierValidation, 9);
    SLOT(ID3D12Debug7, SetEnableDriverReportedMessages, 10);
    SLOT(ID3D12Device17, QueryInterface, 0);
    SLOT(ID3D12Device17, AddRef, 1);
    SLOT(ID3D12Device17, Release, 2);
    SLOT(ID3D12Device17, GetPrivateData, 3);
    SLOT(ID3D12Device17, SetPrivateData, 4);
    SLOT(ID3D12Device17, SetPrivateDataInterface, 5);
    SLOT(ID3D12Device17, SetName, 6);
    SLOT(ID3D12Device17, GetNodeCount, 7);
    SLOT(ID3D12Device17, CreateCommandQueue, 8);
    SLOT(ID3D12Device17, CreateCommandAllocator, 9);
    SLOT(ID3D12Device17, CreateGraphicsPipelineState, 10);
    SLOT(ID3D12Device17, CreateComputePipelineState, 11);
    SLOT(ID3D12Device17, CreateCommandList, 12);
    SLOT(ID3D12Device17, CheckFeatureSupport, 13);
    SLOT(ID3D12Device17, CreateDescriptorHeap, 14);
    SLOT(ID3D12Device17, GetDescriptorHandleIncrementSize, 15);
    SLOT(ID3D12Device17, CreateRootSignature, 16);
    SLOT(ID3D12Device17, CreateConstantBufferView, 17);
    SLOT(ID3D12Device17, CreateShaderResourceView, 18);
    SLOT(ID3D12Device17, CreateUnorderedAccessView, 19);
    SLOT(ID3D12Device17, CreateRenderTargetView, 20);
    SLOT(ID3D12Device17, CreateDepthStencilView, 21);
    SLOT(ID3D12Device17, CreateSampler, 22);
    SLOT(ID3D12Device17, CopyDescriptors, 23);
    SLOT(ID3D12Device17, CopyDescriptorsSimple, 24);
    SLOT(ID3D12Device17, GetResourceAllocationInfo, 25);
    SLOT(ID3D12Device17, GetCustomHeapProperties, 26);
    SLOT(ID3D12Device17, CreateCommittedResource, 27);
    SLOT(ID3D12Device17, CreateHeap, 28);
    SLOT(ID3D12Device17, CreatePlacedResource, 29);
    SLOT(ID3D12Device17, CreateReservedResource, 30);
    SLOT(ID3D12Device17, CreateSharedHandle, 31);
    SLOT(ID3D12Device17, OpenSharedHandle, 32);
    SLOT(ID3D12Device17, OpenSharedHandleByName, 33);
    SLOT(ID3D12Device17, MakeResident, 34);
    SLOT(ID3D12Device17, Evict, 35);
    SLOT(ID3D12Device17, CreateFence, 36);
    SLOT(ID3D12Device17, GetDeviceRemovedReason, 37);
    SLOT(ID3D12Device17, GetCopyableFootprints, 38);
    SLOT(ID3D12Device17, CreateQueryHeap, 39);
    SLOT(ID3D12Device17, SetStablePowerState, 40);
    SLOT(ID3D12Device17, CreateCommandSignature, 41);
    SLOT(ID3D12Device17, GetResourceTiling, 42);
    SLOT(ID3D12Device17, GetAdapterLuid, 43);
    SLOT(ID3D12Device17, CreatePipelineLibrary, 44);
    SLOT(ID3D12Device17, SetEventOnMultipleFenceCompletion, 45);
    SLOT(ID3D12Device17, SetResidencyPriority, 46);
    SLOT(ID3D12Device17, CreatePipelineState, 47);
    SLOT(ID3D12Device17, OpenExistingHeapFromAddress, 48);
    SLOT(ID3D12Device17, OpenExistingHeapFromFileMapping, 49);
    SLOT(ID3D12Device17, EnqueueMakeResident, 50);
    SLOT(ID3D12Device17, CreateCommandList1, 51);
    SLOT(ID3D12Device17, CreateProtectedResourceSession, 52);
    SLOT(ID3D12Device17, CreateCommittedResource1, 53);
    SLOT(ID3D12Device17, CreateHeap1, 54);
    SLOT(ID3D12Device17, CreateReservedResource1, 55);
    SLOT(ID3D12Device17, GetResourceAllocationInfo1, 56);
    SLOT(ID3D12Device17, CreateLifetimeTracker, 57);
    SLOT(ID3D12Device17, RemoveDevice, 58);
    SLOT(ID3D12Device17, EnumerateMetaCommands, 59);
    SLOT(ID3D12Device17, EnumerateMetaCommandParameters, 60);
    SLOT(ID3D12Device17, CreateMetaCommand, 61);
    SLOT(ID3D12Device17, CreateStateObject, 62);
    SLOT(ID3D12Device17, GetRaytracingAccelerationStructurePrebuildInfo, 63);
    SLOT(ID3D12Device17, CheckDriverMatchingIdentifier, 64);
    SLOT(ID3D12Device17, SetBackgroundProcessingMode, 65);
    SLOT(ID3D12Device17, AddToStateObject, 66);
    SLOT(ID3D12Device17, CreateProtectedResourceSession1, 67);
    SLOT(ID3D12Device17, GetResourceAllocationInfo2, 68);
    SLOT(ID3D12Device17, CreateCommittedResource2, 69);
    SLOT(ID3D12Device17, CreatePlacedResource1, 70);
    SLOT(ID3D12Device17, CreateSamplerFeedbackUnorderedAccessView, 71);
    SLOT(ID3D12Device17, GetCopyableFootprints1, 72);
    SLOT(ID3D12Device17, CreateShaderCacheSession, 73);
    SLOT(ID3D12Device17, ShaderCacheControl, 74);
    SLOT(ID3D12Device17, CreateCommandQueue1, 75);
    SLOT(ID3D12Device17, CreateCommittedResource3, 76);
    SLOT(ID3D12Device17, CreatePlacedResource2, 77);
    SLOT(ID3D12Device17, CreateReservedResource2, 78);
    SLOT(ID3D12Device17, CreateSampler2, 79);
    SLOT(ID3D12Device17, CheckFeatureSupport1, 80);
}

extern const unsigned d12_abi_ddi_layout_assert_count, d12_abi_values_assert_count;

int main(void)
{
    pin_driver_reported_messages();
    pin_versions();
    pin_ddi_0127();
    pin_vtables();
    /* Everything above held at compile time; count it, so the test shows what it pinned. */
    CHECK_EQ_INT(pinned, 47 + 92); /* 47 PIN, 11 + 81 SLOT */
    CHECK(d12_abi_ddi_layout_assert_count > 100);
    CHECK(d12_abi_values_assert_count > 100);
    printf("pinned at compile time: %u spec values and vtable slots, %u DDI layout facts, %u header values\n", pinned,
           d12_abi_ddi_layout_assert_count, d12_abi_values_assert_count);
    for (unsigned i = 0; i < pinned + d12_abi_ddi_layout_assert_count + d12_abi_values_assert_count; i++)
        CHECK(1); /* one pass per compile-time assertion, for the summary line */
    return d12test_finish();
}
