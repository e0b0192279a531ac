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
#include "d12caps_tool.h"

static const char usage_text[] =
    "usage: d12caps --sdk N [--flavor retail|preview] [--json] [--all] [--changed]\n"
    "       d12caps compare A B [--flavor retail|preview] [--json] [--all] [--changed]\n"
    "       d12caps history ENUM [--json]\n"
    "       d12caps enums [--json]\n"
    "       d12caps versions [--json]\n"
    "\n"
    "  --sdk N      what an application built against Agility SDK version N sees, field by field\n"
    "  compare A B  the same for two SDK versions side by side\n"
    "  history ENUM every value of a capability enum with its first/removed version per line\n"
    "  enums        the capability enums `history` knows\n"
    "  versions     the SDK versions of the retail and preview lines\n"
    "  --flavor F   the runtime answering: retail or preview (`d12caps versions` shows their SDK versions);\n"
    "               default $D12RT_FLAVOR, else retail\n"
    "  --json       machine-readable output\n"
    "  --all        also list fields that are never clamped (bool, integer, input, ...)\n"
    "  --changed    only fields an app sees differently from the true value (clamped or limited by its own\n"
    "               request), or, with compare, differently at A and at B (where both have the feature)\n"
    "  --json output always holds every feature and field.\n";

int usage_error(const char *format, ...)
{
    va_list args;
    va_start(args, format);
    fputs("d12caps: ", stderr);
    vfprintf(stderr, format, args);
    fputs("\n\n", stderr);
    va_end(args);
    fputs(usage_text, stderr);
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

/* Handle one option at argv[*i]; returns 0, or the exit code of a usage error. */
static int parse_option(int argc, char **argv, int *i, options *opts)
{
    const char *arg = argv[*i];
    if (strcmp(arg, "--json") == 0) {
        opts->json = true;
    } else if (strcmp(arg, "--all") == 0) {
        opts->all = true;
    } else if (strcmp(arg, "--changed") == 0) {
        opts->changed = true;
    } else if (strcmp(arg, "--flavor") == 0 || strcmp(arg, "--sdk") == 0) {
        if (*i + 1 >= argc)
            return usage_error("%s needs a value", arg);
        const char *value = argv[++*i];
        if (arg[2] == 'f' && !parse_flavor(value, &opts->flavor))
            return usage_error("unknown flavor '%s' (retail or preview)", value);
        if (arg[2] == 's' && !parse_version(value, &opts->sdk))
            return usage_error("SDK version '%s' is not a number", value);
        opts->have_sdk |= arg[2] == 's';
    } else {
        return usage_error("unknown option '%s'", arg);
    }
    return 0;
}

static int parse_args(int argc, char **argv, options *opts)
{
    if (!d12_caps_flavor_from_environment(&opts->flavor))
        return usage_error("D12RT_FLAVOR='%s' is neither retail nor preview", getenv("D12RT_FLAVOR"));
    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(usage_text, stdout);
            exit(0);
        }
        if (strncmp(argv[i], "--", 2) == 0) {
            int code = parse_option(argc, argv, &i, opts);
            if (code)
                return code;
        } else if (!opts->command && !opts->have_sdk && opts->positional_count == 0) {
            opts->command = argv[i];
        } else if (opts->positional_count < 2) {
            opts->positional[opts->positional_count++] = argv[i];
        } else {
            return usage_error("unexpected argument '%s'", argv[i]);
        }
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
        return code;
    if (!opts.command)
        return opts.have_sdk ? run_sdk(&opts) : usage_error("nothing to do");
    for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
        if (strcmp(opts.command, commands[i].name) == 0)
            return commands[i].run(&opts);
    return usage_error("unknown command '%s'", opts.command);
}

