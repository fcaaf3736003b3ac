// kollide-bench-bullet — Box3D's large_pyramid (BENCHMARKS.md §1) in Bullet 3.24 (Debian's
// libbullet-dev, float): btDiscreteDynamicsWorld with the DBVT broadphase and the sequential-impulse
// solver at its defaults (10 iterations, split impulse for penetration), box shapes, sleeping
// disabled. Settings as Kollide's scene: gravity 10 m/s², 60 Hz with 4 sub-steps
// (stepSimulation(1/60, 4, 1/240) takes exactly 4: 1/60 = 4 · 1/240 in float), cube mass
// 100 kg (density 100 × 1 m³), restitution 0, friction √0.6 on every body because Bullet multiplies
// the two frictions of a pair (Kollide and Box3D take √(μa·μb)). Bullet runs in Box3D's own y-up
// coordinates; Kollide's scene is the same one turned z-up.
// SPDX-License-Identifier: MIT
#include "bullet_scenes.h"

#include <btBulletDynamicsCommon.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <memory>
#include <vector>

namespace
{

constexpr int k_base_count = 100;
constexpr float k_half = 0.5f;
constexpr float k_top_tolerance = 0.25f; // as kollide-bench's standing check
constexpr float k_sink_tolerance = 0.1f;

double now_ms()
{
	using clock = std::chrono::steady_clock;
	return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

uint32_t fnv1a(uint32_t hash, const void* data, size_t size)
{
	const unsigned char* bytes = static_cast<const unsigned char*>(data);
	for (size_t i = 0; i < size; ++i)
	{
		hash = (hash ^ bytes[i]) * 16777619u;
	}
	return hash;
}

// Everything a Bullet world needs, destroyed in the right order.
struct bullet_world
{
	btDefaultCollisionConfiguration config;
	btCollisionDispatcher dispatcher{&config};
	btDbvtBroadphase broadphase;
	btSequentialImpulseConstraintSolver solver;
	btDiscreteDynamicsWorld world{&dispatcher, &broadphase, &solver, &config};
	std::vector<std::unique_ptr<btCollisionShape>> shapes;
	std::vector<std::unique_ptr<btRigidBody>> bodies;

	~bullet_world()
	{
		for (auto& body : bodies)
		{
			world.removeRigidBody(body.get());
		}
	}

	btRigidBody* add(btCollisionShape* shape, float mass, const btVector3& position, float friction)
	{
		btVector3 inertia(0.0f, 0.0f, 0.0f);
		if (mass > 0.0f)
		{
			shape->calculateLocalInertia(mass, inertia);
		}
		btRigidBody::btRigidBodyConstructionInfo info(mass, nullptr, shape, inertia);
		info.m_startWorldTransform.setIdentity();
		info.m_startWorldTransform.setOrigin(position);
		info.m_friction = friction;
		info.m_restitution = 0.0f;
		bodies.push_back(std::make_unique<btRigidBody>(info));
		btRigidBody* body = bodies.back().get();
		body->setActivationState(DISABLE_DEACTIVATION);
		world.addRigidBody(body);
		return body;
	}
};

float lowest_cube(const std::vector<btRigidBody*>& cubes)
{
	float lowest = INFINITY;
	for (const btRigidBody* cube : cubes)
	{
		lowest = std::min(lowest, static_cast<float>(cube->getWorldTransform().getOrigin().y()));
	}
	return lowest;
}

} // namespace

bool kl_bullet_large_pyramid(int steps, kl_bullet_scene_result& out)
{
	if (steps < 2)
	{
		return false;
	}
	auto w = std::make_unique<bullet_world>();
	w->world.setGravity(btVector3(0.0f, -10.0f, 0.0f));
	const float friction = std::sqrt(0.6f);

	w->shapes.push_back(std::make_unique<btBoxShape>(btVector3(400.0f, 1.0f, 400.0f)));
	w->add(w->shapes.back().get(), 0.0f, btVector3(0.0f, -1.0f, 0.0f), friction);
	w->shapes.push_back(std::make_unique<btBoxShape>(btVector3(k_half, k_half, k_half)));
	btCollisionShape* cube = w->shapes.back().get();
	const float mass = 100.0f * 8.0f * k_half * k_half * k_half;

	// Box3D's layout: row i at y = (2i+1)h, cube j ≥ i at x = (i+1)h + 2(j−i)h − 100h, z = 0.
	std::vector<btRigidBody*> cubes;
	btRigidBody* top = nullptr;
	for (int i = 0; i < k_base_count; ++i)
	{
		float y = (2.0f * i + 1.0f) * k_half;
		for (int j = i; j < k_base_count; ++j)
		{
			float x = (i + 1.0f) * k_half + 2.0f * (j - i) * k_half - k_half * k_base_count;
			top = w->add(cube, mass, btVector3(x, y, 0.0f), friction);
			cubes.push_back(top);
		}
	}
	const float top_y0 = static_cast<float>(top->getWorldTransform().getOrigin().y());
	const float lowest0 = lowest_cube(cubes);

	const btScalar dt = 1.0f / 60.0f, fixed = 1.0f / 240.0f;
	double t0 = now_ms();
	w->world.stepSimulation(dt, 4, fixed);
	out.first_ms = now_ms() - t0;
	t0 = now_ms();
	for (int s = 1; s < steps; ++s)
	{
		w->world.stepSimulation(dt, 4, fixed);
	}
	out.ms = (now_ms() - t0) / (steps - 1);

	uint32_t hash = 2166136261u;
	for (const btRigidBody* body : cubes)
	{
		const btTransform& xf = body->getWorldTransform();
		btQuaternion q = xf.getRotation();
		float v[7] = {static_cast<float>(xf.getOrigin().x()), static_cast<float>(xf.getOrigin().y()),
					  static_cast<float>(xf.getOrigin().z()), static_cast<float>(q.x()), static_cast<float>(q.y()),
					  static_cast<float>(q.z()), static_cast<float>(q.w())};
		hash = fnv1a(hash, v, sizeof(v));
	}
	out.hash = hash;
	out.bodies = static_cast<int>(w->bodies.size());
	out.top_dy = static_cast<float>(top->getWorldTransform().getOrigin().y()) - top_y0;
	out.lowest_drop = lowest0 - lowest_cube(cubes);
	out.standing = std::fabs(out.top_dy) <= k_top_tolerance && out.lowest_drop <= k_sink_tolerance;
	return true;
}
