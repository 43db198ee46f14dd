/* logproc.c - line-oriented processing of log files.
 *
 * A line looks like "<timestamp> <LEVEL> <component>: <message>".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/types.h>

#include "logstat.h"

static const char *const sev_names[SEV_COUNT] = { "DEBUG", "INFO", "WARN", "ERROR" };

void log_stats_init(struct log_stats *st)
{
    memset(st, 0, sizeof *st);
    st->first_error = NULL;
}

void log_stats_release(struct log_stats *st)
{
    free(st->first_error);
    st->first_error = NULL;
}

const char *log_severity_name(int sev)
{
    return sev >= 0 && sev < SEV_COUNT ? sev_names[sev] : "?";
}

/* Returns the severity called name ("warn", "WARNING" and "Warn" all work), or -1. */
int log_severity_from_name(const char *name)
{
    if (strcasecmp(name, "WARNING") == 0)
        return SEV_WARN;
    for (int i = 0; i < SEV_COUNT; i++)
        if (strcasecmp(name, sev_names[i]) == 0)
            return i;
    return -1;
}

/* Adds the lines of the file at path to st. Returns 0, or -1 after printing a message. */
int log_process_file(const char *path, struct log_stats *st)
{
    int rc = -1;
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;

    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    while ((n = getline(&line, &cap, f)) != -1) {
        char level[16];

        st->lines++;
        if ((size_t)n > st->longest)
            st->longest = (size_t)n;
        if (sscanf(line, "%*s %15s", level) != 1) {
            st->unparsed++;
            continue;
        }
        int sev = log_severity_from_name(level);
        if (sev < 0) {
            st->unparsed++;
            continue;
        }
        st->by_sev[sev]++;
        if (sev == SEV_ERROR && !st->first_error) {
            st->first_error = strdup(line);
            if (!st->first_error) {
                perror(path);
                goto cleanup;
            }
        }
    }
    if (ferror(f)) {
        perror(path);
        goto cleanup;
    }
    rc = 0;
cleanup:
    free(line);
    fclose(f);
    return rc;
}
