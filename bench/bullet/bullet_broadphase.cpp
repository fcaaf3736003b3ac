// kollide-bench-bullet — kollide-bench's broadphase scenes run through Bullet 3 (Debian's
// libbullet-dev 3.24, float): btAxisSweep3 (bt32BitAxisSweep3 above 16k proxies) and
// btDbvtBroadphase. The boxes come from the same generator (bp_motion.c) and setAabb is called
// exactly when Kollide's move_proxy is, so both engines get the same work. Timed per update:
// createProxy for new proxies, setAabb for moved ones, calculateOverlappingPairs, as the
// broadphase part of btCollisionWorld::performDiscreteCollisionDetection.
//
// Prints scene,bodies,threads,steps,ms_per_step,hash like kollide-bench with scene names
// bullet_axis3:<scene> and bullet_dbvt:<scene>. The hash is over the exact pairs: Bullet's pair
// cache holds more (AxisSweep quantizes conservatively, the DBVT fattens its leaves by gDbvtMargin
// and drops stale pairs lazily, 10 % of the cache per update), so the pairs whose boxes do not
// really overlap are filtered out before hashing (not timed); --details reports both counts.
//
// The program also runs Box3D's large_pyramid in Bullet (bullet_pyramid.cpp), printed as
// bullet:large_pyramid with its own --details section (the standing check).
// SPDX-License-Identifier: MIT
#include "bp_motion.h"
#include "bullet_scenes.h"

