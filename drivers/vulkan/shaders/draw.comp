// The built-in kernel of draws and dispatches (docs/vulkan.md, "Draws and dispatches"): one invocation per vertex
// and instance (IndexCount x InstanceCount for an indexed draw) or per thread group (X*Y*Z for a dispatch), reading
// exactly the bytes input assembly and the root descriptors would read, through the driver's GPU VA space: every
// 4-byte read is translated by the page table (one 64-bit entry per 64 KiB page: the page's buffer device address,
// 0 when no live buffer maps it). An untranslatable address is never dereferenced: the invocation records it
// (the lowest faulting address wins) and reads nothing more; only in real-fault mode (pc.real_faults) does it then
// read the probe once, a device address nothing maps (docs/vulkan.md, "Real faults"). No loop runs longer than the
// bindings (at most 32 vertex buffers, 64 root parameters). The arguments hold only the bound views, packed: the
// vertex-buffer views, then the root descriptors (the driver's names for them stay on the CPU).
#version 460
#extension GL_EXT_buffer_reference2 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_shader_atomic_int64 : require

layout(local_size_x = 64) in;

layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer PageTable { uint64_t page[]; };
layout(buffer_reference, std430, buffer_reference_align = 4) readonly buffer Word { uint value; };
layout(buffer_reference, std430, buffer_reference_align = 8) buffer Fault { uint64_t va; uint sink; uint pad; };

struct View { uint64_t va; uint size; uint stride; };

// kind: 0 draw, 1 indexed draw, 2 dispatch. views[0, vertex_views): the bound vertex-buffer views; then root_views
// root descriptors, whose stride holds the bytes the root reads (256 CBV, 4 SRV/UAV).
layout(buffer_reference, std430, buffer_reference_align = 8) readonly buffer Args {
    View index;          // stride: 2 or 4 bytes per index
    uint kind, count, start;
    int base_vertex;
    uint vertex_views, root_views, pad0, pad1;
    View views[];
};

layout(push_constant) uniform Push {
    PageTable table;
    Fault fault;
    Args args;
    uint64_t pages;  // entries the kernel may use (pages mapped when the work started)
    uint64_t first;  // the chunk's first invocation
    uint64_t total;  // invocations in the whole draw or dispatch
    uint64_t probe;        // D12RT_VULKAN_REAL_FAULTS: the first of 4 KiB of device addresses nothing maps
    uint64_t real_faults;  // 1: an unmapped read dereferences the probe; 0: the mode is off (or refused this chunk)
} pc;

const uint64_t VA_BASE = 0x100000000ul;
bool faulted = false;
uint sum = 0u;

uint read_word(uint64_t va)
{
    if (faulted)
        return 0u;
    uint64_t page = (va - VA_BASE) >> 16;
    uint64_t entry = va >= VA_BASE && page < pc.pages ? pc.table.page[uint(page)] : 0ul;
    if (entry == 0ul) {
        atomicMin(pc.fault.va, va);
        faulted = true;
        // Real-fault mode: the read goes to the null page (device address 0 is Vulkan's null pointer; no buffer is
        // ever given the page), at the 4 KiB page offset of the driver VA, so the GPU's MMU faults and the device is
        // lost. Once per invocation (faulted stops its reads): nothing loops on it.
        if (pc.real_faults != 0ul) {
            memoryBarrierBuffer();
            sum += Word(pc.probe + (va & 0xFFCul)).value;
        }
        return 0u;
    }
    return Word(entry + (va & 0xFFFCul)).value;
}

void main()
{
    uint64_t id = pc.first + gl_GlobalInvocationID.x;
    if (id >= pc.total)
        return;
    Args a = pc.args;
    if (a.kind != 2u) {
        uint64_t vertex = id % uint64_t(a.count);
        uint64_t vertex_id = uint64_t(a.start) + vertex;
        if (a.kind == 1u) {
            // Input assembly reads index (start + vertex); an index outside the view reads as 0 (D3D12's rule).
            uint64_t offset = vertex_id * uint64_t(a.index.stride);
            uint index = 0u;
            if (offset + uint64_t(a.index.stride) <= uint64_t(a.index.size)) {
                uint w = read_word(a.index.va + (offset & ~3ul));
                index = a.index.stride == 2u ? ((offset & 2ul) != 0ul ? w >> 16 : w & 0xFFFFu) : w;
            }
            vertex_id = uint64_t(int64_t(index) + int64_t(a.base_vertex)) & 0xFFFFFFFFul;
        }
        for (uint i = 0u; i < a.vertex_views && i < 32u && !faulted; i++) {
            View v = a.views[i];
            uint64_t offset = vertex_id * uint64_t(v.stride);
            if (offset + 4ul <= uint64_t(v.size)) // a fetch past the view reads as 0 and touches nothing
                sum += read_word(v.va + offset);
        }
    }
    uint roots = min(a.root_views, 64u);
    for (uint i = 0u; i < roots && !faulted; i++) {
        View r = a.views[a.vertex_views + i];
        // A root CBV: its 256 bytes (what a shader may read of it); a root SRV or UAV: its first element.
        for (uint w = 0u; w < r.stride / 4u && w < 64u && !faulted; w++)
            sum += read_word(r.va + uint64_t(w) * 4ul);
    }
    if (sum == 0x9E3779B9u) // keeps the reads: the compiler cannot know the bytes
        pc.fault.sink = sum;
}
