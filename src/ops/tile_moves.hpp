// The tuner's one-move neighbours of a schedule record (Family::neighbours): copies of the base with
// one integer field changed, in the order the moves are asked for. The families then keep those that
// compile and can run the problem.
#pragma once
#include <initializer_list>
#include <vector>

namespace tilegemm {
namespace ops {

template <class Tile>
class TileMoves {
 public:
  explicit TileMoves(const Tile& base) : base_(base) {}
  // base.field + d for each d ({-1, 1}: a pipeline stage fewer and more).
  TileMoves& shift(int Tile::*field, std::initializer_list<int> deltas) {
    for (int d : deltas) add(field, base_.*field + d);
    return *this;
  }
  // base.field doubled, then halved.
  TileMoves& scale(int Tile::*field) {
    add(field, base_.*field * 2);
    add(field, base_.*field / 2);
    return *this;
  }
  // base.field set to each value it does not hold already.
  TileMoves& set(int Tile::*field, std::initializer_list<int> values) {
    for (int v : values)
      if (v != base_.*field) add(field, v);
    return *this;
  }
  const std::vector<Tile>& moves() const { return moves_; }

 private:
  void add(int Tile::*field, int value) {
    Tile t = base_;
    t.*field = value;
    moves_.push_back(t);
  }
  Tile base_;
  std::vector<Tile> moves_;
};

}  // namespace ops
}  // namespace tilegemm
