/* main.c - logstat: counts log lines by severity.
 *
 * usage: logstat [-c CONFIG] [-t TITLE] FILE...
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "logstat.h"

static void usage(void)
{
    fputs("usage: logstat [-c CONFIG] [-t TITLE] FILE...\n", stderr);
}

/* Prints, for each file, how many of its lines mention needle. */
static void print_matches(char **files, int nfiles, const char *needle)
{
    for (int i = 0; i < nfiles; i++) {
        FILE *f = fopen(files[i], "r");
        if (!f) {
            perror(files[i]);
            continue;
        }
        printf("%s: %zu lines mention \"%s\"\n", files[i],
               report_count_matches(f, needle), needle);
        fclose(f);
    }
}

int main(int argc, char **argv)
{
    const char *config_path = NULL;
    char *title = NULL;
    int opt;

    while ((opt = getopt(argc, argv, "c:t:")) != -1) {
        switch (opt) {
        case 'c':
            config_path = optarg;
            break;
        case 't':
            free(title);
            title = strdup(optarg);
            break;
        default:
            usage();
            free(title);
            return 2;
        }
    }
    if (optind >= argc) {
        usage();
        free(title);
        return 2;
    }

    struct config *cfg = config_new();
    if (!cfg || (config_path && config_load(cfg, config_path) != 0)) {
        config_free(cfg);
        free(title);
        return 1;
    }
    const char *shown = title ? title : config_get_in(cfg, "Report", "title");
    if (!shown)
        shown = "log summary";

    struct log_stats st;
    int status = 0;
    log_stats_init(&st);
    for (int i = optind; i < argc; i++)
        if (log_process_file(argv[i], &st) != 0)
            status = 1;
    report_print(&st, shown);

    const char *needle = config_get(cfg, "filter.needle");
    if (needle)
        print_matches(argv + optind, argc - optind, needle);

    const char *dir = config_get_in(cfg, "report", "dir");
    if (dir) {
        char *text = report_render(&st, shown);
        if (!text || report_save(dir, text) != 0)
            status = 1;
        free(text);
    }

    log_stats_release(&st);
    config_free(cfg);
    free(title);
    return status;
}
