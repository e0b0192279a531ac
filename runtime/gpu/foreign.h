/* Objects of one device used with another's (issue 17 item 7.11; docs/reliability.md, "Threat model"): a command list,
 * fence, allocator or resource of device A handed to a queue, list or call of device B. Each object keeps its own
 * device's driver handles, so passing one to another device's driver would have that driver dereference memory it
 * never allocated (the reference driver copied between the two devices' buffers). Windows' debug layer reports the
 * object and the call does nothing; d12rt does the same with the debug layer on or off (it costs one comparison, and a
 * call that reached the wrong driver could corrupt either device). */
#ifndef D12_FOREIGN_H
#define D12_FOREIGN_H

#include <stdbool.h>
#include <stdint.h>

#include "d12_messages.h"
#include "device.h"

/* Whether `theirs` (the device that made the object named `parameter`) is not `device`; when it is not, the debug
 * layer says so, naming `method` and what happens instead (`consequence`). */
static inline bool d12__foreign(struct d12_device *device, struct d12_device *theirs, const char *method,
                                const char *parameter, const char *consequence)
{
    if (__builtin_expect(theirs == device, 1))
        return false;
    d12__msg_object_of_another_device(device->info_queue, method, parameter,
                                      (unsigned long long)(uintptr_t)&theirs->com,
                                      (unsigned long long)(uintptr_t)&device->com, consequence);
    return true;
}

#endif
