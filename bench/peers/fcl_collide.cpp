// Kollide — kollide-collide-fcl: FCL 0.7's boolean mesh–mesh collide (BVHModel<OBBRSS>, double) on the
// same meshes and pose files as kollide-collide, for the side-by-side benchmark (docs/mesh-benchmarks.md).
// SPDX-License-Identifier: MIT
#include "peer_driver.h"

#include <fcl/geometry/bvh/BVH_model.h>
#include <fcl/math/bv/OBBRSS.h>
#include <fcl/narrowphase/collision.h>

#include <cstdio>
#include <exception>
#include <memory>
#include <vector>

namespace
{
using model_type = fcl::BVHModel<fcl::OBBRSSd>;

/// B's pose and one boolean request: at most one contact and no contact details, so FCL's
/// traversal stops at the first intersecting triangle pair (MeshCollisionTraversalNode::canStop).
struct fcl_query
{
	const model_type* a;
	const model_type* b;
	fcl::Transform3d pose_a; ///< the identity
	fcl::Transform3d pose_b;
	fcl::CollisionRequestd request;
};

/// FCL's default OBBRSS build: top-down, split at the mean along the OBB's longest axis.
void* fcl_build(const kl_peer_mesh* mesh, char* err, size_t err_size)
{
	try
	{
		std::vector<fcl::Vector3d> points((size_t)mesh->vertex_count);
		std::vector<fcl::Triangle> triangles((size_t)mesh->triangle_count);
		for (size_t i = 0; i < points.size(); ++i)
		{
			const float* p = mesh->vertices + 3 * i;
			points[i] = fcl::Vector3d(p[0], p[1], p[2]);
		}
		for (size_t t = 0; t < triangles.size(); ++t)
		{
			const int32_t* v = mesh->indices + 3 * t;
			triangles[t].set((size_t)v[0], (size_t)v[1], (size_t)v[2]);
		}
		auto model = std::make_unique<model_type>();
		if (model->beginModel((int)triangles.size(), (int)points.size()) != fcl::BVH_OK ||
			model->addSubModel(points, triangles) != fcl::BVH_OK || model->endModel() != fcl::BVH_OK)
		{
			std::snprintf(err, err_size, "FCL could not build the BVHModel<OBBRSS>");
			return nullptr;
		}
		return model.release();
	}
	catch (const std::exception& e)
	{
		std::snprintf(err, err_size, "FCL build failed: %s", e.what());
		return nullptr;
	}
}

int fcl_node_count(const void* model)
{
	return static_cast<const model_type*>(model)->getNumBVs();
}

void fcl_destroy(void* model)
{
	delete static_cast<model_type*>(model);
}

void* fcl_query_create(void* a, void* b, char* err, size_t err_size)
{
	try
	{
		auto* q = new fcl_query{static_cast<model_type*>(a), static_cast<model_type*>(b),
								fcl::Transform3d::Identity(), fcl::Transform3d::Identity(), fcl::CollisionRequestd(1, false)};
		return q;
	}
	catch (const std::exception& e)
	{
		std::snprintf(err, err_size, "%s", e.what());
		return nullptr;
	}
}

void fcl_query_destroy(void* query)
{
	delete static_cast<fcl_query*>(query);
}

void fcl_set_pose(void* query, const double m34[12])
{
	auto* q = static_cast<fcl_query*>(query);
	q->pose_b.setIdentity();
	for (int r = 0; r < 3; ++r)
	{
		for (int c = 0; c < 3; ++c)
		{
			q->pose_b.linear()(r, c) = m34[4 * r + c];
		}
		q->pose_b.translation()(r) = m34[4 * r + 3];
	}
}

bool fcl_collide(void* query, bool* failed, char* err, size_t err_size)
{
	auto* q = static_cast<fcl_query*>(query);
	try
	{
		fcl::CollisionResultd result;
		fcl::collide(q->a, q->pose_a, q->b, q->pose_b, q->request, result);
		return result.isCollision();
	}
	catch (const std::exception& e)
	{
		*failed = true;
		std::snprintf(err, err_size, "FCL collide failed: %s", e.what());
		return false;
	}
}
} // namespace

int main(int argc, char** argv)
{
	static const kl_peer_backend backend = {"kollide-collide-fcl", "OBBRSS", fcl_build, fcl_node_count, fcl_destroy,
											fcl_query_create, fcl_query_destroy, fcl_set_pose, fcl_collide};
	return kl_peer_main(argc, argv, &backend);
}
