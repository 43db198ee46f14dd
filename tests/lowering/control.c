// If/else, loops, break/continue, goto, return.
#include <stdlib.h>

int if_else(int a) {
    int r;
    if (a > 0)
        r = 1;
    else if (a < 0)
        r = -1;
    else
        r = 0;
    return r;
}

void loops(char **v, int n) {
    int i = 0;
    while (i < n) {
        if (v[i] == NULL)
            break;
        i++;
    }
    do {
        i--;
        if (i == 3)
            continue;
        free(v[i]);
    } while (i > 0);
}

int gotos(int n) {
    char *p = malloc(n);
    if (!p)
        goto fail;
again:
    n--;
    if (n > 0)
        goto again;
    free(p);
    return 0;
fail:
    return -1;
}

void nested(int n) {
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            if (j == i)
                continue;
            if (j > i)
                break;
        }
    }
}

int dead_code(int n) {
    return n;
    n = 2;
    return n + 1;
}
