/* What every installed tool does with its command line (docs/tools.md): options parsed with getopt_long,
 * `--help` (the text of tools/help/TOOL.txt, also the manual page) on stdout with exit 0, `--version` as
 * `TOOL MAJOR.MINOR.PATCH` (the CMake project version) with exit 0, and a bad option named on stderr with the
 * usage lines and exit 2. Each tool keeps its own exit codes for everything else. */
#ifndef D12_TOOL_CLI_H
#define D12_TOOL_CLI_H

#include <stdarg.h>
#include <stdio.h>

#ifndef D12RT_VERSION
#error "D12RT_VERSION (the project version) is defined by d12rt_tool_help() (cmake/ToolHelp.cmake)"
#endif

#define D12_TOOL_EXIT_USAGE 2

/* The long options every tool has, and their values (above any character a short option uses). */
enum { D12_TOOL_OPT_VERSION = 0x100 };
#define D12_TOOL_COMMON_OPTIONS {"help", no_argument, NULL, 'h'}, {"version", no_argument, NULL, D12_TOOL_OPT_VERSION}

static inline int d12_tool_print_help(const char *help)
{
    fputs(help, stdout);
    return fflush(stdout) == 0 ? 0 : 1;
}

static inline int d12_tool_print_version(const char *name)
{
    printf("%s %s\n", name, D12RT_VERSION);
    return fflush(stdout) == 0 ? 0 : 1;
}

/* "NAME: why" (when `format` is not NULL), then the usage lines, on stderr; returns 2. */
__attribute__((format(printf, 3, 4))) static inline int d12_tool_usage_error(const char *name, const char *usage,
                                                                           const char *format, ...)
{
    if (format) {
        va_list args;
        va_start(args, format);
        fprintf(stderr, "%s: ", name);
        vfprintf(stderr, format, args);
        fputc('\n', stderr);
        va_end(args);
    }
    fputs(usage, stderr);
    return D12_TOOL_EXIT_USAGE;
}

/* getopt_long returned '?' or ':' (the option string starts with ':', and opterr is 0, so the tool words the
 * message): names the option as it was given; returns 2. */
static inline int d12_tool_bad_option(const char *name, const char *usage, int c, int bad_short, char **argv,
                                      int index)
{
    const char *given = argv[index - 1];
    if (bad_short && !(given[0] == '-' && given[1] == '-'))
        return c == ':' ? d12_tool_usage_error(name, usage, "-%c needs a value", bad_short)
                        : d12_tool_usage_error(name, usage, "unknown option '-%c'", bad_short);
    return c == ':' ? d12_tool_usage_error(name, usage, "%s needs a value", given)
                    : d12_tool_usage_error(name, usage, "unknown option '%s'", given);
}

#endif
