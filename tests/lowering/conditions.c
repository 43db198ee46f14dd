// Spellings of NULL tests, short-circuit operators, constant conditions.
#include <stdlib.h>
#define likely(x) __builtin_expect(!!(x), 1)
#define unlikely(x) __builtin_expect(!!(x), 0)
void use(void *);

void null_tests(char *p) {
    if (p) use(p);
    if (!p) use(p);
    if (p == NULL) use(p);
    if (NULL == p) use(p);
    if (p != 0) use(p);
    if (0 != p) use(p);
    if (p == 0) use(p);
    if (!!p) use(p);
    if (likely(p)) use(p);
    if (unlikely(!p)) use(p);
    if (!(p != NULL)) use(p);
}

void alloc_test(int n) {
    char *q;
    if ((q = malloc(n)) == NULL)
        return;
    if (!(q = realloc(q, 2 * n)))
        return;
    free(q);
}

void logic(char *a, char *b, int n) {
    if (a && b) use(a);
    if (a || b) use(b);
    if (a && (b || n > 2)) use(a);
    if (!(a && b)) use(b);
    if (n ? a : b) use(a);
    if (n < 3 && n >= 0) use(a);
    if (a != b) use(a);
    if (use(a), n) use(b);
}

void constants(int n) {
    while (1) { if (n) break; }
    if (0) use(0);
    if (sizeof(int) == 4) use(0);
    do { use(0); } while (0);
    if (1 && n) use(0);
}

double fcmp(double x) {
    if (x) return 1.0;
    if (x < 0.5) return 2.0;
    return 0;
}

#define UNL(x) __builtin_expect(((x) != 0), 0)
int zero_tests(char *q, int n, char *(*get)(void)) {
    if ((q && n) != 0) use(q);
    if (get() == 0) return 1;
    if (UNL(q == NULL && n > 0)) return 2;
    return 0;
}
