// Exceptions: `throw` runs the destructors of the scopes it leaves, then goes to the handler
// naming its type, the `try`'s dispatch, or out of the function (`throw` in the dump). Calls
// that may throw are listed (`may throw`), with where an exception goes and what it destroys.
struct Owner {
    int *p;
    Owner() : p(new int) {}
    ~Owner() { delete p; }
};

int may_throw(int c);
int never(int c) noexcept;
extern "C" int c_call(int c);

int f(int c)
{
    Owner o;
    int *raw = new int;
    may_throw(c);
    never(c);
    c_call(c);
    try {
        Owner inner;
        if (c > 1)
            throw 3;
        may_throw(c);
    } catch (int e) {
        delete raw;
        return e;
    } catch (...) {
        delete raw;
        throw;
    }
    delete raw;
    if (c)
        throw 1.5;
    return 0;
}
