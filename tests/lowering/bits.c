/* Bitwise expressions: what their operators say of the value's bits (`bits:` after the
 * statement), which flag-conditioned callee summaries read. */
int take(int flags);
int g_flags;

int bits(int flags, int other, int c) {
    take(flags | 1);
    if (flags & 2)
        take(0);
    if ((flags & 2) == 0)
        take(1);
    int masked = flags & ~4;
    flags |= c ? 0x40 : 0;
    flags &= ~0x10;
    int two = (flags & 3) | (other & 4);
    int same = (flags & 3) | (flags & 8);
    int none = flags ^ 1;
    int shifted = flags | (1 << 3);
    int inverted = ~flags;
    int nested = (flags | 1) & ~2;
    int global = g_flags | 1;
    int either = c ? (flags | 1) : 0;
    return masked + two + same + none + shifted + inverted + nested + global + either;
}

/* The sign of arithmetic of unsigned type is kept (`unsigned`); signed arithmetic, a
 * conversion alone and a comparison are not marked. */
int sign_of_arith(int cnt, int c, unsigned long n, int s) {
    cnt = (cnt << 8) + (unsigned)c;
    int len = n + 1;
    int diff = s - 1;
    int conv = (unsigned)c;
    int less = n < 4;
    return cnt + len + diff + conv + less;
}

/* An unsigned sum is at least its constants (`unsigned >= 3`); `+=` of an unsigned amount and
 * `*=` of a constant of at least 1 never make a value smaller while it is at least 0 (`grows`);
 * `+=` of a signed amount, a negative constant in a sum, or `*= 0` are not marked. */
unsigned long floors_and_growth(unsigned long n, int s) {
    unsigned long m = n + 1 + n + 2;
    m += n;
    m *= 2;
    m += s;
    unsigned long w = n + -1;
    m *= 0;
    return m + w;
}

/* Temporaries that hold a local plus a constant: signed sums either way round, an unsigned sum
 * that adds; not an unsigned difference (it wraps at 0), nor a sum cast to something narrower,
 * nor a sum of two locals. */
int offsets(int i, unsigned long n, int j, int size) {
    int r = 0;
    if (i + 2 > size) r++;
    if (3 + i < size) r++;
    if (i - 1 >= size) r++;
    if (i + -4 == size) r++;
    if (n + 1 > (unsigned long)size) r++;
    if (n - 1 > (unsigned long)size) r++;
    if ((unsigned char)(i + 1) > size) r++;
    if ((long)(i + 5) > size) r++;
    if (i + j > size) r++;
    return r;
}
