/* fixture: the reference driver including the shared code (allowed) */
#include "drvcommon_va.h"
