#pragma once

// The per-fish types of shaders/step_rule.h for eight fish at a time: `real`, `flag`, `rvec3`,
// `rvec4`, `ruint`, the sums and the update, over GCC's vector extensions. Each operation is
// GLM's scalar one lane by lane, in the same order (GLM's min, max, abs, clamp, dot, length,
// cross, mix), so a fish steps to the same bits in a lane as alone (-ffp-contract=off; sqrt
// and division are exact in every instruction set). StepLanes<1> names the scalar types.

#include <cmath>
#include <cstdint>

#include <glm/vec3.hpp>
#include <glm/vec4.hpp>

#include "core/Hash.h"

namespace fishschool::glsl {

inline constexpr int kStepLanes = 8;

namespace lanes {
using F = float __attribute__((vector_size(kStepLanes * sizeof(float))));
using I = std::int32_t __attribute__((vector_size(kStepLanes * sizeof(std::int32_t))));
using U = std::uint32_t __attribute__((vector_size(kStepLanes * sizeof(std::uint32_t))));
}  // namespace lanes

/// A per-fish bool: all ones where true.
struct Flag8 {
    lanes::I m;
    Flag8() = default;
    explicit Flag8(lanes::I mask) : m(mask) {}
    Flag8(bool b) : m(lanes::I{} - (b ? 1 : 0)) {}
};
inline Flag8 operator&&(Flag8 a, Flag8 b) {
    return Flag8(a.m & b.m);
}
inline Flag8 operator||(Flag8 a, Flag8 b) {
    return Flag8(a.m | b.m);
}
inline Flag8 operator!(Flag8 a) {
    return Flag8(~a.m);
}
inline bool anyLane(Flag8 c) {
    lanes::I m = c.m;
    for (int l = 1; l < kStepLanes; ++l) m[0] |= m[l];
    return m[0] != 0;
}

/// A per-fish unsigned int.
struct UInt8 {
    lanes::U v;
    UInt8() = default;
    explicit UInt8(lanes::U x) : v(x) {}
    UInt8(std::uint32_t s) : v{s, s, s, s, s, s, s, s} {}
};
inline UInt8 operator+(UInt8 a, UInt8 b) {
    return UInt8(a.v + b.v);
}
inline UInt8 operator*(UInt8 a, UInt8 b) {
    return UInt8(a.v * b.v);
}
inline UInt8 operator^(UInt8 a, UInt8 b) {
    return UInt8(a.v ^ b.v);
}
inline UInt8 operator>>(UInt8 a, std::uint32_t s) {
    return UInt8(a.v >> s);
}
inline UInt8& operator^=(UInt8& a, UInt8 b) {
    return a = a ^ b;
}
inline UInt8& operator*=(UInt8& a, UInt8 b) {
    return a = a * b;
}
inline Flag8 operator>(UInt8 a, UInt8 b) {
    return Flag8((lanes::I)(a.v > b.v));
}

/// A per-fish float.
struct Real8 {
    lanes::F v;
    Real8() = default;
    explicit Real8(lanes::F x) : v(x) {}
    Real8(float s) : v{s, s, s, s, s, s, s, s} {}
    explicit Real8(UInt8 u) : v(__builtin_convertvector(u.v, lanes::F)) {}
};
inline Real8 operator+(Real8 a, Real8 b) {
    return Real8(a.v + b.v);
}
inline Real8 operator-(Real8 a, Real8 b) {
    return Real8(a.v - b.v);
}
inline Real8 operator*(Real8 a, Real8 b) {
    return Real8(a.v * b.v);
}
inline Real8 operator/(Real8 a, Real8 b) {
    return Real8(a.v / b.v);
}
inline Real8 operator-(Real8 a) {
    return Real8(-a.v);
}
inline Real8& operator+=(Real8& a, Real8 b) {
    return a = a + b;
}
inline Real8& operator-=(Real8& a, Real8 b) {
    return a = a - b;
}
inline Flag8 operator<(Real8 a, Real8 b) {
    return Flag8(a.v < b.v);
}
inline Flag8 operator<=(Real8 a, Real8 b) {
    return Flag8(a.v <= b.v);
}
inline Flag8 operator>(Real8 a, Real8 b) {
    return Flag8(a.v > b.v);
}
inline Flag8 operator>=(Real8 a, Real8 b) {
    return Flag8(a.v >= b.v);
}
inline Flag8 operator==(Real8 a, Real8 b) {
    return Flag8(a.v == b.v);
}
inline Flag8 operator!=(Real8 a, Real8 b) {
    return Flag8(a.v != b.v);
}

inline Real8 select(Flag8 c, Real8 a, Real8 b) {
    return Real8((lanes::F)((c.m & (lanes::I)a.v) | (~c.m & (lanes::I)b.v)));
}
inline UInt8 select(Flag8 c, UInt8 a, UInt8 b) {
    return UInt8((lanes::U)((c.m & (lanes::I)a.v) | (~c.m & (lanes::I)b.v)));
}
// GLM's scalar min, max, abs and clamp, NaN and -0 included.
inline Real8 min(Real8 x, Real8 y) {
    return select(y < x, y, x);
}
inline Real8 max(Real8 x, Real8 y) {
    return select(x < y, y, x);
}
inline Real8 abs(Real8 x) {
    return select(x >= 0.0f, x, -x);
}
inline Real8 clamp(Real8 x, Real8 low, Real8 high) {
    return min(max(x, low), high);
}
// Lane by lane, as scalar code calls them: GCC makes a square root of all eight
// (-fno-math-errno), the others stay libm's calls, the same bits as one fish's.
inline Real8 sqrt(Real8 x) {
    for (int l = 0; l < kStepLanes; ++l) x.v[l] = std::sqrt(x.v[l]);
    return x;
}
inline Real8 floor(Real8 x) {
    for (int l = 0; l < kStepLanes; ++l) x.v[l] = std::floor(x.v[l]);
    return x;
}
inline Real8 cos(Real8 x) {
    for (int l = 0; l < kStepLanes; ++l) x.v[l] = std::cos(x.v[l]);
    return x;
}
inline Real8 sin(Real8 x) {
    for (int l = 0; l < kStepLanes; ++l) x.v[l] = std::sin(x.v[l]);
    return x;
}

/// A per-fish vec3.
struct Vec3L {
    Real8 x, y, z;
    Vec3L() = default;
    explicit Vec3L(Real8 s) : x(s), y(s), z(s) {}
    Vec3L(Real8 a, Real8 b, Real8 c) : x(a), y(b), z(c) {}
    Vec3L(const glm::vec3& g) : x(g.x), y(g.y), z(g.z) {}
    Real8& operator[](int k) { return k == 0 ? x : (k == 1 ? y : z); }
};
inline Vec3L operator+(const Vec3L& a, const Vec3L& b) {
    return {a.x + b.x, a.y + b.y, a.z + b.z};
}
inline Vec3L operator-(const Vec3L& a, const Vec3L& b) {
    return {a.x - b.x, a.y - b.y, a.z - b.z};
}
inline Vec3L operator*(const Vec3L& a, const Vec3L& b) {
    return {a.x * b.x, a.y * b.y, a.z * b.z};
}
inline Vec3L operator/(const Vec3L& a, const Vec3L& b) {
    return {a.x / b.x, a.y / b.y, a.z / b.z};
}
inline Vec3L operator+(const Vec3L& a, Real8 s) {
    return {a.x + s, a.y + s, a.z + s};
}
inline Vec3L operator-(const Vec3L& a, Real8 s) {
    return {a.x - s, a.y - s, a.z - s};
}
inline Vec3L operator*(const Vec3L& a, Real8 s) {
    return {a.x * s, a.y * s, a.z * s};
}
inline Vec3L operator/(const Vec3L& a, Real8 s) {
    return {a.x / s, a.y / s, a.z / s};
}
inline Vec3L operator*(Real8 s, const Vec3L& a) {
    return {s * a.x, s * a.y, s * a.z};
}
inline Vec3L operator-(const Vec3L& a) {
    return {-a.x, -a.y, -a.z};
}
inline Vec3L& operator+=(Vec3L& a, const Vec3L& b) {
    return a = a + b;
}
inline Vec3L& operator*=(Vec3L& a, Real8 s) {
    return a = a * s;
}
inline Flag8 operator==(const Vec3L& a, const Vec3L& b) {
    return a.x == b.x && a.y == b.y && a.z == b.z;
}
inline Flag8 operator!=(const Vec3L& a, const Vec3L& b) {
    return !(a == b);
}
inline Vec3L select(Flag8 c, const Vec3L& a, const Vec3L& b) {
    return {select(c, a.x, b.x), select(c, a.y, b.y), select(c, a.z, b.z)};
}
inline Real8 dot(const Vec3L& a, const Vec3L& b) {
    Vec3L t = a * b;
    return t.x + t.y + t.z;
}
inline Real8 length(const Vec3L& a) {
    return sqrt(dot(a, a));
}
inline Vec3L cross(const Vec3L& a, const Vec3L& b) {
    return {a.y * b.z - b.y * a.z, a.z * b.x - b.z * a.x, a.x * b.y - b.x * a.y};
}
inline Vec3L floor(const Vec3L& a) {
    return {floor(a.x), floor(a.y), floor(a.z)};
}

/// A per-fish vec4 (the prioritized sum and whether its budget is spent).
struct Vec4L {
    Real8 x, y, z, w;
    Vec4L() = default;
    explicit Vec4L(Real8 s) : x(s), y(s), z(s), w(s) {}
    Vec4L(const Vec3L& a, Real8 d) : x(a.x), y(a.y), z(a.z), w(d) {}
    explicit operator Vec3L() const { return {x, y, z}; }
};
inline Vec4L select(Flag8 c, const Vec4L& a, const Vec4L& b) {
    return {Vec3L(select(c, a.x, b.x), select(c, a.y, b.y), select(c, a.z, b.z)),
            select(c, a.w, b.w)};
}

/// shaders/hash.h's text over lanes: lowbias32 in each lane. Hash.h has compiled it once for
/// one fish and set its guard; lifted here for this one more compile, the guard is set again
/// after, so the text's other includes still skip it.
struct HashLanes {
    using uint = UInt8;
#undef FISHSCHOOL_HASH_H
#include "hash.h"
};
inline UInt8 lowbias32(UInt8 x) {
    return HashLanes{}.lowbias32(x);
}

/// step_params.h's NeighborSums and FishUpdate, eight fish each.
struct NeighborSums8 {
    Vec3L cohesion, separation, alignment, sidestep;
    UInt8 cohesionCount, separationCount, alignmentCount;
};
struct FishUpdate8 {
    Vec3L position, velocity, acceleration;
    Real8 kickClock;
};

// One fish: step_rule.h's select and anyLane on GLSL's types.
inline float select(bool c, float a, float b) {
    return c ? a : b;
}
inline std::uint32_t select(bool c, std::uint32_t a, std::uint32_t b) {
    return c ? a : b;
}
inline glm::vec3 select(bool c, const glm::vec3& a, const glm::vec3& b) {
    return c ? a : b;
}
inline glm::vec4 select(bool c, const glm::vec4& a, const glm::vec4& b) {
    return c ? a : b;
}
inline bool anyLane(bool c) {
    return c;
}

}  // namespace fishschool::glsl
