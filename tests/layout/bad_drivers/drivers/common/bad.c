/* fixture: the drivers' shared code reaching into one driver (not allowed) and its own header (allowed) */
#include "drvcommon_va.h"
#include "refdrv.h"