#include <btBulletCollisionCommon.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace
{

enum class engine_kind
{
	axis3,
	dbvt,
};

struct options
{
	const char* scene = "all";
	int steps = 0; // 0: the scene's default
	int repeats = 5;
	bool axis3 = true;
	bool dbvt = true;
	bool details = false;
	// AxisSweep inserts a proxy by sliding its edges down from the end of each axis, O(n) per
	// proxy for boxes in random order: 1M proxies would take hours. Larger scenes skip it.
	int axis3_max = 200000;
};

struct result
{
	uint32_t hash = 0;
	int bodies = 0;
	int raw_pairs = 0;
	int pairs = 0;
	double setup_ms = 0.0;
	double moved = 0.0;
	double created = 0.0;
};

double now_ms()
{
	using clock = std::chrono::steady_clock;
	return std::chrono::duration<double, std::milli>(clock::now().time_since_epoch()).count();
}

btVector3 to_bt(const float* v)
{
	return btVector3(v[0], v[1], v[2]);
}

// Creates the proxies that appeared and moves the changed ones, with btCollisionWorld's filter
// groups: static proxies never pair with each other.
bool feed(btBroadphaseInterface* bp, btDispatcher* dispatcher, const kl_bp_motion& m,
		  std::vector<btBroadphaseProxy*>& proxies)
{
	for (int i = m.new_begin; i < m.active_count; ++i)
	{
		bool is_static = i < m.static_count;
		int group = is_static ? btBroadphaseProxy::StaticFilter : btBroadphaseProxy::DefaultFilter;
		int mask = is_static ? btBroadphaseProxy::AllFilter ^ btBroadphaseProxy::StaticFilter
							 : btBroadphaseProxy::AllFilter;
		proxies[i] = bp->createProxy(to_bt(m.fat[i].lower), to_bt(m.fat[i].upper), BOX_SHAPE_PROXYTYPE,
									 reinterpret_cast<void*>(static_cast<intptr_t>(i)), group, mask, dispatcher);
		if (proxies[i] == nullptr)
		{
			return false;
		}
	}
	for (int k = 0; k < m.moved_count; ++k)
	{
		int i = m.moved[k];
		bp->setAabb(proxies[i], to_bt(m.fat[i].lower), to_bt(m.fat[i].upper), dispatcher);
	}
	return true;
}

// The pairs whose boxes really overlap, as sorted (a, b) user pairs.
std::vector<int32_t> exact_pairs(btBroadphaseInterface* bp, const kl_bp_motion& m, int* raw_count)
{
	btBroadphasePairArray& array = bp->getOverlappingPairCache()->getOverlappingPairArray();
	*raw_count = array.size();
	std::vector<int32_t> pairs;
	pairs.reserve(2 * static_cast<size_t>(array.size()));
	for (int p = 0; p < array.size(); ++p)
	{
		int a = static_cast<int>(reinterpret_cast<intptr_t>(array[p].m_pProxy0->m_clientObject));
		int b = static_cast<int>(reinterpret_cast<intptr_t>(array[p].m_pProxy1->m_clientObject));
		if (kl_bp_overlap(&m.fat[a], &m.fat[b]))
		{
			pairs.push_back(std::min(a, b));
			pairs.push_back(std::max(a, b));
		}
	}
	kl_bp_sort_pairs(pairs.data(), static_cast<int>(pairs.size() / 2));
	return pairs;
}

btBroadphaseInterface* create_broadphase(engine_kind kind, const kl_bp_motion& m)
{
	if (kind == engine_kind::dbvt)
	{
		return new btDbvtBroadphase();
	}
	// The raycast accelerator (a second, DBVT broadphase) is off: only the sweep is measured.
	btVector3 lo = to_bt(m.world_lower), hi = to_bt(m.world_upper);
	if (m.capacity <= 16383)
	{
		return new btAxisSweep3(lo, hi, static_cast<unsigned short>(m.capacity), nullptr, true);
	}
	return new bt32BitAxisSweep3(lo, hi, static_cast<unsigned int>(m.capacity), nullptr, true);
}

// One repeat: set up and warm up (KL_BP_WARMUP_UPDATES updates, the first with every proxy new),
// then time steps updates.
// Returns the mean ms per update, negative on failure.
double run_once(engine_kind kind, const kl_bp_scene_info& info, int steps, result& out)
{
	kl_bp_motion m;
	if (!kl_bp_motion_init(&m, &info))
	{
		std::fprintf(stderr, "kollide-bench-bullet: %s: out of memory\n", info.name);
		return -1.0;
	}
	btDefaultCollisionConfiguration config;
	btCollisionDispatcher dispatcher(&config);
	btBroadphaseInterface* bp = create_broadphase(kind, m);
	std::vector<btBroadphaseProxy*> proxies(static_cast<size_t>(m.capacity), nullptr);

	double t0 = now_ms();
	bool ok = feed(bp, &dispatcher, m, proxies);
	bp->calculateOverlappingPairs(&dispatcher);
	out.setup_ms = now_ms() - t0;
	for (int w = 1; w < KL_BP_WARMUP_UPDATES && ok; ++w)
	{
		kl_bp_motion_step(&m);
		ok = feed(bp, &dispatcher, m, proxies);
		bp->calculateOverlappingPairs(&dispatcher);
	}

	double total = 0.0;
	int64_t moved = 0, created = 0;
	for (int s = 0; s < steps && ok; ++s)
	{
		kl_bp_motion_step(&m);
		t0 = now_ms();
		ok = feed(bp, &dispatcher, m, proxies);
		bp->calculateOverlappingPairs(&dispatcher);
		total += now_ms() - t0;
		moved += m.moved_count;
		created += m.active_count - m.new_begin;
	}
	if (ok)
	{
		std::vector<int32_t> pairs = exact_pairs(bp, m, &out.raw_pairs);
		out.pairs = static_cast<int>(pairs.size() / 2);
		out.hash = kl_bp_hash_pairs(pairs.data(), out.pairs);
		out.bodies = m.active_count;
		out.moved = static_cast<double>(moved) / steps;
		out.created = static_cast<double>(created) / steps;
	}
	else
	{
		std::fprintf(stderr, "kollide-bench-bullet: %s: createProxy failed\n", info.name);
	}
	// Proxies are not destroyed one by one: AxisSweep removes a handle in O(n) and the DBVT scans the
	// whole pair cache per proxy. AxisSweep's handles live in its own arrays and go with it; the DBVT
	// allocates each proxy (btAlignedAlloc, trivial destructor) and leaves them to us.
	delete bp;
	for (size_t i = 0; kind == engine_kind::dbvt && i < proxies.size(); ++i)
	{
		btAlignedFree(proxies[i]);
	}
	kl_bp_motion_free(&m);
	return ok ? total / steps : -1.0;
}

// The exact pair set from bp_motion's grid, after the same updates (for --details).
int reference_pairs(const kl_bp_scene_info& info, int steps, uint32_t* hash)
{
	kl_bp_motion m;
	if (!kl_bp_motion_init(&m, &info))
	{
		return -1;
	}
	for (int s = 1; s < KL_BP_WARMUP_UPDATES + steps; ++s)
	{
		kl_bp_motion_step(&m);
	}
	int count = kl_bp_reference_pairs(&m, hash);
	kl_bp_motion_free(&m);
	return count;
}

const char* engine_name(engine_kind kind)
{
	return kind == engine_kind::axis3 ? "bullet_axis3" : "bullet_dbvt";
}

int run_scene(engine_kind kind, const kl_bp_scene_info& info, const options& o, std::string& details)
{
	int steps = o.steps > 0 ? o.steps : info.steps;
	std::vector<double> samples;
	result first, last;
	for (int r = 0; r < o.repeats; ++r)
	{
		double ms = run_once(kind, info, steps, last);
		if (ms < 0.0)
		{
			return 1;
		}
		if (r > 0 && last.hash != first.hash)
		{
			std::fprintf(stderr, "kollide-bench-bullet: %s:%s is not deterministic across repeats\n",
						 engine_name(kind), info.name);
			return 1;
		}
		if (r == 0)
		{
			first = last;
		}
		samples.push_back(ms);
	}
	std::sort(samples.begin(), samples.end());
	size_t n = samples.size();
	double median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
	std::printf("%s:%s,%d,1,%d,%.4f,0x%08x\n", engine_name(kind), info.name, last.bodies, steps, median, last.hash);
	std::fflush(stdout);
	if (o.details)
	{
		uint32_t reference_hash = 0;
		int reference = reference_pairs(info, steps, &reference_hash);
		char row[320];
		std::snprintf(row, sizeof(row), "%s:%s,1,%d,%d,%d,%d,%s,%.1f,%.2f,%.3f\n", engine_name(kind), info.name,
					  last.bodies, last.raw_pairs, last.pairs, reference,
					  reference == last.pairs && reference_hash == last.hash ? "yes" : "NO", last.moved,
					  last.created, last.setup_ms);
		details += row;
	}
	return 0;
}

const char k_pyramid_details_header[] = "scene,threads,bodies,first_step_ms,check,top_dz,min_z_drop";

// large_pyramid: the median of the repeats, one row, and a details row (height is Bullet's y).
int run_pyramid(const options& o, std::string& details)
{
	int steps = o.steps > 0 ? o.steps : 200;
	if (steps < 2)
	{
		std::fprintf(stderr, "kollide-bench-bullet: large_pyramid needs --steps >= 2 (the first is untimed)\n");
		return 1;
	}
	std::vector<double> samples;
	kl_bullet_scene_result first, last;
	for (int r = 0; r < o.repeats; ++r)
	{
		if (!kl_bullet_large_pyramid(steps, last))
		{
			std::fprintf(stderr, "kollide-bench-bullet: large_pyramid failed\n");
			return 1;
		}
		if (r > 0 && last.hash != first.hash)
		{
			std::fprintf(stderr, "kollide-bench-bullet: large_pyramid is not deterministic across repeats\n");
			return 1;
		}
		if (r == 0)
		{
			first = last;
		}
		samples.push_back(last.ms);
	}
	std::sort(samples.begin(), samples.end());
	size_t n = samples.size();
	double median = n % 2 ? samples[n / 2] : 0.5 * (samples[n / 2 - 1] + samples[n / 2]);
	std::printf("bullet:large_pyramid,%d,1,%d,%.4f,0x%08x\n", last.bodies, steps, median, last.hash);
	std::fflush(stdout);
	char row[200];
	std::snprintf(row, sizeof(row), "bullet:large_pyramid,1,%d,%.3f,%s,%.4f,%.4f\n", last.bodies, last.first_ms,
				  last.standing ? "standing" : "FELL", last.top_dy, last.lowest_drop);
	details += row;
	return 0;
}

void usage(FILE* out)
{
	std::fprintf(out,
				 "usage: kollide-bench-bullet [--scene NAME|all] [--broadphase axis3|dbvt|both] [--steps N]\n"
				 "                            [--repeats R] [--axis3-max N] [--details] [--list]\n"
				 "  Prints scene,bodies,threads,steps,ms_per_step,hash (median of R repeats, after warm-up\n"
				 "  updates) for kollide-bench's broadphase scenes. AxisSweep is skipped above N proxies\n"
				 "  (default 200000): its insertion is quadratic. --details adds a second CSV section.\n"
				 "  --scene large_pyramid runs Box3D's large_pyramid in btDiscreteDynamicsWorld (N steps, default\n"
				 "  200, of stepSimulation(1/60, 4, 1/240); ms over steps 2..N); --details adds its standing check.\n");
}

bool parse_int(const char* text, int lo, int hi, int* out)
{
	char* end = nullptr;
	long v = std::strtol(text, &end, 10);
	if (end == text || *end != '\0' || v < lo || v > hi)
	{
		return false;
	}
	*out = static_cast<int>(v);
	return true;
}

// Returns -1 to run, otherwise the exit code.
int parse_args(int argc, char** argv, options& o)
{
	for (int i = 1; i < argc; ++i)
	{
		const char* a = argv[i];
		bool has_value = i + 1 < argc;
		if (std::strcmp(a, "--help") == 0 || std::strcmp(a, "-h") == 0)
		{
			usage(stdout);
			return 0;
		}
		if (std::strcmp(a, "--list") == 0)
		{
			for (int s = 0; s < kl_bp_scene_info_count; ++s)
			{
				std::printf("%-16s %s\n", kl_bp_scene_infos[s].name, kl_bp_scene_infos[s].description);
			}
			std::printf("%-16s %s\n", "large_pyramid",
						"Box3D's pyramid of 5,050 cubes in btDiscreteDynamicsWorld, 4 sub-steps, sleeping off");
			return 0;
		}
		bool good = true;
		if (std::strcmp(a, "--details") == 0)
		{
			o.details = true;
		}
		else if (std::strcmp(a, "--scene") == 0 && has_value)
		{
			o.scene = argv[++i];
		}
		else if (std::strcmp(a, "--broadphase") == 0 && has_value)
		{
			const char* v = argv[++i];
			o.axis3 = std::strcmp(v, "axis3") == 0 || std::strcmp(v, "both") == 0;
			o.dbvt = std::strcmp(v, "dbvt") == 0 || std::strcmp(v, "both") == 0;
			good = o.axis3 || o.dbvt;
		}
		else if (std::strcmp(a, "--steps") == 0 && has_value)
		{
			good = parse_int(argv[++i], 1, 1000000, &o.steps);
		}
		else if (std::strcmp(a, "--repeats") == 0 && has_value)
		{
			good = parse_int(argv[++i], 1, 1000, &o.repeats);
		}
		else if (std::strcmp(a, "--axis3-max") == 0 && has_value)
		{
			good = parse_int(argv[++i], 0, 100000000, &o.axis3_max);
		}
		else
		{
			good = false;
		}
		if (!good)
		{
			std::fprintf(stderr, "kollide-bench-bullet: bad or incomplete argument '%s'\n", a);
			usage(stderr);
			return 2;
		}
	}
	return -1;
}

} // namespace

