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
