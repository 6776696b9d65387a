// Where tilegemm keeps files between runs (the tuning database, run-time compiled kernels):
// $TILEGEMM_CACHE_DIR, else $XDG_CACHE_HOME/tilegemm, else $HOME/.cache/tilegemm (/tmp/.cache/tilegemm
// without a home). Empty variables count as unset.
#pragma once
#include <string>

namespace tilegemm {
namespace detail {

std::string cache_dir();
// Creates `dir` and its parents (mode 0755); false when one cannot be created.
bool make_folders(const std::string& dir);

}  // namespace detail
}  // namespace tilegemm
