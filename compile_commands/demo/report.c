/* report.c - printing and saving the summary. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "logstat.h"

/* Prints the summary under an upper-case heading. */
void report_print(const struct log_stats *st, const char *title)
{
    char *heading = strdup(title);
    if (!heading)
        return;
    for (size_t i = 0; heading[i]; i++)
        heading[i] = (char)toupper((unsigned char)heading[i]);

    printf("== %s ==\n", heading);
    printf("%zu lines, %zu unparsed, longest %zu bytes\n",
           st->lines, st->unparsed, st->longest);
    for (int s = 0; s < SEV_COUNT; s++)
        printf("  %-5s %zu\n", log_severity_name(s), st->by_sev[s]);
    if (st->first_error)
        printf("first error: %s", st->first_error);
    /* BUG: leak, `heading` is never freed */
}

/* Returns the summary as text that the caller must free(), or NULL. */
char *report_render(const struct log_stats *st, const char *title)
{
    struct strbuf sb;

    sb_init(&sb);
    if (sb_appendf(&sb, "# %s\n\nlines: %zu\n", title, st->lines) != 0)
        goto fail;
    for (int s = 0; s < SEV_COUNT; s++)
        if (sb_appendf(&sb, "%s: %zu\n", log_severity_name(s), st->by_sev[s]) != 0)
            goto fail;
    if (st->first_error &&
        (sb_append(&sb, "first error: ") != 0 || sb_append(&sb, st->first_error) != 0))
        goto fail;
    return sb_detach(&sb);

fail:
    sb_release(&sb);
    return NULL;
}

/* Counts the lines of f that contain needle. */
size_t report_count_matches(FILE *f, const char *needle)
{
    char *line = NULL;
    size_t cap = 0;
    size_t count = 0;

    while (getline(&line, &cap, f) != -1) {
        if (strstr(line, needle))
            count++;
    }
    /* BUG: leak, the buffer that getline allocated in `line` is never freed */
    return count;
}

/* Writes text to <dir>/summary.txt. Returns 0, or -1 after printing a message. */
int report_save(const char *dir, const char *text)
{
    int rc = -1;
    FILE *f = NULL;
    size_t len = strlen(dir) + sizeof "/summary.txt";
    char *path = malloc(len);
    if (!path)
        return -1;
    snprintf(path, len, "%s/summary.txt", dir);

    f = fopen(path, "w");
    if (!f) {
        perror(path);
        free(path); /* BUG: double free, `path` is freed again at `out:` */
        goto out;
    }
    if (fputs(text, f) == EOF) {
        perror(path);
        goto out;
    }
    rc = 0;
out:
    if (f && fclose(f) != 0)
        rc = -1;
    free(path);
    return rc;
}
