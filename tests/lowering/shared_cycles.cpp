// Cycles of std::shared_ptr owners (`frontend/owner_cycles.rs`): the calls stay opaque in the
// IR; the function lists each cycle it builds and loses (`owner cycle:`), and nothing else.
#include <memory>

struct Node {
    std::shared_ptr<Node> next;
    std::weak_ptr<Node> back;
};

void ring(void)
{
    auto a = std::make_shared<Node>();
    auto b = std::make_shared<Node>();
    a->next = b;
    b->next = a;
}

void weak_back(void)
{
    auto a = std::make_shared<Node>();
    auto b = std::make_shared<Node>();
    a->next = b;
    b->back = a;
}
