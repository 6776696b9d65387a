// std::conditional without <type_traits>: kernel headers must compile with NVRTC alone (-I src), so
// they include nothing from the standard library. Includes nothing.
#pragma once

namespace tilegemm {

// PickType<flag, T, F>::type is T when flag is true, else F.
template <bool kFirst, class T, class F> struct PickType { using type = T; };
template <class T, class F> struct PickType<false, T, F> { using type = F; };

}  // namespace tilegemm
