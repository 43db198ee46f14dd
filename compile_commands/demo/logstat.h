/* logstat.h - shared declarations of the logstat demo program.
 *
 * logstat counts the lines of log files by severity, e.g.
 *     2024-05-01T10:00:00 WARN disk: 91% full
 * and prints (and optionally saves) a short summary. A small
 * "key = value" configuration file can set the title, a search
 * needle and a directory for the saved summary.
 */
#ifndef LOGSTAT_H
#define LOGSTAT_H

#include <stddef.h>
#include <stdio.h>

/* strbuf.c: a growable, NUL-terminated string buffer, plus helpers. */
struct strbuf {
    char *data;
    size_t len;
    size_t cap;
};

void sb_init(struct strbuf *sb);
int sb_grow(struct strbuf *sb, size_t extra);
int sb_append(struct strbuf *sb, const char *s);
int sb_appendf(struct strbuf *sb, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
char *sb_detach(struct strbuf *sb);
void sb_release(struct strbuf *sb);
char *str_lower_dup(const char *s);
char *read_all(FILE *f, size_t *len_out);

/* config.c: "key = value" configuration files. Keys are case-insensitive. */
struct entry {
    char *key;
    char *value;
    struct entry *next;
};

struct config {
    struct entry *head;
    size_t count;
};

struct config *config_new(void);
int config_set(struct config *cfg, const char *key, const char *value);
int config_load(struct config *cfg, const char *path);
const char *config_get(const struct config *cfg, const char *key);
const char *config_get_in(const struct config *cfg, const char *section,
                          const char *key);
void config_free(struct config *cfg);

/* logproc.c: reading log files line by line. */
enum severity { SEV_DEBUG, SEV_INFO, SEV_WARN, SEV_ERROR, SEV_COUNT };

struct log_stats {
    size_t lines;
    size_t unparsed;
    size_t longest;
    size_t by_sev[SEV_COUNT];
    char *first_error; /* owned copy of the first ERROR line, or NULL */
};

void log_stats_init(struct log_stats *st);
void log_stats_release(struct log_stats *st);
const char *log_severity_name(int sev);
int log_severity_from_name(const char *name);
int log_process_file(const char *path, struct log_stats *st);

/* report.c: printing and saving the summary. */
void report_print(const struct log_stats *st, const char *title);
char *report_render(const struct log_stats *st, const char *title);
size_t report_count_matches(FILE *f, const char *needle);
int report_save(const char *dir, const char *text);

#endif /* LOGSTAT_H */
