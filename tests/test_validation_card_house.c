// Kollide tests — card house validation: seven 2 mm cards (two A-frames, a flat card, an A-frame
// on top; friction 0.7) stand for 5 s with every card within 1 cm and 2° of its start pose.
// SPDX-License-Identifier: MIT
#include "kl_validation.h"

#define CARD_STEPS 300 ///< 5 s
#define CARD_MOVE 0.01
#define CARD_TURN (2.0 * 3.14159265358979 / 180.0)
#define MAX_CARDS 16

typedef struct card_record
{
	kl_body_id cards[MAX_CARDS];
	int count;
	kl_transform start[MAX_CARDS];
	kl_transform end[MAX_CARDS];
} card_record;

static void record_cards(kl_world_id world, int step, void* context)
{
	card_record* r = context;
	if (step == 0)
	{
		kl_body_id* cards = NULL;
		r->count = kl_val_dynamic_bodies(world, &cards);
		assert_true(r->count > 0 && r->count <= MAX_CARDS);
		for (int i = 0; i < r->count; ++i)
		{
			r->cards[i] = cards[i];
			r->start[i] = kl_body_get_transform(cards[i]);
		}
		free(cards);
	}
	if (step == CARD_STEPS)
	{
		for (int i = 0; i < r->count; ++i)
		{
			r->end[i] = kl_body_get_transform(r->cards[i]);
		}
	}
}

static void test_card_house(void** state)
{
	(void)state;
	card_record r = {0};
	uint32_t hash = kl_val_run("card_house", 1, CARD_STEPS, record_cards, &r);
	assert_int_equal(r.count, 7);
	double worst_move = 0.0, worst_turn = 0.0;
	for (int i = 0; i < r.count; ++i)
	{
		double move = kl_val_distance(r.start[i].p, r.end[i].p);
		double turn = kl_val_angle_between(r.start[i].q, r.end[i].q);
		printf("  card %d: moved %.3f mm, turned %.3f deg\n", i, 1000.0 * move, turn * 180.0 / 3.14159265358979);
		worst_move = fmax(worst_move, move);
		worst_turn = fmax(worst_turn, turn);
	}
	printf("  card_house: largest move %.3f mm (limit %.0f mm), largest turn %.3f deg (limit 2 deg)\n",
		   1000.0 * worst_move, 1000.0 * CARD_MOVE, worst_turn * 180.0 / 3.14159265358979);
	assert_true(worst_move < CARD_MOVE);
	assert_true(worst_turn < CARD_TURN);
	kl_val_check_determinism("card_house", CARD_STEPS, hash);
}

int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0); // measured figures interleave with cmocka's lines
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_card_house),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
