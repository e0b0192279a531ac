/* Vulkan validation as driver-reported messages (docs/vulkan.md). The validation layer calls the messenger on
 * the thread whose Vulkan call caused the message: inside the vkCmd* of a recording call, or inside
 * vkQueueSubmit2 on a timeline. The messenger never calls the runtime: it queues the message on that thread, and
 * the driver reports it right after the Vulkan call returns (a recording call: at once, category STATE_SETTING,
 * the CommandListStateIndex of the op being recorded) or holds it for the next flush (a timeline: category
 * EXECUTION, the index from the op's "d12op N" debug label when the layer gives one, else 0xFFFFFFFF).
 * VendorMessageId = 0x0D12000100000000 | (uint32_t)messageIdNumber; the description is the layer's text, followed
 * by the D3D12 names of the buffers it names (version 2, vkdrv_messages.c). A SYNC-* message is SYNCHRONIZATION,
 * every other GENERAL: one whose category is off is dropped here. */
#define _POSIX_C_SOURCE 200809L

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vkdrv.h"

typedef struct queued {
    struct queued *next;
    UINT64 id;
    D3D12DDI_MESSAGE_SEVERITY_0126 severity;
    UINT32 label_index;
    UINT category; /* v2: SYNCHRONIZATION for a synchronization hazard, else GENERAL (vkdrv_messages.c) */
    uint64_t buffers[D12_VKDRV_MAX_NAMED_OBJECTS]; /* the VkBuffers the message names (their D3D12 names added) */
    unsigned buffer_count;
    char *text;
} queued;

static _Thread_local queued *t_head, **t_tail;
static _Thread_local UINT32 t_scope = D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126;

const char *d12__vkdrv_validation_name(d12__vkdrv_validation mode)
{
    static const char *const k_names[] = {"off", "core", "sync", "gpuav"};
    return k_names[mode];
}

bool d12__vkdrv_validation_instance(d12__vkdrv_validation mode, VkInstanceCreateInfo *info,
                                    VkValidationFeaturesEXT *features)
{
    static const char *const k_layer = "VK_LAYER_KHRONOS_validation";
    static const VkValidationFeatureEnableEXT k_sync[] = {VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    /* gpuav loads synchronization validation too: its SupportedFlags include SYNCHRONIZATION (issue 18). */
    static const VkValidationFeatureEnableEXT k_gpuav[] = {VK_VALIDATION_FEATURE_ENABLE_GPU_ASSISTED_EXT,
                                                           VK_VALIDATION_FEATURE_ENABLE_SYNCHRONIZATION_VALIDATION_EXT};
    uint32_t count = 0;
    if (vkEnumerateInstanceLayerProperties(&count, NULL) != VK_SUCCESS)
        return false;
    VkLayerProperties *layers = calloc(count ? count : 1, sizeof *layers);
    bool found = false;
    if (layers && vkEnumerateInstanceLayerProperties(&count, layers) == VK_SUCCESS) {
        for (uint32_t i = 0; i < count && !found; i++)
            found = strcmp(layers[i].layerName, k_layer) == 0;
    }
    free(layers);
    if (!found)
        return false;
    info->enabledLayerCount = 1;
    info->ppEnabledLayerNames = &k_layer;
    memset(features, 0, sizeof *features);
    features->sType = VK_STRUCTURE_TYPE_VALIDATION_FEATURES_EXT;
    if (mode == D12_VKDRV_VALIDATION_SYNC) {
        features->enabledValidationFeatureCount = 1;
        features->pEnabledValidationFeatures = k_sync;
    } else if (mode == D12_VKDRV_VALIDATION_GPUAV) {
        features->enabledValidationFeatureCount = 2;
        features->pEnabledValidationFeatures = k_gpuav;
    }
    features->pNext = info->pNext;
    info->pNext = features;
    return true;
}

/* "d12op N" among the command buffer labels the layer passes (only when the message's first object is the
 * command buffer). */
static UINT32 label_index(const VkDebugUtilsMessengerCallbackDataEXT *data)
{
    for (uint32_t i = data->cmdBufLabelCount; i-- > 0;) {
        unsigned index;
        if (data->pCmdBufLabels[i].pLabelName && sscanf(data->pCmdBufLabels[i].pLabelName, "d12op %u", &index) == 1)
            return index;
    }
    return D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126;
}

VkBool32 VKAPI_PTR d12__vkdrv_messenger(VkDebugUtilsMessageSeverityFlagBitsEXT severity,
                                        VkDebugUtilsMessageTypeFlagsEXT types,
                                        const VkDebugUtilsMessengerCallbackDataEXT *data, void *user)
{
    (void)types;
    (void)user;
    queued *message = calloc(1, sizeof *message);
    const char *text = data && data->pMessage ? data->pMessage : "(no text)";
    if (!message || !(message->text = strdup(text))) {
        free(message);
        return VK_FALSE; /* out of memory: the message is lost, the Vulkan call is not disturbed */
    }
    message->id = D12_VKDRV_MSG_VALIDATION_BASE | (uint32_t)(data ? data->messageIdNumber : 0);
    message->severity = severity & VK_DEBUG_UTILS_MESSAGE_SEVERITY_ERROR_BIT_EXT ? D3D12DDI_MESSAGE_SEVERITY_0126_ERROR
                                                                                 : D3D12DDI_MESSAGE_SEVERITY_0126_WARNING;
    message->label_index = data ? label_index(data) : D3D12DDI_COMMAND_LIST_STATE_INDEX_NONE_0126;
    message->category = d12__vkdrv_validation_category(data ? data->pMessageIdName : NULL);
    for (uint32_t i = 0; data && i < data->objectCount && message->buffer_count < D12_VKDRV_MAX_NAMED_OBJECTS; i++) {
        if (data->pObjects[i].objectType == VK_OBJECT_TYPE_BUFFER)
            message->buffers[message->buffer_count++] = data->pObjects[i].objectHandle;
    }
    if (!t_tail)
        t_tail = &t_head;
    *t_tail = message;
    t_tail = &message->next;
    return VK_FALSE;
}

void d12__vkdrv_validation_scope(UINT32 state_index)
{
    t_scope = state_index;
}

void d12__vkdrv_validation_drain(d12__vkdrv_device *device, bool now)
{
    queued *messages = t_head;
    t_head = NULL;
    t_tail = &t_head;
    for (queued *m = messages, *next; m; m = next) {
        next = m->next;
        if (device->adapter->strict) {
            fprintf(stderr, "d12rt Vulkan driver: D12RT_VULKAN_VALIDATION_STRICT: %s\n", m->text);
            abort();
        }
        /* v2: a category that is off is dropped before its buffers are named (the layer's cost remains) */
        char *named = d12__vkdrv_reporting(device, m->category)
                          ? d12__vkdrv_name_buffers(device, m->text, m->buffers, m->buffer_count)
                          : NULL;
        const char *text = named ? named : m->text;
        if (now)
            d12__vkdrv_report_category_now(device, m->category, m->id, m->severity,
                                           D3D12DDI_MESSAGE_CATEGORY_0126_STATE_SETTING, t_scope, text);
        else
            d12__vkdrv_report_category_later(device, m->category, m->id, m->severity,
                                             D3D12DDI_MESSAGE_CATEGORY_0126_EXECUTION, m->label_index, text);
        free(named);
        free(m->text);
        free(m);
    }
}

void d12__vkdrv_validation_discard(void)
{
    for (queued *m = t_head, *next; m; m = next) {
        next = m->next;
        free(m->text);
        free(m);
    }
    t_head = NULL;
    t_tail = &t_head;
}
