// All 8 combinations of present/absent init, condition and increment, plus macro-made loops.
void f(int);
#define FOREVER for (;;)
#define EACH(i, n) for (i = 0; i < (n); i++)
#define UNTIL(c) for (; !(c);)

void all(int n) {
    int i = 0;
    for (;;) { f(1); break; }
    for (i = 0;;) { f(2); break; }
    for (; i < n;) f(3);
    for (;; i++) { f(4); if (i) break; }
    for (i = 0; i < n;) f(5);
    for (i = 0;; i++) { f(6); if (i) break; }
    for (; i < n; i++) f(7);
    for (i = 0; i < n; i++) f(8);
    for (int j = 0; j < n; j++) f(j);
}

void macros(int n) {
    int i;
    FOREVER { if (n) break; }
    EACH(i, n) f(i);
    UNTIL(n > 3) n++;
}
