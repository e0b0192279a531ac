/* The generated DRED name functions (spec/dred.yaml -> generated/runtime/d12_dred_names.c): every value by its C
 * name (the installed headers' enumerator, or d12rt/d3d12_ext.h's constant for ops 45..53) has the spec's number
 * and the name without the prefix; numbers the spec lacks answer NULL; only the three marker ops are markers.
 *
 *     dred_names_test TABLE     TABLE: a D3D12 enum name (D3D12_AUTO_BREADCRUMB_OP, ...)  (ctest dred_names.TABLE)
 */
#include <d12rt/d3d12_ext.h>

#include "d12_dred_names.h"
#include "harness.h"

struct dred_name_case {
    UINT c_value;     /* the C constant, as the compiler sees it */
    UINT spec_value;  /* the number spec/dred.yaml gives */
    const char *name;
    int marker;
};

struct dred_name_table {
    const char *c_type;
    const char *(*name_of)(UINT value);
    const struct dred_name_case *cases;
    size_t count;
    const UINT *unknown;
    size_t unknown_count;
};

#include "dred_names_cases.c"

static void check_table(const struct dred_name_table *table)
{
    int is_op = strcmp(table->c_type, "D3D12_AUTO_BREADCRUMB_OP") == 0;
    for (size_t i = 0; i < table->count; i++) {
        const struct dred_name_case *c = &table->cases[i];
        CHECK_EQ_INT(c->c_value, c->spec_value);
        CHECK_EQ_STR(table->name_of(c->c_value), c->name);
        if (is_op)
            CHECK_EQ_INT(d12_dred_op_is_marker(c->c_value), c->marker);
    }
    for (size_t i = 0; i < table->unknown_count; i++) {
        if (!CHECK(table->name_of(table->unknown[i]) == NULL))
            fprintf(stderr, "    %s: %#x has a name\n", table->c_type, table->unknown[i]);
        if (is_op)
            CHECK_EQ_INT(d12_dred_op_is_marker(table->unknown[i]), 0);
    }
}

/* Values stated by dred-semantics.md section 2, written out by hand so a wrong spec entry cannot pass. */
static void check_known_by_hand(const char *c_type)
{
    if (strcmp(c_type, "D3D12_AUTO_BREADCRUMB_OP") == 0) {
        CHECK_EQ_STR(d12_dred_op_name(4), "DRAWINDEXEDINSTANCED");
        CHECK_EQ_STR(d12_dred_op_name(7), "COPYBUFFERREGION");
        CHECK_EQ_STR(d12_dred_op_name(44), "RESOLVEENCODEROUTPUTMETADATA");
        CHECK_EQ_STR(d12_dred_op_name(45), "BARRIER");
        CHECK_EQ_STR(d12_dred_op_name(46), "BEGIN_COMMAND_LIST");
        CHECK_EQ_STR(d12_dred_op_name(52), "PROCESSFRAMES2");
        CHECK_EQ_STR(d12_dred_op_name(53), "SET_WORK_GRAPH_MAXIMUM_GPU_INPUT_RECORDS");
        CHECK(d12_dred_op_name(54) == NULL);
        CHECK_EQ_INT(D12_DRED_OP_LARGEST, 53);
        CHECK_EQ_INT(D3D12_AUTO_BREADCRUMB_OP_DISPATCHGRAPH, 47);
        CHECK_EQ_INT(D3D12_AUTO_BREADCRUMB_OP_SETPROGRAM, 48);
    } else if (strcmp(c_type, "D3D12_DRED_ALLOCATION_TYPE") == 0) {
        CHECK_EQ_STR(d12_dred_allocation_type_name(34), "RESOURCE");
        CHECK_EQ_STR(d12_dred_allocation_type_name(0xFFFFFFFFu), "INVALID");
        CHECK(d12_dred_allocation_type_name(26) == NULL);
        CHECK(d12_dred_allocation_type_name(31) == NULL);
        CHECK(d12_dred_allocation_type_name(33) == NULL);
        CHECK(d12_dred_allocation_type_name(50) == NULL);
        CHECK(d12_dred_allocation_type_name(18) == NULL);
    } else if (strcmp(c_type, "D3D12_DRED_DEVICE_STATE") == 0) {
        CHECK_EQ_STR(d12_dred_device_state_name(0), "UNKNOWN");
        CHECK_EQ_STR(d12_dred_device_state_name(3), "HUNG");
        CHECK_EQ_STR(d12_dred_device_state_name(6), "FAULT");
        CHECK_EQ_STR(d12_dred_device_state_name(7), "PAGEFAULT");
        CHECK(d12_dred_device_state_name(1) == NULL);
    } else if (strcmp(c_type, "D3D12_DRED_ENABLEMENT") == 0) {
        CHECK_EQ_STR(d12_dred_enablement_name(2), "FORCED_ON");
        CHECK(d12_dred_enablement_name(3) == NULL);
    } else if (strcmp(c_type, "D3D12_DRED_VERSION") == 0) {
        CHECK_EQ_STR(d12_dred_version_name(4), "1_3");
        CHECK(d12_dred_version_name(0) == NULL);
    }
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: dred_names_test TABLE\n");
        return 2;
    }
    for (size_t i = 0; i < sizeof dred_name_tables / sizeof dred_name_tables[0]; i++) {
        if (strcmp(dred_name_tables[i].c_type, argv[1]) == 0) {
            check_table(&dred_name_tables[i]);
            check_known_by_hand(argv[1]);
            return d12test_finish();
        }
    }
    fprintf(stderr, "dred_names_test: no table %s\n", argv[1]);
    return 2;
}
