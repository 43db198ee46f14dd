// std::unique_ptr by its contract (frontend/stdlib.rs): an object with one pointer field,
// `(owned)`, deleted by the destructor drip writes for the specialization.
#include <memory>
#include <utility>

struct Item {
    int v;
};

struct Holder {
    std::unique_ptr<Item> item;
};

int owners(Item *q)
{
    std::unique_ptr<Item> u(new Item{1});
    auto m = std::make_unique<Item>();
    std::unique_ptr<Item> w = std::move(u);
    Item *r = m.release();
    w.reset(q);
    w.reset();
    delete r;
    std::unique_ptr<Item[]> a(new Item[4]);
    Holder h;
    h.item = std::move(w);
    return a[1].v + h.item->v + (*h.item).v;
}

// Not modelled: a custom deleter (what the owner holds escapes), a program's own `unique_ptr`.
namespace mine {
template <typename T> struct unique_ptr {
    T *p;
    explicit unique_ptr(T *q) : p(q) {}
};
} // namespace mine

static void drop(Item *p)
{
    delete p;
}

void not_owners(void)
{
    std::unique_ptr<Item, void (*)(Item *)> c(new Item{1}, drop);
    mine::unique_ptr<Item> m(new Item{2});
}
