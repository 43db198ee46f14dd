// Lambdas called where drip sees the call (`frontend/lambdas.rs`): the body is lowered at each
// call; by-reference captures are the caller's variables, by-value ones copies taken where the
// lambda is written. A lambda handed on stays not analysed.
#include <functional>

struct Obj {
    char *data;
    void drop();
};

int ready(int);
void later(std::function<void()> f);
void release(Obj *o);

void guard(int fd)
{
    Obj *o = new Obj;
    auto cleanup = [&] { delete o; };
    if (ready(fd) < 0) {
        cleanup();
        return;
    }
    cleanup();
}

int copy_and_args(int n)
{
    int base = n;
    auto add = [base](int k, int &out) -> int {
        out = base + k;
        return out;
    };
    base = 0;
    int r = 0;
    return add(2, r);
}

void immediate(Obj *o)
{
    [&]() {
        if (!o)
            return;
        delete o;
    }();
}

void std_function_name(Obj *o)
{
    std::function<void(Obj *)> d = release;
    d(o);
}

void Obj::drop()
{
    auto f = [this] { delete[] data; };
    f();
}

void handed_on(Obj *o)
{
    later([o] { delete o; });
}
