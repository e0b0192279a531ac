/* Runs every exhaustive clamp case (generated/tests/caps_exhaustive_cases.c, expected results from the
 * independent oracle generator/oracle.py) against libd12caps, the way CheckFeatureSupport1 uses it:
 * d12_caps_resolve_version, d12_caps_check_query on the layout's size, then d12_caps_clamp on a buffer of exactly
 * that size holding the true value. Each case checks the status, the field's value, that no other byte changed
 * (nor any byte past the struct), and that the report callback fired once with the right before/after exactly when
 * the value changed. Built against the production tables (caps_exhaustive) and the fixture spec
 * tests/fixtures/future-spec (caps_exhaustive_future). */
#include <stdalign.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "caps_exhaustive_cases.h"
#include "d12caps.h"
#include "harness.h"

enum { MAX_PRINTED = 20, CANARY = 32, MAX_STRUCT = 512 };

typedef struct report_log {
    unsigned count;
    d12_caps_clamp_report last;
    const d12_caps_field *field; /* copied out of the report, which lives only during the call */
    const d12_caps_feature *feature;
} report_log;

static void on_report(void *context, const d12_caps_clamp_report *report)
{
    report_log *log = context;
    log->count++;
    log->last = *report;
    log->field = report->field;
    log->feature = report->feature;
}

static unsigned mismatches;

/* Record one case in the harness's tally; print the first MAX_PRINTED failures compactly. */
static void record_case(int ok, const d12_caps_exhaustive_group *g, const d12_caps_exhaustive_version *v,
                        int64_t true_value, const char *what, long long expected, long long actual)
{
    if (ok) {
        d12test_passed++;
        return;
    }
    d12test_failed++;
    if (mismatches++ < MAX_PRINTED)
        fprintf(stderr, "mismatch: %s %s runtime, SDKVersion %u, true %lld: %s expected %lld, got %lld\n", g->name,
                v->flavor == D12_CAPS_FLAVOR_RETAIL ? "retail" : "preview", v->requested, (long long)true_value,
                what, expected, actual);
}

static uint8_t sentinel(size_t i)
{
    return (uint8_t)(0xA5u ^ (i * 0x3Du));
}

static void fill(uint8_t *buffer, size_t bytes)
{
    for (size_t i = 0; i < bytes; i++)
        buffer[i] = sentinel(i);
}

static void put32(uint8_t *buffer, UINT offset, int64_t value)
{
    uint32_t bits = (uint32_t)value;
    memcpy(buffer + offset, &bits, sizeof bits);
}

static uint32_t get32(const uint8_t *buffer, UINT offset)
{
    uint32_t bits;
    memcpy(&bits, buffer + offset, sizeof bits);
    return bits;
}

/* The struct as the caller hands it over: sentinel bytes, the layout's other clamped fields zero (0 reads as 0
 * under every rule), the caller's level list for FEATURE_LEVELS, and the driver's true value in the field. */
static void prepare(uint8_t *buffer, const d12_caps_exhaustive_group *g, int64_t true_value)
{
    fill(buffer, g->size + CANARY);
    for (uint32_t i = 0; i < g->quiet_count; i++)
        put32(buffer, d12_caps_exhaustive_quiet[g->quiet_first + i], 0);
    if (g->kind == D12_CAPS_FIELD_FEATURE_LEVEL && g->feature == D3D12_FEATURE_FEATURE_LEVELS) {
        UINT count = d12_caps_exhaustive_level_count;
        const D3D_FEATURE_LEVEL *list = d12_caps_exhaustive_levels;
        memcpy(buffer + offsetof(D3D12_FEATURE_DATA_FEATURE_LEVELS, NumFeatureLevels), &count, sizeof count);
        memcpy(buffer + offsetof(D3D12_FEATURE_DATA_FEATURE_LEVELS, pFeatureLevelsRequested), &list, sizeof list);
    }
    put32(buffer, g->offset, true_value);
}

static const d12_caps_field *library_field(const d12_caps_exhaustive_group *g, d12_caps_version version)
{
    const d12_caps_feature *feature = d12_caps_find_feature(g->feature);
    const d12_caps_layout *layout = feature ? d12_caps_layout_for_size(feature, g->size, version) : NULL;
    if (!layout)
        return NULL;
    for (uint32_t i = 0; i < layout->field_count; i++)
        if (layout->fields[i].offset == g->offset)
            return &layout->fields[i];
    return NULL;
}

