#include <stdlib.h>
#include <string.h>
int fill(int *q, int n);

int *make(int n) {
    int *p = malloc(n);
    int *q = malloc(n);
    if (q == NULL)
        return NULL;
    fill(q, n);
    free(q);
    return p;
}

void twice(const char *name) {
    char *s = strdup(name);
    free(s);
    free(s);
}

void lost(const char *x) {
	char *t = /* é */ strdup(x);
}
