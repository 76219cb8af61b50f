#include "fishschool/Anisotropy.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

#include <glm/geometric.hpp>
#include <glm/mat3x3.hpp>

namespace fishschool {
namespace {

constexpr double kNan = std::numeric_limits<double>::quiet_NaN();

/// The unit eigenvector of the smallest eigenvalue of the symmetric matrix m, by Jacobi
/// rotations (exact enough for a 3 x 3 in a few sweeps).
glm::dvec3 smallestEigenvector(glm::dmat3 m) {
    glm::dmat3 vectors(1.0);
    for (int sweep = 0; sweep < 50; ++sweep) {
        const double off = m[0][1] * m[0][1] + m[0][2] * m[0][2] + m[1][2] * m[1][2];
        if (off < 1e-30) break;
        for (int p = 0; p < 2; ++p) {
            for (int q = p + 1; q < 3; ++q) {
                if (std::abs(m[p][q]) < 1e-300) continue;
                const double theta = (m[q][q] - m[p][p]) / (2.0 * m[p][q]);
                const double t = (theta >= 0.0 ? 1.0 : -1.0) /
                                 (std::abs(theta) + std::sqrt(theta * theta + 1.0));
                const double c = 1.0 / std::sqrt(t * t + 1.0), s = t * c;
                glm::dmat3 rotation(1.0);  // columns: rotation[col][row]
                rotation[p][p] = c;
                rotation[q][q] = c;
                rotation[q][p] = s;
                rotation[p][q] = -s;
                m = glm::transpose(rotation) * m * rotation;
                vectors = vectors * rotation;
            }
        }
    }
    int smallest = 0;
    for (int k = 1; k < 3; ++k)
        if (m[k][k] < m[smallest][smallest]) smallest = k;
    return glm::normalize(vectors[smallest]);
}

}  // namespace

AnisotropyFrame anisotropyOfFrame(std::span<const Fish> school, const SimParams& params,
                                  std::size_t largestN) {
    AnisotropyFrame out;
    out.gamma.assign(largestN, kNan);
    out.counted.assign(largestN, 0);
    const std::size_t n = school.size();
    if (n < 2 || largestN == 0) return out;
    const bool flat = params.dimensions == 2;
    const auto place = [&](const glm::vec3& p) {
        return flat ? glm::dvec3(p.x, 0.0, p.z) : glm::dvec3(p);
    };
    glm::dvec3 centre(0.0), heading(0.0);
    for (const Fish& f : school) {
        centre += place(f.position);
        const glm::dvec3 v = place(f.velocity);
        if (const double speed = glm::length(v); speed > 0.0) heading += v / speed;
    }
    centre /= static_cast<double>(n);
    if (glm::length(heading) == 0.0) return out;  // no mean heading, nothing to measure against
    heading = glm::normalize(heading);
    double farthest = 0.0;
    for (const Fish& f : school)
        farthest = std::max(farthest, glm::length(place(f.position) - centre));

    const std::size_t reach = std::min(largestN, n - 1);
    std::vector<std::array<double, 6>> sums(reach, std::array<double, 6>{});  // xx xy xz yy yz zz
    std::vector<std::pair<double, std::size_t>> others(n - 1);
    for (std::size_t i = 0; i < n; ++i) {
        const glm::dvec3 p = place(school[i].position);
        std::size_t k = 0;
        for (std::size_t j = 0; j < n; ++j) {
            if (j == i) continue;
            const glm::dvec3 d = place(school[j].position) - p;
            others[k++] = {glm::dot(d, d), j};  // ties by the smaller index
        }
        std::partial_sort(others.begin(), others.begin() + static_cast<std::ptrdiff_t>(reach),
                          others.end());
        const double fromCentre = glm::length(p - centre);
        for (std::size_t m = 0; m < reach; ++m) {
            const double distance = std::sqrt(others[m].first);
            if (fromCentre + distance > farthest || distance == 0.0) continue;
            const glm::dvec3 u = (place(school[others[m].second].position) - p) / distance;
            std::array<double, 6>& s = sums[m];
            s[0] += u.x * u.x, s[1] += u.x * u.y, s[2] += u.x * u.z;
            s[3] += u.y * u.y, s[4] += u.y * u.z, s[5] += u.z * u.z;
            ++out.counted[m];
        }
    }
    for (std::size_t m = 0; m < reach; ++m) {
        if (out.counted[m] == 0) continue;
        const std::array<double, 6>& s = sums[m];
        const double count = static_cast<double>(out.counted[m]);
        glm::dmat3 matrix(s[0], s[1], s[2], s[1], s[3], s[4], s[2], s[4], s[5]);
        matrix /= count;
        glm::dvec3 w;
        if (flat) {
            // In the plane the vertical is an eigenvector of eigenvalue 0: the smallest of the
            // x-z block's two is wanted.
            const double a = matrix[0][0], b = matrix[0][2], c = matrix[2][2];
            const double smallest = 0.5 * (a + c) - std::sqrt(0.25 * (a - c) * (a - c) + b * b);
            w = std::abs(b) > 1e-15 ? glm::dvec3(b, 0.0, smallest - a)
                : a <= c            ? glm::dvec3(1.0, 0.0, 0.0)
                                    : glm::dvec3(0.0, 0.0, 1.0);
            w = glm::normalize(w);
        } else {
            w = smallestEigenvector(matrix);
        }
        const double along = glm::dot(w, heading);
        out.gamma[m] = along * along;
    }
    return out;
}

Anisotropy summariseAnisotropy(std::span<const AnisotropyFrame> frames, int dimensions) {
    Anisotropy out;
    out.isotropic = dimensions == 2 ? 0.5 : 1.0 / 3.0;
    std::size_t largest = 0;
    for (const AnisotropyFrame& f : frames) largest = std::max(largest, f.gamma.size());
    out.gamma.assign(largest, kNan);
    out.error.assign(largest, kNan);
    out.frames.assign(largest, 0);
    for (std::size_t m = 0; m < largest; ++m) {
        double sum = 0.0, squares = 0.0;
        std::size_t count = 0;
        for (const AnisotropyFrame& f : frames) {
            if (m >= f.gamma.size() || std::isnan(f.gamma[m])) continue;
            sum += f.gamma[m];
            squares += f.gamma[m] * f.gamma[m];
            ++count;
        }
        out.frames[m] = count;
        if (count == 0) continue;
        const double mean = sum / static_cast<double>(count);
        out.gamma[m] = mean;
        if (count > 1) {
            const double variance =
                std::max(squares / static_cast<double>(count) - mean * mean, 0.0) *
                static_cast<double>(count) / static_cast<double>(count - 1);
            out.error[m] = std::sqrt(variance / static_cast<double>(count));
        }
        if (out.nc == 0 && !std::isnan(out.error[m]) &&
            std::abs(mean - out.isotropic) <= 2.0 * out.error[m])
            out.nc = m + 1;
    }
    return out;
}

}  // namespace fishschool
