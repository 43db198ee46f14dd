// Static locals, globals, shadowing, unsupported constructs.
#include <stdarg.h>
#include <stdlib.h>
char *global;
static char *file_static;
enum color { RED, GREEN = 5 };

char *statics(void) {
    static char *cache;
    static int count = 3;
    if (!cache)
        cache = malloc(10);
    global = cache;
    file_static = global;
    count++;
    return cache;
}

int shadow(int x) {
    int y = x;
    {
        int x = 2;
        y += x;
    }
    return x + y + GREEN;
}

int variadic(int n, ...) {
    va_list ap;
    va_start(ap, n);
    char *s = va_arg(ap, char *);
    va_end(ap);
    return s != NULL;
}

void computed(int i) {
    static void *table[] = { &&a, &&b };
    goto *table[i];
a:
    free(global);
b:
    return;
}

int asm_block(int x) {
    __asm__ volatile("nop");
    return x;
}

void unnamed(int, char *p) {
    free(p);
}

int kr(a, b)
    int a;
    char *b;
{
    return a;
}

#define SIZEOF_KIND(x) _Generic((x), char *: 1, int: 2, default: 3)
void *generic(char *p, int i) {
    int a = SIZEOF_KIND(p) + SIZEOF_KIND(i);
    return _Generic(i, int: p, default: (void *)0);
}