static void run_case(const d12_caps_exhaustive_group *g, const d12_caps_exhaustive_version *v,
                     const d12_caps_exhaustive_row *row, uint32_t index, d12_caps_version version)
{
    alignas(16) uint8_t buffer[MAX_STRUCT + CANARY], want[MAX_STRUCT + CANARY];
    int64_t true_value = d12_caps_exhaustive_values[g->value_first + index];

    prepare(buffer, g, true_value);
    memcpy(want, buffer, g->size + CANARY);

    if (row->status != D12_CAPS_OK) {
        /* Rejected before the driver is asked: nothing may touch the data. */
        record_case(memcmp(buffer, want, g->size + CANARY) == 0, g, v, true_value, "untouched data", 1, 0);
        return;
    }

    int64_t expected = d12_caps_exhaustive_expected[row->expected_first + index];
    put32(want, g->offset, expected);

    report_log log = {0};
    d12_caps_status status = d12_caps_clamp(g->feature, buffer, g->size, version, on_report, &log);
    if (status != D12_CAPS_OK) {
        record_case(0, g, v, true_value, "d12_caps_clamp status", D12_CAPS_OK, status);
        return;
    }
    uint32_t got = get32(buffer, g->offset);
    if (got != (uint32_t)expected) {
        record_case(0, g, v, true_value, "value", expected, (int32_t)got);
        return;
    }
    if (memcmp(buffer, want, g->size + CANARY) != 0) {
        size_t at = 0;
        while (buffer[at] == want[at])
            at++;
        record_case(0, g, v, true_value, "untouched byte at offset", (long long)at, (long long)at);
        return;
    }
    unsigned want_reports = expected != true_value ? 1 : 0;
    if (log.count != want_reports) {
        record_case(0, g, v, true_value, "report count", want_reports, log.count);
        return;
    }
    if (want_reports) {
        /* Reports carry int64 values; compare them as the 4-byte field they stand for. */
        if ((uint32_t)log.last.before != (uint32_t)true_value) {
            record_case(0, g, v, true_value, "report.before", true_value, log.last.before);
            return;
        }
        if ((uint32_t)log.last.after != (uint32_t)expected) {
            record_case(0, g, v, true_value, "report.after", expected, log.last.after);
            return;
        }
        if (!log.field || log.field->offset != g->offset || !log.feature || log.feature->value != g->feature) {
            record_case(0, g, v, true_value, "report.field offset", g->offset, log.field ? (long long)log.field->offset : -1LL);
            return;
        }
        if (log.last.version.number != v->number || log.last.version.line != v->line ||
            log.last.version.requested != v->requested) {
            record_case(0, g, v, true_value, "report.version.number", v->number, log.last.version.number);
            return;
        }
    }

    /* The per-value rule, as tools see it, must agree with the in-place clamp. */
    const d12_caps_field *field = library_field(g, version);
    if (!field || !field->enumeration) {
        record_case(0, g, v, true_value, "field with an enumeration in the tables", 1, 0);
        return;
    }
    int64_t single = d12_caps_clamp_value(field->kind, field->enumeration, true_value, version,
                                          d12_caps_exhaustive_levels, d12_caps_exhaustive_level_count);
    record_case((uint32_t)single == (uint32_t)expected, g, v, true_value, "d12_caps_clamp_value", expected, single);
}

/* A better GPU never reads as less (docs/clamping.md 3, issue 8 item 4): over one row's probe values, the
 * library's answers never exceed the true value and never decrease as it grows (ordered kinds: the probes are
 * increasing), and for flags a subset of the true bits never reads as more than its superset. */
