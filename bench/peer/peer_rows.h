/* The rows of the peer program (bench/peer/peer.c), shared with d12bench, which drives the two builds of it (one
 * linked with d12rt, one with vkd3d) as worker processes and prints the ratio per row. */
#ifndef D12_PEER_ROWS_H
#define D12_PEER_ROWS_H

typedef enum peer_row_id {
    PEER_CHECK_FEATURE_SUPPORT,   /* CheckFeatureSupport(OPTIONS5) */
    PEER_COMMITTED_BUFFER,        /* CreateCommittedResource (64 KiB DEFAULT buffer) + Release */
    PEER_RECORD_COPY,             /* recording one CopyBufferRegion */
    PEER_EXECUTE_SIGNAL_SPIN,     /* ExecuteCommandLists (one small copy) + Signal + spin on GetCompletedValue */
    PEER_FENCE_CPU,               /* ID3D12Fence::Signal + GetCompletedValue on the CPU */
    PEER_FENCE_EVENT,             /* SetEventOnCompletion + CPU Signal + wait on the event */
    PEER_RECORD_10000_DRAWS,      /* Reset, 10 000 DrawInstanced, Close: one operation is the whole recording */
    PEER_RECORD_COPY_4_THREADS,   /* 4 threads recording CopyBufferRegion at once: ns per copy, all threads */
    PEER_EXECUTE_SIGNAL_EVENT,    /* ExecuteCommandLists (one small copy) + Signal + SetEventOnCompletion + wait */
    PEER_COPY_THROUGHPUT,         /* ExecuteCommandLists of one 32 MiB DEFAULT->DEFAULT copy + Signal + event wait */
    PEER_COMPUTE_PSO,             /* CreateComputePipelineState (raw_fill over its RTS0 root signature) + Release */
    PEER_DISPATCH_1000,           /* ExecuteCommandLists of 1 000 recorded raw_fill dispatches + Signal + event wait */
    PEER_ROW_COUNT
} peer_row_id;

/* Row names as d12bench prints them (without the "d12rt: " / "vkd3d: " prefix). */
static const char *const peer_row_names[PEER_ROW_COUNT] = {
    "CheckFeatureSupport(OPTIONS5)",
    "CreateCommittedResource 64 KiB buffer + Release",
    "record CopyBufferRegion",
    "ExecuteCommandLists + Signal + spin (small copy)",
    "CPU Fence Signal + GetCompletedValue",
    "fence wait with an event (CPU Signal)",
    "record 10 000 draws (Reset..Close)",
    "record CopyBufferRegion, 4 threads at once",
    "ExecuteCommandLists + Signal + event wait (small copy)",
    "copy 32 MiB DEFAULT->DEFAULT on the GPU (execute + event wait)",
    "CreateComputePipelineState (raw_fill) + Release",
    "execute 1 000 dispatches (raw_fill, root views) + event wait",
};

/* The bytes one PEER_COPY_THROUGHPUT operation copies (d12bench prints GB/s from it). */
#define PEER_COPY_BYTES (32ull << 20)

/* The worker protocol: d12bench writes a request, the worker runs `iterations` of the row (the bookkeeping that
 * keeps a long loop bounded happens outside the timed part) and writes back the nanoseconds as a double. The
 * first reply, before any request, is 1.0 (ready) or -1.0 (setup failed); after a ready reply comes the worker's
 * description, PEER_DESCRIPTION_SIZE bytes, NUL-terminated: the implementation, its driver and the Vulkan device
 * it runs on (peer_describe.c). */
#define PEER_DESCRIPTION_SIZE 256
/* peer_describe.c: that description, for the worker's device (an ID3D12Device *). */
#include <stddef.h>
void peer_describe(void *d3d12_device, char *out, size_t size);
typedef struct peer_request {
    int row; /* peer_row_id, or -1: quit */
    unsigned long long iterations;
} peer_request;

#endif
