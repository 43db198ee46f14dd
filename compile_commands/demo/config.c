/* config.c - a tiny "key = value" configuration file loader.
 *
 *     # comment
 *     report.title = Nightly build
 *     filter.needle = timeout
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "logstat.h"

struct config *config_new(void)
{
    struct config *cfg = calloc(1, sizeof *cfg);
    return cfg;
}

/* Sets key to a copy of value, replacing an earlier value. Returns 0 or -1. */
int config_set(struct config *cfg, const char *key, const char *value)
{
    for (struct entry *e = cfg->head; e; e = e->next) {
        if (strcasecmp(e->key, key) == 0) {
            char *copy = strdup(value);
            if (!copy)
                return -1;
            free(e->value);
            e->value = copy;
            return 0;
        }
    }

    struct entry *ent = malloc(sizeof *ent);
    if (!ent)
        return -1;
    ent->key = str_lower_dup(key);
    ent->value = strdup(value);
    if (!ent->key || !ent->value) {
        free(ent->key);
        free(ent->value);
        free(ent);
        return -1;
    }
    ent->next = cfg->head;
    cfg->head = ent;
    cfg->count++;
    return 0;
}

/* Strips white space at both ends, in place, and returns the new start. */
static char *trim(char *s)
{
    while (isspace((unsigned char)*s))
        s++;
    char *end = s + strlen(s);
    while (end > s && isspace((unsigned char)end[-1]))
        end--;
    *end = '\0';
    return s;
}

/* Parses one line. Returns 0, or -1 after printing a message. */
static int parse_line(struct config *cfg, char *line, unsigned lineno,
                      const char *path)
{
    char *s = trim(line);
    if (*s == '\0' || *s == '#')
        return 0;
    char *eq = strchr(s, '=');
    if (!eq) {
        fprintf(stderr, "%s:%u: expected `key = value`\n", path, lineno);
        return -1;
    }
    *eq = '\0';
    char *key = trim(s);
    if (*key == '\0') {
        fprintf(stderr, "%s:%u: empty key\n", path, lineno);
        return -1;
    }
    if (config_set(cfg, key, trim(eq + 1)) != 0) {
        perror(path);
        return -1;
    }
    return 0;
}

/* Adds the settings of the file at path to cfg. Returns 0 or -1. */
int config_load(struct config *cfg, const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    size_t len = 0;
    char *text = read_all(f, &len);
    fclose(f);
    if (!text) {
        fprintf(stderr, "%s: cannot read the file\n", path);
        return -1;
    }

    int rc = 0;
    unsigned lineno = 0;
    char *line = text;
    while (rc == 0 && line < text + len) {
        char *nl = strchr(line, '\n');
        if (nl)
            *nl = '\0';
        rc = parse_line(cfg, line, ++lineno, path);
        line = nl ? nl + 1 : text + len;
    }
    free(text);
    return rc;
}

const char *config_get(const struct config *cfg, const char *key)
{
    for (const struct entry *e = cfg->head; e; e = e->next)
        if (strcasecmp(e->key, key) == 0)
            return e->value;
    return NULL;
}

/* Looks up "section.key". Section names are case-insensitive. */
const char *config_get_in(const struct config *cfg, const char *section,
                          const char *key)
{
    char *sec = strdup(section);
    if (!sec)
        return NULL;
    for (size_t i = 0; sec[i]; i++)
        sec[i] = (char)tolower((unsigned char)sec[i]);

    size_t len = strlen(sec) + strlen(key) + 2;
    char *full = malloc(len);
    if (!full)
        return NULL; /* BUG: leak, `sec` is lost when the second allocation fails */
    snprintf(full, len, "%s.%s", sec, key);
    free(sec);

    const char *value = NULL;
    for (const struct entry *e = cfg->head; e; e = e->next) {
        if (strcasecmp(e->key, full) == 0) {
            value = e->value;
            break;
        }
    }
    free(full);
    return value;
}

void config_free(struct config *cfg)
{
    if (!cfg)
        return;
    struct entry *e = cfg->head;
    while (e) {
        struct entry *next = e->next;
        free(e->key);
        free(e->value);
        free(e);
        e = next;
    }
    free(cfg);
}
