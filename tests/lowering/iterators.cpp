// Iterator loops over a container of raw pointers (frontend/iterators.rs): a hidden counter
// from 0 to the container's `(size)`, `*it` and `it->second` the cell; an iterator handed to
// `erase` lets the container escape there.
#include <map>
#include <vector>

struct Item {
    int v;
};

void iterators(std::vector<Item *> &v, std::map<int, Item *> &m)
{
    for (std::vector<Item *>::iterator it = v.begin(); it != v.end(); ++it)
        delete *it;
    for (auto it = m.begin(); m.end() != it; it++)
        delete it->second;
    std::vector<Item *>::iterator e = v.begin();
    if (e != v.end())
        v.erase(e);
}
