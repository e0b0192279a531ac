/* Fuzz target: any bytes as the reference driver's capability profile (D12RT_REFDRV_PROFILE, drivers/reference/
 * refdrv_profile.h), for the retail or the preview flavor (the first byte chooses). Promises checked: loading
 * answers S_OK or E_INVALIDARG (a malformed profile fails to load, it never half-applies), a failed load leaves
 * nothing to free, and a loaded profile answers every feature of the caps tables in each of its layouts' sizes
 * (S_OK, or E_INVALIDARG for one the driver does not know) without writing past the size it was given. */
#define _GNU_SOURCE
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

#include "fuzz_input.h"
#include "refdrv_profile.h"

#define NAME "fuzz_profile"

static void answer_every_feature(const d12__refdrv_profile *profile)
{
    uint32_t count = 0;
    const d12_caps_feature *features = d12_caps_features(&count);
    for (uint32_t f = 0; f < count; f++)
        for (uint32_t l = 0; l < features[f].layout_count; l++) {
            UINT size = features[f].layouts[l].size;
            unsigned char *data = calloc(1, size ? size : 1); /* exactly `size`: a write past it is a report */
            HRESULT hr = d12__refdrv_profile_fill(profile, features[f].value, data, size);
            FUZZ_CHECK(NAME, hr == S_OK || hr == E_INVALIDARG);
            free(data);
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static FILE *errors;
    if (!errors)
        errors = fopen("/dev/null", "w");
    d12_caps_flavor flavor = size && (data[0] & 1) ? D12_CAPS_FLAVOR_PREVIEW : D12_CAPS_FLAVOR_RETAIL;
    int fd = memfd_create("profile", MFD_CLOEXEC);
    FUZZ_CHECK(NAME, fd >= 0);
    if (size > 1)
        FUZZ_CHECK(NAME, write(fd, data + 1, size - 1) == (ssize_t)(size - 1));
    char path[64];
    snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
    d12__refdrv_profile profile;
    HRESULT hr = d12__refdrv_profile_build(&profile, flavor, path, errors);
    close(fd);
    FUZZ_CHECK(NAME, hr == S_OK || hr == E_INVALIDARG);
    if (hr == S_OK) {
        answer_every_feature(&profile);
        d12__refdrv_profile_free(&profile);
    }
    return 0;
}
