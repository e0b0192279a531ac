/* d12caps: what an application built against an Agility SDK version sees from CheckFeatureSupport1.
 *
 *   d12caps --sdk N [--flavor retail|preview] [--json] [--all] [--changed]
 *   d12caps compare A B [--flavor retail|preview] [--json] [--all] [--changed]
 *   d12caps history ENUM [--json]
 *   d12caps enums | versions [--json]
 *
 * Every fact comes from libd12caps (d12caps.h): the tool holds no table of its own, so it shows exactly what
 * the runtime does. The "true" capabilities are a profile, not a GPU: every clamped field at the highest value
 * of its enum present at the runtime's own version for the flavor (flags: every bit present then), run through
 * the same check/clamp calls CheckFeatureSupport1 makes.
 */
#include <getopt.h>

#include "cli.h"
#include "d12caps_tool.h"

/* d12caps_help (what --help prints) and d12caps_usage (its usage lines) come from tools/help/d12caps.txt, which
 * is also the manual page (cmake/ToolHelp.cmake). */
#include "d12caps_help.h"

int usage_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("d12caps: ", stderr);
    vfprintf(stderr, format, args);
    fputs("\n", stderr);
    va_end(args);
    fputs(d12caps_usage, stderr);
    return EXIT_USAGE;
}

bool parse_version(const char *text, UINT *out)
{
    char *end;
    errno = 0;
    unsigned long long number = strtoull(text, &end, 10);
    /* strtoull accepts a sign and leading blanks; a version is digits only. */
    if (text[0] < '0' || text[0] > '9' || *end != '\0' || errno != 0 || number > UINT32_MAX)
        return false;
    *out = (UINT)number;
    return true;
}

static bool parse_flavor(const char *text, d12_caps_flavor *out)
{
    if (strcmp(text, "retail") == 0) {
        *out = D12_CAPS_FLAVOR_RETAIL;
        return true;
    }
    if (strcmp(text, "preview") == 0) {
        *out = D12_CAPS_FLAVOR_PREVIEW;
        return true;
    }
    return false;
}

enum { OPT_SDK = 0x200, OPT_FLAVOR, OPT_JSON, OPT_ALL, OPT_CHANGED };

/* The options (any order, anywhere: getopt_long permutes), then the command and its arguments. Returns 0; or
 * -1 after --help / --version (exit 0); or the exit code of a usage error. */
static int parse_args(int argc, char **argv, options *opts)
{
    static const struct option long_options[] = {
        D12_TOOL_COMMON_OPTIONS,
        {"sdk", required_argument, NULL, OPT_SDK},
        {"flavor", required_argument, NULL, OPT_FLAVOR},
        {"json", no_argument, NULL, OPT_JSON},
        {"all", no_argument, NULL, OPT_ALL},
        {"changed", no_argument, NULL, OPT_CHANGED},
        {NULL, 0, NULL, 0},
    };
    if (!d12_caps_flavor_from_environment(&opts->flavor))
        return usage_error("D12RT_FLAVOR='%s' is neither retail nor preview", getenv("D12RT_FLAVOR"));
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, ":h", long_options, NULL)) != -1) {
        switch (c) {
        case 'h':
            return d12_tool_print_help(d12caps_help) == 0 ? -1 : 1;
        case D12_TOOL_OPT_VERSION:
            return d12_tool_print_version("d12caps") == 0 ? -1 : 1;
        case OPT_JSON:
            opts->json = true;
            break;
        case OPT_ALL:
            opts->all = true;
            break;
        case OPT_CHANGED:
            opts->changed = true;
            break;
        case OPT_FLAVOR:
            if (!parse_flavor(optarg, &opts->flavor))
                return usage_error("unknown flavor '%s' (retail or preview)", optarg);
            break;
        case OPT_SDK:
            if (!parse_version(optarg, &opts->sdk))
                return usage_error("SDK version '%s' is not a number", optarg);
            opts->have_sdk = true;
            break;
        default:
            return d12_tool_bad_option("d12caps", d12caps_usage, c, optopt, argv, optind);
        }
    }
    for (int i = optind; i < argc; i++) {
        if (!opts->command && !opts->have_sdk && opts->positional_count == 0)
            opts->command = argv[i];
        else if (opts->positional_count < 2)
            opts->positional[opts->positional_count++] = argv[i];
        else
            return usage_error("unexpected argument '%s'", argv[i]);
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(const options *);
    } commands[] = {{"compare", run_compare}, {"history", run_history}, {"enums", run_enums},
                    {"versions", run_versions}};
    options opts = {0};
    int code = parse_args(argc, argv, &opts);
    if (code)
        return code < 0 ? 0 : code;
    if (!opts.command)
        return opts.have_sdk ? run_sdk(&opts) : usage_error("nothing to do");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(opts.command, commands[i].name) == 0)
            return commands[i].run(&opts);
    return usage_error("unknown command '%s'", opts.command);
}

