// Kollide — the shared driver of the peer-library mesh-pair benchmarks (kollide-collide-fcl,
// kollide-collide-gimpact): arguments, mesh and pose loading through tools/collide, timing and output
// in exactly kollide-collide's format. A peer only builds its models and answers one boolean query.
// SPDX-License-Identifier: MIT
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// One loaded mesh, borrowed from the driver for the duration of the peer's build call (the arrays stay
/// valid until the program ends, so a peer may also keep pointers into them).
typedef struct kl_peer_mesh
{
	const char* spec;
	const float* vertices; ///< 3 floats per vertex
	int vertex_count;
	const int32_t* indices; ///< 3 per triangle
	int triangle_count;
} kl_peer_mesh;

/// What a peer library provides. Every function reports failure by returning NULL / false with a
/// message in err; none may throw (C++ peers catch their exceptions).
typedef struct kl_peer_backend
{
	const char* tool; ///< program name for messages, e.g. "kollide-collide-fcl"
	const char* bv;	  ///< bounding volume / structure named in the build line, e.g. "OBBRSS"
	/// Builds the peer's collision model of one mesh (this call is the timed build).
	void* (*build)(const kl_peer_mesh* mesh, char* err, size_t err_size);
	/// Node (bounding volume) count of a built model, for the build line.
	int (*node_count)(const void* model);
	void (*destroy)(void* model);
	/// Per-run query state for models a (fixed at the identity) and b (posed); NULL on failure.
	void* (*query_create)(void* a, void* b, char* err, size_t err_size);
	void (*query_destroy)(void* query);
	/// Places B (not timed): a row-major 3×4 [R | t] that maps B's coordinates into A's frame.
	void (*set_pose)(void* query, const double m34[12]);
	/// The timed boolean query; false with a message in err sets *failed.
	bool (*collide)(void* query, bool* failed, char* err, size_t err_size);
} kl_peer_backend;

/// The whole program: `TOOL A B --poses FILE [--query collide] [--stats]`. Returns the exit status
/// (0 ok, 1 load or query failure, 2 bad usage), as kollide-collide does.
int kl_peer_main(int argc, char** argv, const kl_peer_backend* backend);

#ifdef __cplusplus
}
#endif
