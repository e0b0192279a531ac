/* fixture: the Vulkan driver including the reference driver and the shared code (allowed) */
#include "refdrv.h"
#include "drvcommon_va.h"
