/* The format query cases generated into generated/tests/format_cases.c by templates/format_cases.c.j2, with the
 * expected answers from generator/part_formats.py (docs/formats.md). */
#ifndef D12_FORMAT_CASES_H
#define D12_FORMAT_CASES_H

#include <stdint.h>

#include <wsl/winadapter.h>
#include <directx/d3d12.h>

typedef struct d12_format_case {
    UINT format;
    HRESULT info_hr;
    UINT8 planes;
    HRESULT support_hr;
    UINT support1;
    UINT support2;
    const char *name; /* NULL: the number is no DXGI format */
} d12_format_case;

typedef struct d12_quality_case {
    UINT format;
    UINT sample_count;
    HRESULT hr;
    UINT levels;
} d12_quality_case;

extern const d12_format_case d12_format_cases[];
extern const uint32_t d12_format_case_count;
extern const d12_quality_case d12_quality_cases[];
extern const uint32_t d12_quality_case_count;

#endif
