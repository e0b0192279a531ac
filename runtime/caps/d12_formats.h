/* The DXGI_FORMAT table (spec/formats.yaml -> generated/caps/d12_formats.c): every format's name, plane count and
 * the support a feature-level-12 software adapter (WARP) reports for it. docs/formats.md says who reads what: the
 * runtime answers D3D12_FEATURE_FORMAT_INFO from the plane counts (a property of the format) and validates the
 * format queries; the reference driver answers FORMAT_SUPPORT and MULTISAMPLE_QUALITY_LEVELS from the support
 * columns (a property of the adapter). Lookups only: no allocation, no locking. */
#ifndef D12_FORMATS_H
#define D12_FORMATS_H

#include <stdint.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct d12_format_info {
    const char *name;  /* DXGI_FORMAT_... */
    UINT value;
    UINT8 planes;      /* FORMAT_INFO's PlaneCount; 0: not a D3D12 format (R1_UNORM): E_INVALIDARG */
    UINT support1;     /* D3D12_FORMAT_SUPPORT1 flags; 0 with support2 0: not supported (FORMAT_SUPPORT E_FAIL) */
    UINT support2;     /* D3D12_FORMAT_SUPPORT2 flags */
} d12_format_info;

/* The format with this DXGI_FORMAT number, or NULL for a number that is no DXGI format. */
const d12_format_info *d12_format_find(UINT format);

/* Every format, by increasing number; *count receives how many. */
const d12_format_info *d12_formats(uint32_t *count);

/* The quality levels the adapter has for `format` at `sample_count` (2, 4, 8, 16, 32) when the format
 * multisamples (D3D12_FORMAT_SUPPORT1_MULTISAMPLE_RENDERTARGET); 0 otherwise, and for any other count. */
UINT d12_format_adapter_quality_levels(const d12_format_info *format, UINT sample_count);

#ifdef __cplusplus
}
#endif

#endif /* D12_FORMATS_H */
