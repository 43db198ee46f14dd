// Calls: direct, indirect, builtins, noreturn.
#include <stdlib.h>
#include <assert.h>
#include <err.h>
_Noreturn void die(const char *msg);
__attribute__((noreturn)) void fatal(int code);
void *xmalloc(size_t n);
struct ops { void (*release)(void *); };
typedef void (*cb_t)(void *);

void *make(size_t n) {
    return malloc(n);
}

void indirect(struct ops *o, cb_t cb, void *p) {
    o->release(p);
    cb(p);
    (*cb)(p);
    cb_t copy = free;
    copy(p);
}

char *checked(size_t n) {
    char *p = xmalloc(n);
    if (!p)
        die("oom");
    if (n > 100)
        fatal(2);
    if (__builtin_expect(n == 0, 0))
        abort();
    assert(p);
    if (n == 7)
        __builtin_unreachable();
    if (n == 8)
        exit(1);
    if (n == 9)
        errx(1, "x");
    return p;
}

void nested_args(void) {
    free(make(xmalloc(3) ? 1 : 2));
}

struct big { char *p; int x[8]; };
struct big getbig(void);
void structs(void) {
    struct big b = getbig();
    free(b.p);
    free(getbig().p);
}
