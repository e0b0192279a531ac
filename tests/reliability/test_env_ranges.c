/* Every numeric environment value range-checked (issue 29; runtime/cfgfile/d12_envnum.h):
 *   test_env_ranges parse               the parser itself: digits only, 64 bits, hex only where asked
 *   test_env_ranges VARIABLE            one variable the runtime or the reference driver reads at device creation:
 *                                       a value past its range (past 32 or 64 bits, the way 4294967297 read as 1)
 *                                       gets exactly one line naming it and its range and the default applies; its
 *                                       largest value is taken silently.
 *   test_env_ranges fault_hook LIBRARY  D12RT_FAULT_ALLOC past 64 bits (set by CMake), read when LIBRARY
 *                                       (libd12rt_fi.so) loads: one line, the hook not armed.
 * One ctest each; the Vulkan driver's variables are tests/vulkan's (vulkan.lost.*, vulkan.device_index_*). */
#define _GNU_SOURCE
#define COBJMACROS
#include <dlfcn.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "d12_envnum.h"
#include "d12rt/d3d12_ext.h"
#include "gpu_harness.h"
#include "vulkan/stderr_capture.h"

static void test_parse(void)
{
    static const struct {
        const char *text;
        bool hex, ok;
        uint64_t value;
    } cases[] = {
        {"0", false, true, 0},
        {"4294967297", false, true, 4294967297ull},
        {"18446744073709551615", false, true, UINT64_MAX},
        {"18446744073709551616", false, false, 0},
        {"99999999999999999999999", false, false, 0},
        {"-1", false, false, 0},
        {"+1", false, false, 0},
        {" 1", false, false, 0},
        {"1 ", false, false, 0},
        {"1x", false, false, 0},
        {"0x10", false, false, 0},
        {"0x10", true, true, 16},
        {"0X8007000e", true, true, 0x8007000Eull},
        {"0xFFFFFFFFFFFFFFFF", true, true, UINT64_MAX},
        {"0x10000000000000000", true, false, 0},
        {"0x", true, false, 0},
        {"ff", true, false, 0}, /* hex needs its 0x: a bare "10" is ten */
        {"10", true, true, 10},
        {"", false, false, 0},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        uint64_t value = 12345;
        bool ok = d12_env_parse_u64(cases[i].text, cases[i].hex, &value);
        if (!CHECK(ok == cases[i].ok) || !CHECK(!ok || value == cases[i].value))
            fprintf(stderr, "    '%s' (hex %d): %d %llu\n", cases[i].text, cases[i].hex, ok, (unsigned long long)value);
    }
    /* Range and the line: below min, above max, in range, unset. */
    char text[512];
    stderr_capture capture;
    CHECK(stderr_capture_begin(&capture));
    uint64_t value = 7;
    setenv("D12_TEST_NUMBER", "4294967297", 1);
    CHECK_EQ_INT(d12_env_number("D12_TEST_NUMBER", "a count", 1, UINT32_MAX, false, &value, stderr, "who", "using 7"),
                 D12_ENV_REFUSED);
    setenv("D12_TEST_NUMBER", "0", 1);
    CHECK_EQ_INT(d12_env_number("D12_TEST_NUMBER", "a count", 1, 9, false, &value, NULL, "who", "x"), D12_ENV_REFUSED);
    setenv("D12_TEST_NUMBER", "9", 1);
    CHECK_EQ_INT(d12_env_number("D12_TEST_NUMBER", "a count", 1, 9, false, &value, stderr, "who", "x"), D12_ENV_NUMBER);
    CHECK(value == 9);
    unsetenv("D12_TEST_NUMBER");
    CHECK_EQ_INT(d12_env_number("D12_TEST_NUMBER", "a count", 1, 9, false, &value, stderr, "who", "x"), D12_ENV_UNSET);
    stderr_capture_end(&capture, text, sizeof text);
    CHECK_EQ_STR(text, "who: D12_TEST_NUMBER=4294967297 is not a count from 1 to 4294967295; using 7\n");
}

/* A variable read at device creation (or at the reference driver's adapter open): its refusal line and its maximum. */
typedef struct variable_case {
    const char *name, *too_large, *largest, *line;
} variable_case;

