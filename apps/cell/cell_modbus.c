// Kollide robot cell — Modbus TCP frames: each is checked (header, function, lengths) before
// libmodbus's modbus_reply answers it from the register map, since modbus_reply trusts the byte
// counts of the request it is given.
// SPDX-License-Identifier: MIT
#include "cell_modbus.h"

#include <errno.h>
#include <string.h>

#define MBAP_SIZE 7

bool kl_cell_protocol_init(kl_cell_protocol* p, kl_cell* cell)
{
	memset(p, 0, sizeof(*p));
	p->cell = cell;
	p->ctx = modbus_new_tcp("127.0.0.1", 502); // never connects: only its framing is used
	return p->ctx != NULL;
}

void kl_cell_protocol_free(kl_cell_protocol* p)
{
	if (p->ctx != NULL)
	{
		modbus_free(p->ctx);
	}
	p->ctx = NULL;
}

static int word(const uint8_t* b)
{
	return (b[0] << 8) | b[1];
}

/// 0 when the PDU (function code first) has the length and counts its function needs; else the
/// Modbus exception code to answer with.
static int check_pdu(const uint8_t* pdu, int length)
{
	switch (pdu[0])
	{
		case MODBUS_FC_READ_COILS:
		case MODBUS_FC_READ_DISCRETE_INPUTS:
		case MODBUS_FC_READ_HOLDING_REGISTERS:
		case MODBUS_FC_READ_INPUT_REGISTERS:
		case MODBUS_FC_WRITE_SINGLE_COIL:
		case MODBUS_FC_WRITE_SINGLE_REGISTER: return length == 5 ? 0 : MODBUS_EXCEPTION_ILLEGAL_DATA_VALUE;
		case MODBUS_FC_WRITE_MULTIPLE_COILS:
		case MODBUS_FC_WRITE_MULTIPLE_REGISTERS:
		{
			if (length < 6)
			{
				return MODBUS_EXCEPTION_ILLEGAL_DATA_VALUE;
			}
			int count = word(pdu + 3), bytes = pdu[5];
			int need = pdu[0] == MODBUS_FC_WRITE_MULTIPLE_COILS ? (count + 7) / 8 : 2 * count;
			int most = pdu[0] == MODBUS_FC_WRITE_MULTIPLE_COILS ? MODBUS_MAX_WRITE_BITS : MODBUS_MAX_WRITE_REGISTERS;
			return count >= 1 && count <= most && bytes == need && length == 6 + bytes
					   ? 0
					   : MODBUS_EXCEPTION_ILLEGAL_DATA_VALUE;
		}
		default: return MODBUS_EXCEPTION_ILLEGAL_FUNCTION;
	}
}

bool kl_cell_protocol_answer(kl_cell_protocol* p, int fd, const uint8_t* frame, int length)
{
	// The MBAP header: transaction id, protocol 0, the length of what follows (unit id + PDU).
	if (length < MBAP_SIZE + 1 || length > KL_CELL_FRAME_SIZE || word(frame + 2) != 0 || word(frame + 4) != length - 6)
	{
		return false;
	}
	++p->frames;
	modbus_set_socket(p->ctx, fd);
	int exception = check_pdu(frame + MBAP_SIZE, length - MBAP_SIZE);
	int sent;
	if (exception != 0)
	{
		++p->exceptions;
		sent = modbus_reply_exception(p->ctx, frame, (unsigned)exception);
	}
	else
	{
		sent = modbus_reply(p->ctx, frame, length, p->cell->map);
	}
	modbus_set_socket(p->ctx, -1);
	return sent > 0;
}

bool kl_cell_protocol_feed(kl_cell_protocol* p, kl_cell_client* c, const uint8_t* bytes, int count)
{
	while (count > 0)
	{
		int take = KL_CELL_FRAME_SIZE - c->length < count ? KL_CELL_FRAME_SIZE - c->length : count;
		memcpy(c->buffer + c->length, bytes, (size_t)take);
		c->length += take;
		bytes += take;
		count -= take;
		while (c->length >= 6)
		{
			int frame = 6 + word(c->buffer + 4);
			if (frame < MBAP_SIZE + 1 || frame > KL_CELL_FRAME_SIZE)
			{
				return false; // a length no Modbus TCP frame has: the stream cannot be resynchronised
			}
			if (c->length < frame)
			{
				break;
			}
			if (!kl_cell_protocol_answer(p, c->fd, c->buffer, frame))
			{
				return false;
			}
			memmove(c->buffer, c->buffer + frame, (size_t)(c->length - frame));
			c->length -= frame;
		}
	}
	return true;
}