int main(int argc, char** argv)
{
	options o;
	int rc = parse_args(argc, argv, o);
	if (rc >= 0)
	{
		return rc;
	}
	bool all = std::strcmp(o.scene, "all") == 0;
	bool found = false;
	std::string details;
	std::printf("scene,bodies,threads,steps,ms_per_step,hash\n");
	for (int s = 0; s < kl_bp_scene_info_count; ++s)
	{
		const kl_bp_scene_info& info = kl_bp_scene_infos[s];
		if (!all && std::strcmp(o.scene, info.name) != 0)
		{
			continue;
		}
		found = true;
		int proxies = kl_bp_scene_proxies(&info);
		if (o.axis3 && proxies > o.axis3_max)
		{
			std::fprintf(stderr, "kollide-bench-bullet: skipping bullet_axis3:%s (%d proxies > --axis3-max %d)\n",
						 info.name, proxies, o.axis3_max);
		}
		else if (o.axis3 && run_scene(engine_kind::axis3, info, o, details) != 0)
		{
			return 1;
		}
		if (o.dbvt && run_scene(engine_kind::dbvt, info, o, details) != 0)
		{
			return 1;
		}
	}
	std::string pyramid_details;
	if (all || std::strcmp(o.scene, "large_pyramid") == 0)
	{
		found = true;
		if (run_pyramid(o, pyramid_details) != 0)
		{
			return 1;
		}
	}
	if (!found)
	{
		std::fprintf(stderr, "kollide-bench-bullet: no scene named '%s' (see --list)\n", o.scene);
		return 2;
	}
	if (o.details && !details.empty())
	{
		std::printf("\nscene,threads,proxies,raw_pairs,pairs,reference_pairs,reference_match,moved_per_update,"
					"created_per_update,first_update_ms\n%s",
					details.c_str());
	}
	if (o.details && !pyramid_details.empty())
	{
		std::printf("\n%s\n%s", k_pyramid_details_header, pyramid_details.c_str());
	}
	return 0;
}
