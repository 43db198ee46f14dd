// Value contexts: short-circuit values, ?:, comma, GNU ?:, statement expressions, places.
#include <stdlib.h>
#include <string.h>
struct node { struct node *next; char *data; int len; };
struct pair { char *a, *b; };
char *make(void);

int truth(char *a, char *b) {
    int x = a && b;
    int y = !a;
    return a || b;
}

char *pick(int c, char *a) {
    char *p = c ? malloc(4) : NULL;
    char *q = a ?: make();
    char *r = (free(p), a);
    return c > 2 ? q : r;
}

int stmt_expr(int n) {
    char *p = ({ char *t = malloc(n); t; });
    int k = ({ int z = n * 2; z + 1; });
    free(p);
    return k;
}

void places(struct node *n, struct pair pr, char **arr, int i) {
    char buf[16];
    char *local[4];
    n->next->data = pr.a;
    arr[i] = n->data;
    local[i] = arr[2];
    *arr = buf;
    buf[0] = 'x';
    (*n).len = 3;
    make()[0] = 'y';
    memcpy(buf, n->data, sizeof buf);
}

void pointers(char *p, char *end, int n) {
    char *q = p + n;
    char *r = end - 1;
    int d = end - p;
    p++;
    --q;
    q += 4;
    r -= n;
    free(q - 4);
    n++;
    n *= 2;
    char c = *p++;
}

int out_param(char **out);
void outs(void) {
    char *p;
    struct pair pr;
    if (out_param(&p) == 0)
        free(p);
    out_param(&pr.a);
    char **pp = &p;
    char *same = &*p;
}

void chained(void) {
    char *a, *b;
    a = b = malloc(8);
    free(a);
}

void inits(char *p) {
    struct pair s = {0};
    struct pair t = { p, malloc(3) };
    struct pair u = { .b = p };
    char *arr[] = { p, NULL, "lit" };
    struct node nd = { .next = NULL, .data = malloc(1), .len = 4 };
    char str[] = "hello";
    int nums[3] = { 1, 2, 3 };
    struct pair *cp = &(struct pair){ p, p };
    int scalar = { 5 };
}

/* Steps by a constant (`Function::steps`): integers only, not `_Bool`, floats or pointers, and
 * not by a variable amount. */
void steps(unsigned *out, int k) {
    unsigned n = 0;
    long m = 10;
    _Bool b = 0;
    double f = 0;
    char *p = 0;
    n++;
    --n;
    n += 3;
    m -= 2;
    m += k;
    (*out)++;
    b++;
    f++;
    p++;
    p += 2;
}
