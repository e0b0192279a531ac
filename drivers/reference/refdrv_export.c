/* libd12_refdrv.so's one export: the DDI entry point under the name the runtime dlsym()s (exports.map hides
 * everything else, so the driver's copy of libd12caps never interposes on the runtime's). */
#include "refdrv.h"

HRESULT APIENTRY OpenAdapter12(D3D12DDIARG_OPENADAPTER *args)
{
    return d12_refdrv_OpenAdapter12(args);
}
