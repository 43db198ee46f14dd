// C++ destructors the lowering adds: scope exits, members and bases, the compiler's own
// destructor and default constructor, `delete`, temporaries, a returned local.
struct Buf {
    char *p;
    Buf() { p = new char[8]; }
    ~Buf() { delete[] p; }
    char first() const { return p[0]; }
};

struct Base {
    ~Base() {}
};

struct Outer : Base {
    int n;
    Buf a;
    Buf b;
};

struct Counted {
    int *count;
    Buf b;
    explicit Counted(int *c) : count(c) {}
    ~Counted()
    {
        if (!count)
            return;
        *count += 1;
    }
};

Buf make(void)
{
    Buf b;
    return b;
}

int scopes(int c)
{
    Buf a;
    for (int i = 0; i < c; i++) {
        Buf b;
        if (i == 2)
            break;
    }
    {
        Buf d;
        if (c)
            return d.first();
        Buf e;
    }
    return a.first();
}

void members(void)
{
    Outer o;
    o.n = 1;
    Outer *h = new Outer;
    delete h;
    int n = 0;
    Counted k(&n);
}

char temporaries(void)
{
    make();
    const Buf &r = make();
    return make().first() + r.first();
}
