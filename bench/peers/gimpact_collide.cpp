// Kollide — kollide-collide-gimpact: Bullet 3.24's GImpact mesh–mesh collision (btGImpactMeshShape,
// btGImpactCollisionAlgorithm) on the same meshes and pose files as kollide-collide, for the side-by-side
// benchmark (docs/mesh-benchmarks.md).
//
// GImpact has no boolean query: it finds every pair of overlapping leaf boxes (quantized AABB tree) and
// makes contact points for each pair of triangles with the clipping method. A pose counts as colliding
// when any contact has distance ≤ 0. Margins are set to 0 (Bullet's default would grow every box and
// report triangles within the margin as touching); even so, the clipping method is a contact generator,
// not an exact intersection test, so its answers may differ from the exact ones near touching.
// SPDX-License-Identifier: MIT
#include "peer_driver.h"

#include <btBulletCollisionCommon.h>
#include <BulletCollision/Gimpact/btGImpactCollisionAlgorithm.h>
#include <BulletCollision/Gimpact/btGImpactShape.h>

#include <cstdio>
#include <exception>
#include <memory>

namespace
{
/// The mesh as Bullet sees it: the driver's arrays (float vertices, int32 indices) without a copy.
struct gimpact_model
{
	btTriangleIndexVertexArray mesh;
	btGImpactMeshShape shape;

	explicit gimpact_model(const kl_peer_mesh* m)
		: mesh(m->triangle_count, const_cast<int*>(reinterpret_cast<const int*>(m->indices)), 3 * (int)sizeof(int),
			   m->vertex_count, const_cast<btScalar*>(m->vertices), 3 * (int)sizeof(btScalar)),
		  shape(&mesh)
	{
	}
};

/// Records whether any contact point with distance ≤ 0 arrives, and nothing else: the persistent
/// manifold's bookkeeping is not part of the query.
struct boolean_result : public btManifoldResult
{
	bool hit = false;

	boolean_result(const btCollisionObjectWrapper* a, const btCollisionObjectWrapper* b) : btManifoldResult(a, b) {}

	void addContactPoint(const btVector3&, const btVector3&, btScalar depth) override
	{
		hit = hit || depth <= btScalar(0);
	}
};

/// A dispatcher with GImpact registered, the two objects, and the GImpact–GImpact algorithm found once.
struct gimpact_query
{
	btDefaultCollisionConfiguration config;
	btCollisionDispatcher dispatcher;
	btCollisionObject object_a;
	btCollisionObject object_b;
	btCollisionObjectWrapper wrap_a;
	btCollisionObjectWrapper wrap_b;
	btDispatcherInfo info;
	boolean_result result;
	btCollisionAlgorithm* algorithm = nullptr;

	gimpact_query(gimpact_model* a, gimpact_model* b)
		: dispatcher(&config),
		  wrap_a(nullptr, &a->shape, &object_a, object_a.getWorldTransform(), -1, -1),
		  wrap_b(nullptr, &b->shape, &object_b, object_b.getWorldTransform(), -1, -1),
		  result(&wrap_a, &wrap_b)
	{
		btGImpactCollisionAlgorithm::registerAlgorithm(&dispatcher);
		object_a.setCollisionShape(&a->shape);
		object_b.setCollisionShape(&b->shape);
		object_b.setCollisionFlags(0); // a moving object (the default flag is static)
		algorithm = dispatcher.findAlgorithm(&wrap_a, &wrap_b, nullptr, BT_CONTACT_POINT_ALGORITHMS);
	}

	~gimpact_query()
	{
		if (algorithm != nullptr)
		{
			algorithm->~btCollisionAlgorithm();
			dispatcher.freeCollisionAlgorithm(algorithm);
		}
	}
};

/// Bullet's GImpact build: the quantized AABB tree of each mesh part (updateBound), margin 0.
void* gimpact_build(const kl_peer_mesh* mesh, char* err, size_t err_size)
{
	try
	{
		auto model = std::make_unique<gimpact_model>(mesh);
		model->shape.setMargin(0.0f);
		model->shape.updateBound();
		return model.release();
	}
	catch (const std::exception& e)
	{
		std::snprintf(err, err_size, "GImpact build failed: %s", e.what());
		return nullptr;
	}
}

int gimpact_node_count(const void* model)
{
	const btGImpactMeshShape& shape = static_cast<const gimpact_model*>(model)->shape;
	int nodes = 0;
	for (int i = 0; i < shape.getMeshPartCount(); ++i)
	{
		nodes += shape.getMeshPart(i)->getBoxSet()->getNodeCount();
	}
	return nodes;
}

void gimpact_destroy(void* model)
{
	delete static_cast<gimpact_model*>(model);
}

void* gimpact_query_create(void* a, void* b, char* err, size_t err_size)
{
	try
	{
		auto q = std::make_unique<gimpact_query>(static_cast<gimpact_model*>(a), static_cast<gimpact_model*>(b));
		if (q->algorithm == nullptr)
		{
			std::snprintf(err, err_size, "Bullet found no collision algorithm for two GImpact shapes");
			return nullptr;
		}
		return q.release();
	}
	catch (const std::exception& e)
	{
		std::snprintf(err, err_size, "%s", e.what());
		return nullptr;
	}
}

void gimpact_query_destroy(void* query)
{
	delete static_cast<gimpact_query*>(query);
}

void gimpact_set_pose(void* query, const double m34[12])
{
	auto* q = static_cast<gimpact_query*>(query);
	btMatrix3x3 basis((btScalar)m34[0], (btScalar)m34[1], (btScalar)m34[2], (btScalar)m34[4], (btScalar)m34[5],
					  (btScalar)m34[6], (btScalar)m34[8], (btScalar)m34[9], (btScalar)m34[10]);
	btVector3 origin((btScalar)m34[3], (btScalar)m34[7], (btScalar)m34[11]);
	q->object_b.setWorldTransform(btTransform(basis, origin));
}

bool gimpact_collide(void* query, bool* failed, char* err, size_t err_size)
{
	auto* q = static_cast<gimpact_query*>(query);
	try
	{
		q->result.hit = false;
		q->algorithm->processCollision(&q->wrap_a, &q->wrap_b, q->info, &q->result);
		return q->result.hit;
	}
	catch (const std::exception& e)
	{
		*failed = true;
		std::snprintf(err, err_size, "GImpact query failed: %s", e.what());
		return false;
	}
}
} // namespace

int main(int argc, char** argv)
{
	static const kl_peer_backend backend = {"kollide-collide-gimpact", "GImpact-quantized-AABB", gimpact_build,
											gimpact_node_count, gimpact_destroy, gimpact_query_create,
											gimpact_query_destroy, gimpact_set_pose, gimpact_collide};
	return kl_peer_main(argc, argv, &backend);
}
