/* d12conform, the corr.* tests: correlation: command-list state indices and the annotation. (one file per area;
 * conform.h says how to add one). */
#include "conform.h"

/* Item 4: "pfnSetCommandListStateIndex precedes every GPU-work call with a fresh index". */
static outcome t_corr_index_before_work(void)
{
    gpu g;
    ID3D12Device *device;
    if (!enabled_gpu(&g, &device))
        return FAIL;
    for (int i = 0; i < 3; i++) {
        record_work(&g);
        execute(&g);
        signal_and_wait(&g);
    }
    gpu_close(&g);
    ID3D12Device_Release(device);
    trace t = trace_read();
    static const char *work[] = {"pfnDrawInstanced", "pfnDrawIndexedInstanced", "pfnDispatch", "pfnCopyBufferRegion",
                                 "pfnCopyResource"};
    unsigned long long seen[4096];
    size_t seen_count = 0, checked = 0;
    for (size_t i = 0; i < t.count; i++) {
        bool is_work = false;
        for (size_t k = 0; k < sizeof work / sizeof work[0]; k++)
            is_work |= is(&t.r[i], work[k]);
        if (!is_work)
            continue;
        checked++;
        char list[32], prev_list[32];
        field(&t.r[i], "hDrvCommandList", list, sizeof list);
        const record *p = i > 0 ? &t.r[i - 1] : NULL;
        if (!p || !is(p, "pfnSetCommandListStateIndex") || !field(p, "hDrvCommandList", prev_list, sizeof prev_list) ||
            strcmp(prev_list, list) != 0) {
            fail("%s on %s was not directly preceded by pfnSetCommandListStateIndex for that list", t.r[i].name, list);
            continue;
        }
        unsigned long long index = field_u(p, "CommandListStateIndex");
        for (size_t s = 0; s < seen_count; s++)
            EXPECT(seen[s] != index, "state index 0x%llX was issued twice", index);
        if (seen_count < 4096)
            seen[seen_count++] = index;
    }
    EXPECT(checked >= 9, "only %zu GPU-work calls reached the driver", checked);
    trace_free(&t);
    return g_result;
}

/* The InfoQueue text of the driver messages, in order. */
static size_t driver_texts(ID3D12InfoQueue1 *q, char **out, size_t max)
{
    size_t n = 0;
    for (UINT64 i = 0; q && i < ID3D12InfoQueue1_GetNumStoredMessages(q) && n < max; i++) {
        D3D12_MESSAGE *m = stored(q, i);
        if (m && m->ID == D3D12_MESSAGE_ID_DRIVER_REPORTED_MESSAGE)
            out[n++] = strdup(m->pDescription);
        free(m);
    }
    return n;
}

typedef struct corr_run {
    trace t;
    char *texts[512];
    size_t text_count;
} corr_run;

/* An enabled device, the workload, and what it stored; the device is released afterwards. */
static bool corr_collect(corr_run *run)
{
    memset(run, 0, sizeof *run);
    if (!debug_settings(true, 1))
        return false;
    ID3D12Device *device = new_device();
    ID3D12InfoQueue1 *q = device ? info_queue(device) : NULL;
    if (!q)
        return false;
    workload(device);
    run->text_count = driver_texts(q, run->texts, 512);
    ID3D12InfoQueue1_Release(q);
    ID3D12Device_Release(device);
    run->t = trace_read();
    return true;
}

static void corr_free(corr_run *run)
{
    for (size_t i = 0; i < run->text_count; i++)
        free(run->texts[i]);
    trace_free(&run->t);
}

/* Accepted reports in order match the stored driver messages in order (nothing filtered here). */
static outcome corr_check(bool want_issued)
{
    corr_run run;
    if (!corr_collect(&run))
        return FAIL;
    size_t accepted = 0, exercised = 0;
    for (size_t i = 0; i < run.t.count; i++) {
        const record *r = &run.t.r[i];
        if (!is(r, "pfnReportMessageCb") || field_u(r, "hr") != 0)
            continue;
        size_t k = accepted++;
        char text[1100];
        if (k >= run.text_count || !field(r, "pDescription", text, sizeof text))
            continue;
        unsigned long long index = field_u(r, "CommandListStateIndex");
        bool was_issued = index != 0xFFFFFFFFull && issued(&run.t, i, index);
        /* made inside a call into the driver (a recording call, or the flush that retires its submission): within
         * the validity window; one from a driver thread of its own may be stale, so it is not judged */
        char in[96];
        bool fresh = was_issued && strcmp(inside(r, in, sizeof in), "-") != 0;
        if (want_issued && was_issued && fresh) {
            exercised++;
            size_t tl = strlen(text), sl = strlen(run.texts[k]);
            EXPECT(sl > tl && strcmp(run.texts[k] + sl - tl, text) == 0,
                   "a report with issued index 0x%llX was not annotated: \"%s\"", index, run.texts[k]);
        } else if (!want_issued && !was_issued) {
            exercised++;
            EXPECT(strcmp(run.texts[k], text) == 0, "a report with index 0x%llX (not issued) was modified: \"%s\"",
                   index, run.texts[k]);
        }
    }
    corr_free(&run);
    if (g_result == PASS && exercised == 0) {
        printf("    the driver made no report with %s index\n", want_issued ? "an issued" : "a 0xFFFFFFFF or unissued");
        return NOT_EXERCISED;
    }
    return g_result;
}

static outcome t_corr_annotated(void) { return corr_check(true); }
static outcome t_corr_unannotated(void) { return corr_check(false); }

const conform_test conform_tests_corr[] = {
    {"corr.index_before_work", "runtime", "The runtime calls pfnSetCommandListStateIndex on the driver before each draw, "
     "dispatch, or other GPU-work generating command list API call.", t_corr_index_before_work},
    {"corr.issued_annotated", "runtime", "When a message carries an index the runtime can still resolve, the runtime "
     "prefixes the driver's description with the identity of the command list", t_corr_annotated},
    {"corr.unissued_unmodified", "runtime", "Messages whose index is 0xFFFFFFFF, unknown, or no longer resolvable are "
     "surfaced unmodified.", t_corr_unannotated},
};
const size_t conform_tests_corr_count = sizeof conform_tests_corr / sizeof conform_tests_corr[0];
