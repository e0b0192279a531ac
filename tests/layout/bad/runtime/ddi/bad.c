/* fixture: the driver boundary climbing up into gpu/ (not allowed) and into the hub (allowed) */
#include "device.h"
#include "queue.h"
