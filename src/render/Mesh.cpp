#include "Mesh.h"

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>

#include <glm/geometric.hpp>

namespace fishschool::render {
namespace {

void addTriangle(Mesh& mesh, const glm::vec3& a, const glm::vec3& b, const glm::vec3& c) {
    glm::vec3 n = glm::cross(b - a, c - a);
    const float len = glm::length(n);
    n = len > 0.0f ? n / len : glm::vec3(0.0f, 1.0f, 0.0f);
    mesh.push_back({a, n});
    mesh.push_back({b, n});
    mesh.push_back({c, n});
}

}  // namespace

Result<Mesh> loadObj(const std::filesystem::path& path) {
    std::ifstream in(path);
    if (!in) return fail(path.string() + ": cannot open the mesh file");
    std::vector<glm::vec3> positions;
    Mesh mesh;
    std::string line;
    for (int lineNumber = 1; std::getline(in, line); ++lineNumber) {
        std::istringstream words(line);
        std::string kind;
        words >> kind;
        const std::string where = path.string() + ":" + std::to_string(lineNumber) + ": ";
        if (kind == "v") {
            glm::vec3 p;
            if (!(words >> p.x >> p.y >> p.z)) return fail(where + "a vertex needs three numbers");
            positions.push_back(p);
        } else if (kind == "f") {
            std::vector<glm::vec3> corners;
            std::string corner;
            while (words >> corner) {
                // "i", "i/t" or "i/t/n": only the position index is used.
                int index = 0;
                try {
                    index = std::stoi(corner.substr(0, corner.find('/')));
                } catch (const std::exception&) {
                    return fail(where + "bad face index '" + corner + "'");
                }
                if (index < 0) index += static_cast<int>(positions.size()) + 1;
                if (index < 1 || index > static_cast<int>(positions.size()))
                    return fail(where + "face index " + corner + " refers to no vertex");
                corners.push_back(positions[static_cast<std::size_t>(index - 1)]);
            }
            if (corners.size() < 3) return fail(where + "a face needs at least three vertices");
            for (std::size_t k = 1; k + 1 < corners.size(); ++k)
                addTriangle(mesh, corners[0], corners[k], corners[k + 1]);
        }
    }
    if (mesh.empty()) return fail(path.string() + ": no faces");
    return mesh;
}

Mesh makeSphere(int rings, int segments) {
    Mesh mesh;
    auto point = [&](int ring, int segment) {
        const float theta = 3.14159265f * static_cast<float>(ring) / static_cast<float>(rings);
        const float phi = 6.28318531f * static_cast<float>(segment) / static_cast<float>(segments);
        return glm::vec3(std::sin(theta) * std::cos(phi), std::cos(theta),
                         std::sin(theta) * std::sin(phi));
    };
    for (int r = 0; r < rings; ++r) {
        for (int s = 0; s < segments; ++s) {
            const glm::vec3 a = point(r, s), b = point(r + 1, s), c = point(r + 1, s + 1),
                            d = point(r, s + 1);
            if (r > 0) addTriangle(mesh, a, d, c);
            if (r + 1 < rings) addTriangle(mesh, a, c, b);
        }
    }
    return mesh;
}

}  // namespace fishschool::render
