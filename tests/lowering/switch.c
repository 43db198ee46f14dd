// switch: fall-through, stacked cases, ranges, missing default, Duff's device.
void g(int);

int classify(int c) {
    int r = 0;
    switch (c) {
    case 0:
        r = 1;
        /* fall through */
    case 1:
    case 2:
        r += 2;
        break;
    case 'a' ... 'c':
        r = 3;
        break;
    case 1000 ... 100000:
        r = 4;
        break;
    default:
        r = -1;
    case 7:
        r = 7;
    }
    return r;
}

void no_default(int c) {
    switch (c) {
    case 1:
        g(1);
        break;
    case 2:
        g(2);
    }
    g(3);
}

void in_loop(int n) {
    for (int i = 0; i < n; i++) {
        switch (i) {
        case 1:
            continue;
        case 2:
            break;
        }
        g(i);
    }
}

void duff(char *to, char *from, int count) {
    int n = (count + 7) / 8;
    switch (count % 8) {
    case 0: do { *to = *from++;
    case 7:      *to = *from++;
    case 1:      *to = *from++;
            } while (--n > 0);
    }
}

/* Case labels spelled through macros are parenthesised constant expressions (libclang shows the
   constant once more as its own child in a recursive walk). */
#define VARIANT(t, v) ((t) | ((v) << 4))
int tag_kind(int tag) {
    switch (tag) {
    case VARIANT(4, 0):
        return 1;
    case VARIANT(4, 1) ... VARIANT(4, 2):
        return 2;
    }
    return 0;
}