static const variable_case k_variables[] = {
    {"D12RT_TDR_DELAY_MS", "4294967297", "3600000",
     "d12rt: D12RT_TDR_DELAY_MS=4294967297 is not a whole number of milliseconds from 1 to 3600000; using 2000\n"},
    {"D12RT_STALL_MS", "4294967297", NULL, /* the largest needs D12RT_DRED_DUMP: dred.stall_* */
     "d12rt: D12RT_STALL_MS=4294967297 is not a whole number of milliseconds from 1 to 3600000; the stall detector "
     "stays off\n"},
    {"D12RT_MAX_LIVE_STATE_INDICES", "4294967297", "4194304",
     "d12rt: warning: D12RT_MAX_LIVE_STATE_INDICES=4294967297 is not a whole number from 1 to 4194304; using 65536\n"},
    {"D12RT_REFDRV_SET_ERROR", "0x100000000", NULL, /* any HRESULT in range removes the device: refdrv.set_error */
     "d12rt reference driver: D12RT_REFDRV_SET_ERROR=0x100000000 is not an HRESULT from 0 to 4294967295; ignored\n"},
    {"D12RT_REFDRV_EXEC_DELAY_MS", "4294967297", "0",
     "d12rt reference driver: D12RT_REFDRV_EXEC_DELAY_MS=4294967297 is not a whole number of milliseconds from 0 to "
     "60000; ignored\n"},
    {"D12RT_REFDRV_PS_PER_VERTEX", "18446744073709551616", "1000000000000",
     "d12rt reference driver: D12RT_REFDRV_PS_PER_VERTEX=18446744073709551616 is not a whole number from 0 to "
     "1000000000000; using 1000\n"},
    {"D12RT_REFDRV_NS_PER_COMMAND", "1000000000001", "1000000000000",
     "d12rt reference driver: D12RT_REFDRV_NS_PER_COMMAND=1000000000001 is not a whole number from 0 to 1000000000000; "
     "using 100\n"},
};

/* What creating (and releasing) a device wrote on stderr with `name`=`value`; with the debug layer and
 * driver-reported messages on, so the correlation table (D12RT_MAX_LIVE_STATE_INDICES) is made too. */
static const char *creation_stderr(const char *name, const char *value)
{
    static char text[8192];
    setenv(name, value, 1);
    ID3D12Debug7 *debug = NULL;
    if (CHECK_HR(D3D12GetDebugInterface(&IID_ID3D12Debug7, (void **)&debug), S_OK)) {
        ID3D12Debug7_SetEnableDriverReportedMessages(debug, TRUE);
        ID3D12Debug7_Release(debug);
    }
    stderr_capture capture;
    CHECK(stderr_capture_begin(&capture));
    ID3D12Device *device = create_device(true);
    if (device)
        ID3D12Device_Release(device);
    stderr_capture_end(&capture, text, sizeof text);
    CHECK(device != NULL);
    return text;
}

static void test_variable(const variable_case *v)
{
    const char *text = creation_stderr(v->name, v->too_large);
    const char *at = strstr(text, v->line);
    if (!CHECK(at != NULL))
        fprintf(stderr, "    expected: %s", v->line);
    CHECK(at == NULL || strstr(at + strlen(v->line), v->name) == NULL); /* one line, once */
    if (v->largest) {
        text = creation_stderr(v->name, v->largest);
        CHECK(strstr(text, v->name) == NULL);
    }
}

/* libd12rt_fi.so reads D12RT_FAULT_ALLOC (set past 64 bits by CMake) when it loads: refused, so not armed. */
static void test_fault_hook(const char *library_path)
{
    char text[1024];
    stderr_capture capture;
    CHECK(stderr_capture_begin(&capture));
    void *library = dlopen(library_path, RTLD_NOW | RTLD_LOCAL);
    stderr_capture_end(&capture, text, sizeof text);
    if (!CHECK(library != NULL))
        return;
    CHECK_EQ_STR(text, "d12rt: D12RT_FAULT_ALLOC=18446744073709551616 is not a call number (0: off) from 0 to "
                       "18446744073709551615; ignored\n");
    PFN_D3D12_CREATE_DEVICE create = (PFN_D3D12_CREATE_DEVICE)dlsym(library, "D3D12CreateDevice");
    ID3D12Device *device = NULL;
    if (CHECK(create != NULL)) /* saturated to UINT64_MAX or wrapped, it would still be armed; refused, it is not */
        CHECK_HR(create(NULL, D3D_FEATURE_LEVEL_11_0, &IID_ID3D12Device, (void **)&device), S_OK);
    if (device)
        CHECK_EQ_INT(ID3D12Device_Release(device), 0);
    uint64_t (*injected)(void) = (uint64_t(*)(void))dlsym(library, "d12_fault_injected");
    if (CHECK(injected != NULL))
        CHECK(injected() == 0);
}

int main(int argc, char **argv)
{
    if (argc == 2 && strcmp(argv[1], "parse") == 0)
        test_parse();
    else if (argc == 3 && strcmp(argv[1], "fault_hook") == 0)
        test_fault_hook(argv[2]);
    else {
        size_t i = 0, n = sizeof k_variables / sizeof k_variables[0];
        while (argc == 2 && i < n && strcmp(argv[1], k_variables[i].name) != 0)
            i++;
        if (argc != 2 || i == n) {
            fprintf(stderr, "usage: test_env_ranges parse|VARIABLE|fault_hook LIBRARY\n");
            return 2;
        }
        test_variable(&k_variables[i]);
    }
    return d12test_finish();
}