static void check_row_monotonic(const d12_caps_exhaustive_group *g, const d12_caps_exhaustive_version *v,
                                d12_caps_version version)
{
    const d12_caps_field *field = library_field(g, version);
    if (!field || !field->enumeration)
        return; /* run_case reports the missing field */
    int64_t got[64];
    uint32_t count = g->value_count < 64 ? g->value_count : 64;
    const int64_t *probes = &d12_caps_exhaustive_values[g->value_first];
    for (uint32_t i = 0; i < count; i++)
        got[i] = d12_caps_clamp_value(field->kind, field->enumeration, probes[i], version, d12_caps_exhaustive_levels,
                                      d12_caps_exhaustive_level_count);
    for (uint32_t i = 0; i < count; i++) {
        if (g->kind == D12_CAPS_FIELD_FLAGS) {
            record_case((got[i] & ~probes[i]) == 0, g, v, probes[i], "monotonic: no bit the GPU lacks", 0,
                        got[i] & ~probes[i]);
            for (uint32_t j = 0; j < count; j++) {
                if ((probes[i] & ~probes[j]) == 0)
                    record_case((got[i] & ~got[j]) == 0, g, v, probes[i], "monotonic: subset reads as subset of",
                                probes[j], got[i]);
            }
            continue;
        }
        record_case(got[i] <= probes[i], g, v, probes[i], "monotonic: never above the true value", probes[i], got[i]);
        if (i > 0)
            record_case(probes[i - 1] < probes[i] && got[i - 1] <= got[i], g, v, probes[i],
                        "monotonic: not below the answer for a lower true value", got[i - 1], got[i]);
    }
}

int main(void)
{
    uint32_t cases = 0;
    uint32_t expected_rows = d12_caps_exhaustive_group_count * d12_caps_exhaustive_version_count;
    CHECK_EQ_INT(d12_caps_exhaustive_row_count, expected_rows);

    for (uint32_t r = 0; r < d12_caps_exhaustive_row_count; r++) {
        const d12_caps_exhaustive_row *row = &d12_caps_exhaustive_rows[r];
        const d12_caps_exhaustive_group *g = &d12_caps_exhaustive_groups[row->group];
        const d12_caps_exhaustive_version *v = &d12_caps_exhaustive_versions[row->version];
        if (g->size > MAX_STRUCT) {
            record_case(0, g, v, 0, "struct size at most", MAX_STRUCT, g->size);
            continue;
        }

        /* 1. Resolve the requested version; a rejected one leaves the output untouched. */
        d12_caps_version version, untouched;
        memset(&version, 0xCD, sizeof version);
        memcpy(&untouched, &version, sizeof version);
        d12_caps_status status = d12_caps_resolve_version(v->flavor, v->requested, &version);
        int resolve_ok = status == v->status;
        if (resolve_ok && status == D12_CAPS_OK)
            resolve_ok = version.requested == v->requested && version.number == v->number && version.line == v->line;
        if (resolve_ok && status != D12_CAPS_OK)
            resolve_ok = memcmp(&version, &untouched, sizeof version) == 0;

        /* 2. Check the query: the layout's size must be valid at the resolved version. */
        d12_caps_status query = status;
        if (resolve_ok && status == D12_CAPS_OK) {
            query = d12_caps_check_query(g->feature, g->size, version);
            const d12_caps_feature *feature = d12_caps_find_feature(g->feature);
            const d12_caps_layout *layout = feature ? d12_caps_layout_for_size(feature, g->size, version) : NULL;
            if ((layout != NULL) != (query == D12_CAPS_OK))
                resolve_ok = 0;
        }

        if (resolve_ok && query == D12_CAPS_OK && row->status == D12_CAPS_OK)
            check_row_monotonic(g, v, version);
        for (uint32_t i = 0; i < g->value_count; i++, cases++) {
            int64_t true_value = d12_caps_exhaustive_values[g->value_first + i];
            if (!resolve_ok) {
                record_case(0, g, v, true_value, "d12_caps_resolve_version status/number", v->status, status);
                continue;
            }
            if (query != row->status) {
                record_case(0, g, v, true_value, "query status", row->status, query);
                continue;
            }
            /* 3. Clamp (OK rows) or make sure nothing touched the data (rejected rows). */
            run_case(g, v, row, i, version);
        }
    }

    CHECK_EQ_INT(cases, d12_caps_exhaustive_case_count);
    if (mismatches > MAX_PRINTED)
        fprintf(stderr, "... and %u more mismatches\n", mismatches - MAX_PRINTED);
    printf("%u exhaustive cases (%u groups x %u versions)\n", cases, d12_caps_exhaustive_group_count,
           d12_caps_exhaustive_version_count);
    return d12test_finish();
}
